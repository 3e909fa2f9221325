"""Game records (docs/notation.md): every finished game of every variant writes, reads back and replays to the
same final state; a malformed text names its line and what was expected; a tampered move names the move."""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import domino
import domino.bots
from domino.notation import Act, act_of, build

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


@st.composite
def variant_rules(draw: st.DrawFn) -> domino.Rules:
    """Every variant, teams where they are allowed, short matches."""
    name = draw(st.sampled_from(domino.PRESETS))
    if name == "mexican_train":
        players = draw(st.integers(2, 5))
        return domino.Rules.preset(name, players=players, set_max_pips=9, hand_size=7, rounds=draw(st.integers(1, 2)))
    players = draw(st.integers(2, 4))
    options: dict[str, Any] = {"target_score": draw(st.integers(5, 60))}
    if players == 4 and draw(st.booleans()):
        options["teams"] = "partners_opposite"
    return domino.Rules.preset(name, players=players, **options)


def bot_game(
    rules: domino.Rules, seed: str, rng: random.Random, resign_odds: float = 0.003, deal_version: int | None = None
) -> tuple[list[Act], domino.State, dict[str, Any]]:
    """A game the built-in bots play to the end (seat 1 claimed after the creation, some moves made by the
    server, some resignations), dealt by either deal version: its acts, its final state, its given facts."""
    bots = [domino.bots.get(rng.choice(["random", "greedy"])) for _ in range(rules.players)]
    deal_version = deal_version or rng.choice([1, 2])
    state = domino.new_game(rules, seed=seed, deal_version=deal_version)
    acts = [Act(0, "created"), Act(1, "claim", 1, name="Bo \"the\" {blocker}", deadline=1764950000.25)]
    while not state.finished:
        version = len(acts)
        if rng.random() < resign_odds:
            acts.append(Act(version, "resign", state.turn))
            state = domino.resign(state, state.turn)[0]
            break
        move = bots[state.turn].choose(domino.view(state, state.turn), rng, domino.bots.Budget(nodes=50))
        seat = state.turn
        state, events = domino.step(state, move)
        act = act_of(version, events[0].to_dict(for_seat=seat))
        acts.append(replace(act, auto=True, deadline=1764950000.0 + version) if rng.random() < 0.1 else act)
    seats = [{"seat": i, "name": f"p{i}", "kind": "bot", "player": f"u-{i}"} for i in range(rules.players)]
    seats[1] = {"seat": 1, "name": "Bo \"the\" {blocker}", "kind": "human", "metadata": {"club": "ü"}}
    facts = {
        "id": "h4k2mzq7c3x9b2rt", "variant": rules.preset_name, "version": len(acts) - 1, "seats": seats,
        "rules": rules.to_dict(), "seed_commitment": "9f2c", "client_seeded": True, "seed": seed, "salt": "a1b2",
        "created_at": 1764950000.123456, "deal_version": deal_version,
        **({"arena": {"id": "ar1", "game": 3}} if rng.random() < 0.5 else {}),
    }  # fmt: skip
    return acts, state, facts


@SETTINGS
@given(variant_rules(), st.text("abcdefgh0123456789", min_size=1, max_size=12), st.integers(0, 2**32))
def test_every_finished_game_writes_reads_and_replays_to_the_same_final_state(
    rules: domino.Rules, seed: str, rng_seed: int
) -> None:
    acts, final, facts = bot_game(rules, seed, random.Random(rng_seed))
    record, built = build(facts, acts)
    assert built == final and record["status"] == "finished"

    text = domino.notation.write_text(record)
    parsed = domino.notation.parse_text(text)
    assert parsed == record
    assert domino.notation.write_text(parsed) == text
    assert domino.replay(text) == final
    assert domino.replay(parsed) == final
    through_json = json.loads(json.dumps(record))
    assert domino.notation.parse(json.dumps(record)) == through_json == record
    assert domino.replay(through_json) == final
    assert domino.notation.split_texts(f"{text}\n{text}\n") == [text, text], "a file of records, as exported"


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    rules = domino.Rules.preset("all_fives", players=2, target_score=40)
    acts, _, facts = bot_game(rules, "notation", random.Random(5), resign_odds=0)
    return build(facts, acts)[0]


@pytest.fixture(scope="module")
def text(record: dict[str, Any]) -> str:
    return domino.notation.write_text(record)


def _line_of(text: str, start: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), 1) if line.startswith(start))


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda t: t.replace("[seed ", "[sede "), "a tag named one of"),
        (lambda t: t.replace('[variant "all_fives"]', "[variant all_fives]"), "a JSON value for the 'variant' tag"),
        (lambda t: t.replace('[salt "a1b2"]\n', ""), "a [salt ...] tag before the blank line"),
        (lambda t: t.replace("\n\n", "\n", 1), "a tag `[<name> <JSON value>]`, or a blank line before the moves"),
        (lambda t: t.replace("2. #", "2. seat ", 1), "a move line"),
        (lambda t: t.replace("0. created", "0. created {later}"), "annotations `{auto}` or `{deadline <number>}`"),
        (lambda t: t.rstrip("\n"), "a line break at the end of the record"),
    ],
)
def test_a_malformed_text_names_its_line_and_what_was_expected(
    text: str, change: Callable[[str], str], expected: str
) -> None:
    bad = change(text)
    with pytest.raises(domino.NotationError) as caught:
        domino.notation.parse(bad)
    lines = bad.split("\n")
    first_difference = next((n for n, (a, b) in enumerate(zip(text.split("\n"), lines), 1) if a != b), len(lines))
    # a missing tag is named at the blank line that ends the tags
    at = lines.index("") + 1 if "tag before the blank line" in expected else first_difference
    assert expected in str(caught.value) and caught.value.line == at
    assert str(caught.value).startswith(f"line {caught.value.line}: expected ")


def test_a_derived_line_that_the_replay_does_not_give_is_named_with_the_line_it_should_be(text: str) -> None:
    n = _line_of(text, "round 1 ends: ")
    lines = text.split("\n")
    good = lines[n - 1]
    lines[n - 1] = good.replace("; points ", "; points 1", 1)
    with pytest.raises(domino.NotationError) as caught:
        domino.notation.parse_text("\n".join(lines))
    assert caught.value.line == n and repr(good) in caught.value.expected


def test_a_tampered_move_in_the_text_fails_naming_the_line_the_round_and_the_move(
    text: str, record: dict[str, Any]
) -> None:
    played = next(e for e in record["events"] if e["type"] == "tile_played" and e["version"] > 5)
    n = _line_of(text, f"{played['version']}. ")
    lines = text.split("\n")
    lines[n - 1] = f"{played['version']}. #{played['seat']} 0-0 left"
    with pytest.raises(domino.ReplayError) as caught:
        domino.notation.parse_text("\n".join(lines))
    assert caught.value.line == n and caught.value.version == played["version"] and caught.value.round == 1
    said = f"line {n}, round 1, move {played['version']}: seat {played['seat']} may not play 0-0"
    assert str(caught.value).startswith(said)


def test_a_tampered_json_record_fails_naming_the_move_or_the_round(record: dict[str, Any]) -> None:
    tampered = copy.deepcopy(record)
    drawn = next(e for e in tampered["events"] if e["type"] == "tile_drawn" and not e.get("search"))
    drawn["tile"] = "0-0" if drawn["tile"] != "0-0" else "1-0"
    with pytest.raises(domino.ReplayError) as caught:
        domino.replay(tampered)
    assert caught.value.version == drawn["version"] and "tile=" in str(caught.value)

    tampered = copy.deepcopy(record)
    tampered["rounds"][0]["points"] = [p + 1 for p in tampered["rounds"][0]["points"]]
    with pytest.raises(domino.ReplayError, match=r"^round 1: the round's 'points' is "):
        domino.replay(tampered)

    tampered = copy.deepcopy(record)
    tampered["outcome"]["winners"] = [9]
    with pytest.raises(domino.ReplayError, match="'outcome'"):
        domino.replay(tampered)


def test_a_json_record_that_is_not_one_says_so() -> None:
    with pytest.raises(domino.NotationError, match="^line 2: expected a JSON record"):
        domino.notation.parse('{"id":\n]')
    with pytest.raises(domino.ReplayError, match="no 'seed'"):
        domino.replay({"id": "x", "variant": "draw", "version": 0, "seats": [], "rules": {}, "seed_commitment": "",
                       "client_seeded": False, "salt": ""})  # fmt: skip


def test_a_record_without_a_deal_version_is_dealt_as_version_1_and_an_unknown_one_is_refused(
    record: dict[str, Any],
) -> None:
    rules = domino.Rules.preset("draw", players=2, target_score=30)
    acts, final, facts = bot_game(rules, "v1", random.Random(1), resign_odds=0, deal_version=1)
    unversioned = {k: v for k, v in build(facts, acts)[0].items() if k != "deal_version"}
    assert domino.replay(unversioned) == final
    with pytest.raises(domino.ReplayError, match="^the game cannot be dealt: deal_version must be one of"):
        domino.replay({**record, "deal_version": 7})


def test_the_documented_examples_read_back_replay_and_are_written_as_documented() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "notation.md").read_text(encoding="utf-8")
    texts = re.findall(r"```domino-record\n(.*?)```", doc, re.DOTALL)
    variants = [re.search(r'\[variant "(\w+)"\]', t).group(1) for t in texts]  # type: ignore[union-attr]
    assert variants == ["draw", "all_fives", "mexican_train"]
    for text in texts:
        record = domino.notation.parse_text(text)
        assert domino.notation.write_text(record) == text and domino.replay(record).finished
    first_events = json.loads(re.search(r"```json\n(.*?)```", doc, re.DOTALL).group(1))  # type: ignore[union-attr]
    assert domino.notation.parse_text(texts[0])["events"][:4] == first_events


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"events": 3}, "the record's 'events' are a list"),
        ({"events": [1]}, "event 0 of the record is not an event with a whole-number 'version'"),
        ({"seats": [1, 2]}, "the seats are 2 objects numbered from 0, in order"),
        ({"rules": 3}, "the rules are not valid"),
    ],
)
def test_a_json_record_of_the_wrong_shape_says_what_is_wrong(
    record: dict[str, Any], change: dict[str, Any], says: str
) -> None:
    with pytest.raises(domino.ReplayError, match=f"^{re.escape(says)}"):
        domino.replay({**record, **change})


def test_a_record_s_rules_are_the_engine_s(record: dict[str, Any], text: str) -> None:
    with pytest.raises(domino.ReplayError, match="^'rules' is "):
        domino.replay({**record, "rules": {**record["rules"], "house_rule": 1}})
    with pytest.raises(domino.NotationError, match=r"^line 6: expected '\[rules "):
        domino.notation.parse(text.replace("[rules {", '[rules {"house_rule":1,'))


@pytest.mark.parametrize(("moves", "reason", "status"), [(5, "expired", "finished"), (0, "aborted", "aborted")])
def test_a_game_the_server_ended_writes_reads_and_replays(moves: int, reason: str, status: str) -> None:
    """An idle game (`expired`) or one its app called off before seat 1 was taken (`aborted`): nobody wins, the
    round under way is not scored, and the record says `ends <reason>`."""
    rules = domino.Rules.preset("draw", players=2, target_score=100)
    acts, _, facts = bot_game(rules, "ended", random.Random(3), resign_odds=0)
    kept = acts[: 2 + moves] if moves else acts[:1]
    state = domino.replay(build(facts, kept)[0])
    ended, events = domino.end(state, reason)
    assert ended.outcome == domino.Outcome(reason, ()) and [e.type for e in events] == ["game_ended"]
    assert ended.scores == state.scores and ended.rounds == state.rounds
    record, built = build(facts, [*kept, Act(len(kept), "end", reason=reason)])
    assert built == ended and record["status"] == status and record["outcome"]["reason"] == reason
    text = domino.notation.write_text(record)
    assert f"\n{len(kept)}. ends {reason}\n" in text
    assert domino.notation.parse_text(text) == record and domino.replay(text) == ended
    with pytest.raises(domino.GameOverError):
        domino.end(ended, reason)
    with pytest.raises(domino.InvalidMoveError):
        domino.end(state, "bored")

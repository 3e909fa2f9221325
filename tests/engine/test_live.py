"""The live document and the finished rounds' records: together they are the whole state; alone, the live
document plays and views exactly as the whole state does."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

import domino

MATCHES: list[Any] = [
    pytest.param("mexican_train", 4, {}, marks=pytest.mark.slow),  # a whole match of four: seconds
    ("draw", 2, {}),
    ("block", 4, {"teams": "partners_opposite", "hand_size": 7, "starting_rule": "lot"}),
    ("all_fives", 2, {"target_check": "immediate", "target_score": 61}),
]


def _json(doc: Any) -> Any:
    return json.loads(json.dumps(doc))  # what storage gives back


def _views(state: domino.State) -> list[dict[str, Any]]:
    return [domino.view(state, seat).to_dict() for seat in [None, *range(state.rules.players)]]


@pytest.mark.parametrize("preset,players,options", MATCHES, ids=lambda c: str(c))
def test_live_and_records_are_the_whole_state(preset: str, players: int, options: dict[str, Any]) -> None:
    rules = domino.Rules.preset(preset, players=players, **options)
    rng = random.Random(preset)
    state = domino.new_game(rules, seed=f"live-{preset}")
    live = _json(domino.to_live(state))
    records: list[dict[str, Any]] = []
    rounds_seen = 0
    while state.outcome is None:
        loaded = domino.from_live(live)  # what the service would load for a move: no records
        assert _views(loaded) == _views(state)
        assert domino.from_live(live, records) == state == domino.from_dict(_json(domino.to_dict(state)))
        legal = domino.legal_moves(loaded)
        assert legal == domino.legal_moves(state)
        move = legal[rng.randrange(len(legal))]
        after, events = domino.step(state, move)
        after_live, live_events = domino.step(loaded, move)
        assert live_events == events
        assert domino.to_live(after_live) == domino.to_live(after)
        new = domino.ended_rounds(loaded, after_live)
        assert new == domino.ended_rounds(state, after)
        assert len(new) == (1 if any(e.type == "round_ended" for e in events) else 0)
        records.extend(_json(list(new)))
        state, live = after, _json(domino.to_live(after_live))
        rounds_seen = max(rounds_seen, len(records))
        if records and after_live.last_round is not None and len(records) > 1:
            with pytest.raises(ValueError):
                domino.to_dict(after_live)  # its records are elsewhere: the whole document would lose them
    assert rounds_seen == len(state.rounds) >= 1
    assert domino.from_live(live, records) == state
    assert _views(domino.from_live(live)) == _views(state)


def test_resignation_ends_no_round() -> None:
    rules = domino.Rules.preset("draw", players=3)
    state = domino.new_game(rules, seed="resign")
    after, _ = domino.resign(state, 1)
    assert domino.ended_rounds(state, after) == ()
    assert domino.from_live(_json(domino.to_live(after)), []) == after


def test_records_must_match_the_live_document() -> None:
    rules = domino.Rules.preset("block", players=2, target_score=300)
    state = domino.new_game(rules, seed="mismatch")
    while not state.rounds:
        state = domino.apply(state, domino.legal_moves(state)[0])
    live = domino.to_live(state)
    with pytest.raises(domino.DominoError):
        domino.from_live(live, [])
    assert domino.from_live(live, [domino.round_record(state.rounds[0])]) == state


def test_a_round_record_made_again_is_a_fresh_copy_of_the_same_text() -> None:
    # Records are made once per round result and copied (codec's kept forms): a caller may change its copy.
    rules = domino.Rules.preset("block", players=4, teams="partners_opposite", target_score=300)
    state = domino.new_game(rules, seed="kept-record")
    while not state.rounds:
        state = domino.apply(state, domino.legal_moves(state)[0])
    last = state.last_round
    assert last is not None
    first = domino.round_record(last)
    text = json.dumps(first)
    first["hands"][0].clear()
    first["deal"]["boneyard"].append("6-6")
    first["points"][0] = -1
    again = domino.round_record(last)
    assert json.dumps(again) == text == json.dumps(domino.round_record(dataclasses.replace(last)))
    live = domino.to_live(state)
    assert domino.from_live(_json(live)).last_round == last == domino.from_live(_json(live)).last_round
    assert domino.from_live(_json(live), [_json(again)]) == state
    # A record like the kept one but for its deal (same round, pips left, points) is its own result.
    other = _json(live)
    hands = other["last_round"]["deal"]["hands"]
    hands[0], hands[1] = hands[1], hands[0]
    swapped = domino.from_live(other).last_round
    assert swapped is not None and swapped.deal.hands == (last.deal.hands[1], last.deal.hands[0], *last.deal.hands[2:])
    assert swapped.points == last.points and domino.from_live(_json(live)).last_round == last
    live["deal"]["hands"][0].clear()
    assert domino.to_live(state)["deal"] == state.deal.to_dict()

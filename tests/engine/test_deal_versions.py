"""Deal versions (docs/engine.md#deal-versions): version 2's stream, its worked example line by line, its
properties, and the version a game keeps for every round and in its stored forms."""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import domino
from domino import shuffle, testing
from domino.bots import Budget, get
from domino.errors import DominoError, InvalidDealError
from domino.tiles import full_set

import oracles

DOC = Path(__file__).resolve().parents[2] / "docs" / "engine.md"


# -- the worked example ------------------------------------------------------------------------------


def _example() -> dict[str, list[str]]:
    """docs/engine.md's worked example: each ``key: values`` line, continuation lines appended."""
    section = DOC.read_text().split("### A worked example (version 2)", 1)[1]
    block = re.search(r"```text\n(.*?)```", section, re.S)
    assert block is not None, "the worked example is a text block"
    fields: dict[str, list[str]] = {}
    key = ""
    for line in block.group(1).splitlines():
        head, sep, rest = line.partition(":")
        if sep and not head.startswith(" "):
            key, line = head.strip(), rest
        fields.setdefault(key, []).extend(line.split())
    return fields


def test_the_worked_example_byte_for_byte() -> None:
    ex = _example()
    seed, r, purpose = ex["seed"][0], int(ex["round"][0]), ex["purpose"][0]
    message = bytes.fromhex("".join(ex["message"]))
    assert message == seed.encode() + b"\x02" + f"{r}|{purpose}".encode() == shuffle.stream_message(seed, r, purpose)
    stream = bytes.fromhex("".join(ex["stream"]))
    assert len(stream) == 4 * 27 and stream == hashlib.shake_256(message).digest(len(stream))
    words = [int(w) for w in ex["words"]]
    assert words == oracles.words(seed, r, purpose, 27) == list(shuffle.Stream(seed, r, purpose, 27).words)
    draws = [int(j) for j in ex["draws"]]
    assert draws == oracles.draws(words, list(range(28, 1, -1)))[0] == shuffle.draws(seed, r, purpose, range(28, 1, -1))
    order = [str(t) for t in shuffle.shuffled(full_set(6), seed, r, purpose, 2)]
    assert ex["order"] == order
    rules = domino.Rules.preset("draw", players=2)
    deal = domino.deal_round(rules, seed, r, 2).to_dict()
    assert deal == {"hands": [ex["seat 0"], ex["seat 1"]], "boneyard": ex["boneyard"]}
    state = domino.new_game(rules, seed=seed)
    assert state.deal_version == 2 and state.deal.to_dict() == deal
    assert (state.turn, str(state.lead)) == (1, "6-6")  # as the text after the example says


# -- the stream --------------------------------------------------------------------------------------


def test_a_skipped_word_moves_every_later_draw_and_the_stream_reads_on() -> None:
    # With n near 2**32 a third of the words fall in the incomplete last block, so skips are common; 300
    # draws outrun the 300 words read at first, so the reader must extend the output (a longer SHAKE output
    # starts with the shorter one) and read on where it stopped.
    ranges = [3_000_000_000, 5, 2_900_000_000] * 100
    expected, skipped = oracles.draws(oracles.words("skip", 4, "deal", 4000), ranges)
    assert skipped > 50
    assert shuffle.draws("skip", 4, "deal", ranges) == expected


def test_a_shuffle_reads_on_past_a_skipped_word(monkeypatch: pytest.MonkeyPatch) -> None:
    # Skips are too rare to meet in a real deal (one double-six deal in 26 million), so the shuffle's plan is
    # made to reject every word from 2**31 up (still exact sampling, below 2**31): about half the words.
    half = 1 << 31
    real = shuffle._shuffle_plan

    def wasteful(n: int, unordered: int):  # type: ignore[no-untyped-def]
        count, unpack, plan = real(n, unordered)
        return count, unpack, tuple((m, half - half % m) for m, _ in plan)

    monkeypatch.setattr(shuffle, "_shuffle_plan", wasteful)
    for s in range(10):
        draws, skipped = oracles.draws(oracles.words(f"r{s}", 2, "deal", 400), list(range(28, 1, -1)), half)
        assert skipped > 0
        ref = list(range(28))
        for j, k in zip(draws, range(27, 0, -1)):
            ref[k], ref[j] = ref[j], ref[k]
        assert shuffle.permutation2(28, f"r{s}", 2, "deal") == ref


def test_a_longer_output_starts_with_the_shorter_one() -> None:
    stream = shuffle.Stream("prefix", 1, "deal", 3)
    first = stream.words
    assert stream.at_least(2) == first and len(stream.at_least(100)) >= 100
    assert stream.words[:3] == first


def test_streams_of_different_rounds_purposes_and_seeds_differ() -> None:
    messages = {
        shuffle.stream_message(seed, r, purpose)
        for seed in ("a", "a\x021|deal", "a\x02", "1", "")
        for r in (1, 11, 21)
        for purpose in ("deal", "lot", "reshuffle1")
    }
    assert len(messages) == 5 * 3 * 3


@settings(max_examples=60, deadline=None)
@given(
    seed=st.text(max_size=20),
    r=st.integers(1, 10_000),
    n=st.integers(0, 60),
    unordered=st.integers(0, 12),
)
def test_permutation_is_the_stream_shuffle(seed: str, r: int, n: int, unordered: int) -> None:
    ref = list(range(n))
    draws, _ = oracles.draws(oracles.words(seed, r, "deal", 2 * n + 8), list(range(n, 1, -1)))
    for j, k in zip(draws, range(n - 1, 0, -1)):
        ref[k], ref[j] = ref[j], ref[k]
    assert shuffle.order(n, seed, r, "deal", 2) == ref
    # A deal skips the last draws, which only reorder its first hand: the rest is the same shuffle.
    part = shuffle.order(n, seed, r, "deal", 2, unordered)
    assert part[unordered:] == ref[unordered:] and sorted(part[:unordered]) == sorted(ref[:unordered])


# -- deals and games ---------------------------------------------------------------------------------

PRESETS = [
    domino.Rules.preset("draw", players=2),
    domino.Rules.preset("block", players=4, teams="partners_opposite", hand_size=7, starting_rule="lot"),
    domino.Rules.preset("all_fives", players=3, set_max_pips=9),
    domino.Rules.preset("mexican_train", players=4),
    domino.Rules.preset("mexican_train", players=3, engine_setup="set_aside"),
]


@settings(max_examples=40, deadline=None)
@given(seed=st.text(max_size=12) | st.integers(), r=st.integers(1, 40), which=st.integers(0, len(PRESETS) - 1))
def test_a_version_2_deal_holds_every_tile_once_and_the_same_seed_deals_it_again(
    seed: str | int, r: int, which: int
) -> None:
    rules = PRESETS[which]
    deal = domino.deal_round(rules, str(seed), r)
    tiles = [t for h in deal.hands for t in h] + list(deal.boneyard)
    expected = list(full_set(rules.set_max_pips))
    if rules.engine_setup == "set_aside":
        e = rules.set_max_pips - (r - 1) % (rules.set_max_pips + 1)
        expected.remove(domino.Tile(e, e))
    assert sorted(tiles) == sorted(expected)
    assert [len(h) for h in deal.hands] == [rules.hand_size] * rules.players
    assert domino.deal_round(rules, str(seed), r, 2) == deal
    if r == 1:
        assert domino.new_game(rules, seed=seed).deal == deal


def test_versions_deal_differently_and_new_games_use_2() -> None:
    rules = PRESETS[0]
    assert domino.new_game(rules, seed="s").deal_version == shuffle.DEAL_VERSION == 2
    differ = sum(domino.deal_round(rules, f"s{i}", 1, 1) != domino.deal_round(rules, f"s{i}", 1, 2) for i in range(20))
    assert differ == 20


@pytest.mark.parametrize("bad", [0, 3, -1, True, "2", None])
def test_an_unknown_deal_version_is_refused(bad: object) -> None:
    rules = PRESETS[0]
    with pytest.raises(InvalidDealError):
        domino.new_game(rules, seed="s", deal_version=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidDealError):
        domino.playout(rules, ["greedy", "greedy"], "s", deal_version=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("deal_version", [1, 2])
@pytest.mark.parametrize("rules", [PRESETS[1], PRESETS[3]], ids=["block-lot", "mexican_train"])
def test_a_game_deals_every_round_by_its_own_version(rules: domino.Rules, deal_version: int) -> None:
    state = domino.new_game(rules, seed="rounds", deal_version=deal_version)
    greedy, rng = get("greedy"), random.Random(0)
    seen = 1
    while state.outcome is None and seen < 4:
        state = domino.apply(state, greedy.choose(domino.view(state, state.turn), rng, Budget()))
        if state.round != seen and state.outcome is None:
            seen = state.round
            assert state.deal_version == deal_version
            assert state.deal == domino.deal_round(rules, "rounds", seen, deal_version)
            # The stored forms keep the version, so a loaded game deals its next rounds the same way.
            assert domino.from_dict(domino.to_dict(state)) == state
            assert domino.from_live(domino.to_live(state)).deal_version == deal_version
    assert seen >= 3


def test_a_stored_document_without_a_version_is_version_1() -> None:
    rules = PRESETS[1]
    state = domino.new_game(rules, seed="old", deal_version=1)
    doc = domino.to_dict(state)
    assert doc["deal_version"] == 1
    del doc["deal_version"]
    assert domino.from_dict(doc) == state
    live = domino.to_live(state)
    del live["deal_version"]
    assert domino.from_live(live).deal_version == 1
    with pytest.raises(DominoError):
        domino.from_dict({**domino.to_dict(state), "deal_version": 7})


def test_a_position_fixture_keeps_the_version_it_is_given() -> None:
    rules = domino.Rules.preset("block", players=2)
    pos = testing.position(rules, "[6-6]", hands=["5-5", "4-4"], rest="boneyard", to_move=0, deal_version=1)
    assert pos.deal_version == 1
    assert testing.position(rules, "[6-6]", hands=["5-5", "4-4"], rest="boneyard", to_move=0).deal_version == 2

"""The fast core (domino.playout) plays exactly the matches the public engine plays.

Each case plays one seeded match twice: through ``domino.step`` with the public bots
(``domino.bots.get``) choosing from views and sharing one ``random.Random``, and through the core with
a generator seeded the same. Moves, round results, scores and the outcome must be identical.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest

import domino
from domino import bots
from domino.core import bot_rng, decode, tiles_of, tables
from domino.core.play import PlayoutResult

# (preset, players, options): every line preset, 2-4 players, teams, spinner, reserve and draw policies.
CASES: list[tuple[str, int, dict[str, Any]]] = [
    ("block", 2, {}),
    ("block", 3, {}),
    ("block", 4, {}),
    ("block", 4, {"teams": "partners_opposite", "hand_size": 7, "starting_rule": "lot"}),
    ("block", 4, {"teams": "partners_opposite", "team_scoring": "opponents_only"}),
    ("block", 2, {"no_double_fallback": "reshuffle", "hand_size": 3}),
    ("block", 3, {"next_round_starter": "previous_winner", "blocked_tie": "split"}),
    ("block", 2, {"opener_extra_play": True, "starting_rule": "lot"}),
    ("block", 3, {"scoring": "pagat_difference", "difference_mode": "pairwise", "target_score": 50}),
    ("block", 4, {"set_max_pips": 9, "hand_size": 10, "match_end": "fixed_rounds", "rounds": 3}),
    ("draw", 2, {}),
    ("draw", 3, {}),
    ("draw", 4, {}),
    ("draw", 4, {"teams": "partners_opposite"}),
    ("draw", 2, {"boneyard_reserve": 0, "drawn_tile_play": "may"}),
    ("draw", 3, {"draw_policy": "draw_one", "may_draw_when_playable": False}),
    ("draw", 2, {"blocked_tie": "split", "hand_size": 5, "no_double_fallback": "reshuffle"}),
    ("draw", 2, {"set_max_pips": 4, "hand_size": 4, "boneyard_reserve": 5}),
    ("draw_family", 2, {}),
    ("draw_family", 3, {}),
    ("draw_family", 4, {"drawn_tile_play": "may"}),
    ("all_fives", 2, {}),
    ("all_fives", 3, {}),
    ("all_fives", 4, {"teams": "partners_opposite"}),
    ("all_fives", 4, {"teams": "partners_opposite", "team_scoring": "opponents_only", "target_check": "end_of_round"}),
    ("all_fives", 2, {"spinner": "none", "hand_size": 9}),
    ("all_fives", 3, {"fives_bonus_scope": "per_opponent", "fives_blocked_award": "none", "blocked_tie": "split"}),
    ("all_fives", 2, {"draw_policy": "draw_until_playable", "starting_rule": "lot", "opener_extra_play": False}),
    ("all_fives", 2, {"draw_policy": "draw_until_playable", "may_draw_when_playable": True, "boneyard_reserve": 2}),
    ("all_fives", 4, {"set_max_pips": 9, "hand_size": 9, "drawn_tile_play": "may", "target_score": 300}),
]
STRATEGY_MIXES = [("random",), ("greedy",), ("random", "greedy")]
SEEDS = int(os.environ.get("CORE_AGREE_SEEDS", "3"))


def _public_match(
    rules: domino.Rules, strategies: list[str], seed: str | int, deal_version: int
) -> tuple[domino.State, list[domino.Move]]:
    rng = bot_rng(seed)
    state = domino.new_game(rules, seed=seed, deal_version=deal_version)
    moves: list[domino.Move] = []
    while state.outcome is None:
        seat = state.turn
        move = bots.get(strategies[seat]).choose(domino.view(state, seat), rng, bots.Budget())
        state = domino.apply(state, move)
        moves.append(move)
    return state, moves


def _check(rules: domino.Rules, strategies: list[str], seed: str | int, deal_version: int = 2) -> None:
    state, moves = _public_match(rules, strategies, seed, deal_version)
    fast: PlayoutResult = domino.playout(rules, strategies, seed, deal_version=deal_version, record=True)
    assert fast.log is not None
    assert [decode(c, rules.set_max_pips) for c in fast.log] == moves
    assert fast.moves == len(moves)
    assert fast.outcome == state.outcome
    assert fast.scores == state.scores
    assert len(fast.rounds) == len(state.rounds)
    tab = tables(rules.set_max_pips)
    for mine, theirs in zip(fast.rounds, state.rounds):
        assert mine.round == theirs.round
        assert mine.end == theirs.end
        assert mine.winner == theirs.winner
        assert mine.team == theirs.team
        assert mine.pips_left == theirs.pips_left
        assert mine.points == theirs.points
        assert mine.award == theirs.award
        assert tuple(tiles_of(h, tab) for h in mine.hands) == theirs.hands


@pytest.mark.parametrize("preset,players,options", CASES, ids=lambda c: str(c))
def test_core_agrees_with_public_engine(preset: str, players: int, options: dict[str, Any]) -> None:
    rules = domino.Rules.preset(preset, players=players, **options)
    for mix in STRATEGY_MIXES:
        strategies = [mix[i % len(mix)] for i in range(players)]
        for s in range(SEEDS):
            _check(rules, strategies, f"{preset}-{players}-{s}-{'/'.join(mix)}")


# Games dealt by version 1 still play on the core as they did: the cases with chance beyond the deal.
V1_CASES = [c for c in CASES if {"starting_rule", "no_double_fallback"} & set(c[2])]


@pytest.mark.parametrize("preset,players,options", V1_CASES, ids=lambda c: str(c))
def test_core_agrees_in_deal_version_1(preset: str, players: int, options: dict[str, Any]) -> None:
    rules = domino.Rules.preset(preset, players=players, **options)
    for s in range(SEEDS):
        _check(rules, ["random", "greedy"] * (players // 2) + ["greedy"] * (players % 2), f"v1-{s}", deal_version=1)


def test_integer_seeds_and_mixed_seats() -> None:
    rules = domino.Rules.preset("draw", players=3)
    _check(rules, ["greedy", "random", "random"], 12345)


def test_random_bot_draws_like_randrange() -> None:
    # The core's random bot rebuilds Random.randrange(n) from getrandbits; it must consume the same bits.
    a, b = random.Random(7), random.Random(7)
    for n in list(range(1, 70)) * 20:
        k = b.getrandbits(n.bit_length())
        while k >= n:
            k = b.getrandbits(n.bit_length())
        assert a.randrange(n) == k


def test_playout_rejects_bad_input() -> None:
    rules = domino.Rules.preset("block", players=2)
    with pytest.raises(ValueError):
        domino.playout(rules, ["random"], "s")
    with pytest.raises(ValueError):
        domino.playout(rules, ["random", "minimax"], "s")


def test_permutation_is_the_documented_shuffle() -> None:
    # shuffle.permutation (the core's deal) must draw exactly what uniform() specifies, draw by draw.
    from domino import shuffle

    for n in (0, 1, 2, 28, 55, 190):
        for s in range(20):
            ref = list(range(n))
            for i, k in enumerate(range(n - 1, 0, -1)):
                j = shuffle.uniform(f"p{s}", 3, "deal", i, k + 1)
                ref[k], ref[j] = ref[j], ref[k]
            assert shuffle.permutation(n, f"p{s}", 3, "deal") == ref
            # A deal skips the draws that only reorder its first hand: the rest is the same shuffle.
            for unordered in (2, 7, n):
                part = shuffle.permutation(n, f"p{s}", 3, "deal", unordered)
                assert part[unordered:] == ref[unordered:]
                assert sorted(part[:unordered]) == sorted(ref[:unordered])

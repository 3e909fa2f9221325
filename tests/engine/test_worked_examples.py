"""Worked examples for the line games (W1–W13), each with its exact expected outcome;
W14–W17 and W24–W26 are in test_worked_examples_scoring.py."""

from __future__ import annotations

import pytest

import domino
from domino import Play, full_set
from domino.errors import InvalidDealError
from engine_helpers import BLOCKING_LAYOUT, DRAW, NO_DRAW, PASS, P, T, count, deal, ends_of, last, layout_str, legal, plays, position, rules



# ---------------------------------------------------------------------------------------------------
# W1 — set arithmetic


@pytest.mark.parametrize("n, tiles, pips, doubles, per_value", [(6, 28, 168, 7, 7), (9, 55, 495, 10, 10), (12, 91, 1092, 13, 13)])
def test_W1_set_arithmetic(n: int, tiles: int, pips: int, doubles: int, per_value: int) -> None:
    s = full_set(n)
    assert len(s) == tiles == (n + 1) * (n + 2) // 2
    assert len(set(s)) == tiles
    assert sum(t.pips for t in s) == pips == n * (n + 1) * (n + 2) // 2
    assert sum(t.is_double for t in s) == doubles
    for v in range(n + 1):
        assert sum(t.has(v) for t in s) == per_value
    assert all(0 <= t.low <= t.high <= n for t in s)


# ---------------------------------------------------------------------------------------------------
# W2 — the double-six start

W2_A = "5-5 6-1 3-2 4-0 2-2 1-0 6-3"
W2_B = "6-6 5-4 3-1 0-0 4-2 6-5 2-1"


def test_W2_double_six_start_draw() -> None:
    r = rules("draw")
    s = domino.new_game(r, deal=deal(r, W2_A, W2_B))
    assert s.turn == 1
    assert domino.legal_moves(s) == (Play(T("6-6")),)
    s = domino.apply(s, Play(T("6-6")))
    assert layout_str(s) == "[6-6]"
    assert ends_of(s) == {"left": 6, "right": 6}
    assert s.turn == 0
    assert legal(s) == plays("6-1 left", "6-1 right", "6-3 left", "6-3 right") | {DRAW}


def test_W2_double_six_start_draw_family() -> None:
    r = rules("draw_family")
    s = domino.apply(domino.new_game(r, deal=deal(r, W2_A, W2_B)), Play(T("6-6")))
    assert legal(s) == plays("6-1 left", "6-1 right", "6-3 left", "6-3 right")


# ---------------------------------------------------------------------------------------------------
# W3 — the highest double when 6-6 is not dealt


def test_W3_highest_double_without_6_6() -> None:
    r = rules("block", players=3)
    s = domino.new_game(r, deal=deal(r, "3-3 6-2 5-1 4-0 2-1", "5-5 1-1 6-4 3-0 2-0", "6-5 4-3 5-2 1-0 6-1"))
    assert s.turn == 1
    assert domino.legal_moves(s) == (Play(T("5-5")),)
    s = domino.apply(s, Play(T("5-5")))
    assert s.turn == 2
    assert legal(s) == plays("6-5 left", "6-5 right", "5-2 left", "5-2 right")
    view = domino.view(s, None)
    assert view.boneyard_count == 0 and view.out_of_play_count == 13


# ---------------------------------------------------------------------------------------------------
# W4 — the no-double fallback

W4_A = "5-2 4-0 3-1 2-0 1-0 4-2 3-2"
W4_B = "4-3 5-0 5-1 4-1 6-0 2-1 3-0"


def test_W4_highest_tile_fallback() -> None:
    r = rules("draw")
    s = domino.new_game(r, deal=deal(r, W4_A, W4_B))
    assert s.turn == 0
    assert domino.legal_moves(s) == (Play(T("5-2")),)
    s = domino.apply(s, Play(T("5-2")))
    assert s.turn == 1
    assert layout_str(s) == "[5-2]"


def test_W4_reshuffle_rejects_explicit_deal_without_double() -> None:
    r = rules("draw", no_double_fallback="reshuffle")
    with pytest.raises(InvalidDealError):
        domino.new_game(r, deal=deal(r, W4_A, W4_B))


def test_W4_reshuffle_redeals_from_the_seed() -> None:
    from domino import shuffle

    tiles = full_set(6)
    seed = next(
        f"s{i}" for i in range(20000)
        if not any(t.is_double for t in shuffle.shuffled(tiles, f"s{i}", 1, "deal", shuffle.DEAL_VERSION)[:14])
    )
    plain = domino.new_game(rules("draw"), seed=seed)
    assert not any(t.is_double for h in plain.hands for t in h)
    reshuffled = domino.new_game(rules("draw", no_double_fallback="reshuffle"), seed=seed)
    assert any(t.is_double for h in reshuffled.hands for t in h)
    assert reshuffled.hands != plain.hands
    assert domino.legal_moves(reshuffled)[0].tile.is_double  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------------------------
# W5 — matching and blanks


def test_W5_matching_and_blanks() -> None:
    r = rules("block")
    s = position(r, layout="[0-3]", hands=["6-0 6-4 0-0 5-3", "1-1"], rest="boneyard")
    assert legal(s) == plays("6-0 left", "0-0 left", "5-3 right")
    assert ends_of(domino.apply(s, P("6-0", "left"))) == {"left": 6, "right": 3}
    after_double = domino.apply(s, P("0-0", "left"))
    assert ends_of(after_double) == {"left": 0, "right": 3} and layout_str(after_double) == "[0-0][0-3]"
    assert ends_of(domino.apply(s, P("5-3", "right"))) == {"left": 0, "right": 5}
    with pytest.raises(domino.IllegalMoveError):
        domino.apply(s, P("6-4", "left"))


# ---------------------------------------------------------------------------------------------------
# W6 — doubles do not branch vs the spinner

W6_LAYOUT = "[6-4][4-4][4-1]"


def test_W6_no_spinner_draw() -> None:
    s = position(rules("draw"), layout=W6_LAYOUT, hands=["4-2", "3-3"], rest="boneyard")
    assert ends_of(s) == {"left": 6, "right": 1}
    assert domino.legal_moves(s) == (DRAW,)


def test_W6_no_spinner_block() -> None:
    s = position(rules("block"), layout=W6_LAYOUT, hands=["4-2", "6-6"], rest="boneyard")
    assert domino.legal_moves(s) == (PASS,)


def test_W6_spinner_all_fives() -> None:
    s = position(rules("all_fives"), layout=W6_LAYOUT, hands=["4-2 3-0", "3-3"], rest="boneyard")
    assert ends_of(s) == {"left": 6, "right": 1, "up": 4, "down": 4}
    assert legal(s) == plays("4-2 up", "4-2 down")
    assert count(s) == 7
    for end in ("up", "down"):
        after = domino.apply(s, P("4-2", end))
        assert count(after) == 9
        assert after.scores == (0, 0)
        assert ends_of(after)[end] == 2


# ---------------------------------------------------------------------------------------------------
# W7 — the draw procedure stops at two tiles (fixture F7)

F7_LAYOUT = "[2-5][5-1][1-2][2-3][3-5][5-5][5-4][4-6][6-0][0-1][1-6][6-5]"
F7_A = "6-6 4-1 3-0 1-1"
F7_B = "0-0 2-0 2-2 3-3 4-0 4-3 6-2"


def f7(r: domino.Rules, boneyard: str) -> domino.State:
    return position(r, layout=F7_LAYOUT, hands=[F7_A, F7_B], boneyard=boneyard)


def test_W7a_draw_stops_at_two_tiles() -> None:
    s = f7(rules("draw"), "6-3 4-4 3-1 5-0 4-2")
    assert ends_of(s) == {"left": 2, "right": 5}
    for expected_tile in ("6-3", "4-4", "3-1"):
        assert domino.legal_moves(s) == (DRAW,)
        s = domino.apply(s, DRAW)
        assert T(expected_tile) in s.hands[0]
    assert len(s.boneyard) == 2
    assert domino.legal_moves(s) == (PASS,)
    s = domino.apply(s, PASS)
    assert len(s.hands[0]) == 7
    assert s.turn == 1 and not s.rounds
    assert s.boneyard == (T("5-0"), T("4-2"))
    assert legal(s) == plays("2-0 left", "2-2 left", "6-2 left")


def test_W7b_drawn_playable_tile_must_be_played() -> None:
    s = f7(rules("draw", may_draw_when_playable=False), "6-3 5-0 4-4 3-1 4-2")
    s = domino.apply(s, DRAW)
    assert domino.legal_moves(s) == (DRAW,)
    s = domino.apply(s, DRAW)
    assert domino.legal_moves(s) == (P("5-0", "right"),)
    s = domino.apply(s, P("5-0", "right"))
    assert ends_of(s) == {"left": 2, "right": 0}
    assert len(s.boneyard) == 3
    assert s.turn == 1


def test_W7c_may_keep_drawing_until_two_remain() -> None:
    s = f7(rules("draw"), "6-3 5-0 4-4 3-1 4-2")
    s = domino.apply(domino.apply(s, DRAW), DRAW)
    assert legal(s) == {P("5-0", "right"), DRAW}
    s = domino.apply(s, DRAW)
    assert T("4-4") in s.hands[0] and len(s.boneyard) == 2
    assert domino.legal_moves(s) == (P("5-0", "right"),)


def test_W7d_draw_family_draws_to_the_last_tile() -> None:
    s = f7(rules("draw_family"), "6-3 4-4 3-1 5-0 4-2")
    for _ in range(4):
        assert domino.legal_moves(s) == (DRAW,)
        s = domino.apply(s, DRAW)
    assert domino.legal_moves(s) == (P("5-0", "right"),)
    s = domino.apply(s, P("5-0", "right"))
    assert s.boneyard == (T("4-2"),)
    assert ends_of(s)["right"] == 0


# ---------------------------------------------------------------------------------------------------
# W8 — drawing one tile (all_fives, draw_one)


def test_W8_draw_one_unplayable_then_pass() -> None:
    s = position(rules("all_fives"), layout="[4-3][3-6]", hands=["2-1 3-0", "5-5"], boneyard="5-2", rest="boneyard")
    assert domino.legal_moves(s) == (DRAW,)
    s = domino.apply(s, DRAW)
    assert T("5-2") in s.hands[0]
    assert domino.legal_moves(s) == (PASS,)
    s = domino.apply(s, PASS)
    assert s.turn == 1 and len(s.hands[0]) == 3 and s.scores == (0, 0)


def test_W8_draw_one_playable_must_play() -> None:
    s = position(rules("all_fives"), layout="[4-3][3-6]", hands=["2-1 3-0", "5-5"], boneyard="6-1", rest="boneyard")
    s = domino.apply(s, DRAW)
    assert domino.legal_moves(s) == (P("6-1", "right"),)
    s = domino.apply(s, P("6-1", "right"))
    assert ends_of(s) == {"left": 4, "right": 1}
    assert s.scores == (5, 0)


# ---------------------------------------------------------------------------------------------------
# W9, W10 — blocked games (fixtures F9, F10)

F9 = dict(
    layout="[5-4][4-0][0-1][1-4][4-4][4-2][2-2][2-6][6-6][6-5][5-5][5-0][0-0][0-3][3-1][1-2][2-5][5-1][1-6][6-3][3-3][3-5]",
    hands=["4-3 2-0", "6-4 1-1"],
    boneyard="6-0 3-2",
)
F10 = dict(
    layout="[5-4][4-0][0-3][3-3][3-1][1-4][4-4][4-2][2-6][6-0][0-0][0-1][1-1][1-5][5-5][5-3][3-6][6-6][6-5][5-2][2-2][2-0][0-5]",
    hands=["4-3 2-1", "6-4"],
    boneyard="6-1 3-2",
)


def test_W9_blocked_pagat_difference() -> None:
    s = position(rules("draw"), **F9)  # type: ignore[arg-type]
    res = last(s)
    assert (res.end, res.winner, res.pips_left) == ("blocked", 0, (9, 12))
    assert res.points == (3, 0)
    assert s.scores == (3, 0)
    assert s.outcome is None and s.round == 2  # the match goes on with a fresh deal


def test_W9_blocked_opponents_total() -> None:
    s = position(rules("draw", scoring="opponents_total"), **F9)  # type: ignore[arg-type]
    assert last(s).points == (12, 0) and s.scores == (12, 0)


def test_W9_not_blocked_under_draw_family() -> None:
    s = position(rules("draw_family"), **F9)  # type: ignore[arg-type]
    assert s.rounds == ()
    assert domino.legal_moves(s) == (DRAW,)
    # A draws both tiles; then nobody can play or draw: blocked right after the Draw, with no Pass.
    s = domino.apply(s, DRAW)
    assert domino.legal_moves(s) == (DRAW,)
    s = domino.apply(s, DRAW)
    res = last(s)
    assert res.end == "blocked" and res.pips_left == (9 + 6 + 5, 12)
    assert res.winner == 1 and res.points == (0, 20)


def test_W10_blocked_exact_tie() -> None:
    s = position(rules("draw"), **F10)  # type: ignore[arg-type]
    res = last(s)
    assert (res.end, res.winner, res.pips_left, res.points) == ("blocked", None, (10, 10), (0, 0))
    assert s.scores == (0, 0)
    assert len(s.rounds) == 1 and s.round == 2


# ---------------------------------------------------------------------------------------------------
# W11, W12 — going out


@pytest.mark.parametrize("preset, extra", [("draw", {}), ("draw", {"difference_mode": "pairwise"}), ("draw_family", {})])
def test_W11_going_out_three_players(preset: str, extra: dict[str, str]) -> None:
    s = position(rules(preset, players=3, **extra), layout="[5-4]", hands=["4-1", "6-6 3-2", "1-0"], rest="boneyard")
    s = domino.apply(s, P("4-1", "right"))
    res = last(s)
    assert (res.end, res.winner, res.pips_left) == ("domino", 0, (0, 17, 1))
    assert res.points == (18, 0, 0) and s.scores == (18, 0, 0)


@pytest.mark.parametrize("preset", ["draw", "draw_family", "block"])
def test_W12_going_out_against_zero(preset: str) -> None:
    s = position(rules(preset), layout="[5-4]", hands=["4-1", "0-0"], rest="boneyard")
    s = domino.apply(s, P("4-1", "right"))
    res = last(s)
    assert (res.end, res.winner, res.pips_left, res.points) == ("domino", 0, (0, 0), (0, 0))
    assert s.scores == (0, 0) and s.outcome is None and s.round == 2


# ---------------------------------------------------------------------------------------------------
# W13 — difference modes and ties, 3 players, blocked


def w13(r: domino.Rules, hands: list[str]) -> domino.RoundResult:
    s = position(r, layout=BLOCKING_LAYOUT, hands=hands, rest="boneyard")
    res = last(s)
    assert res.end == "blocked"
    assert s.scores == res.points
    return res


W13_ONE = ["3-1", "6-4", "5-2"]
W13_TIE = ["4-1", "3-2", "6-3"]


def test_W13_opponents_total() -> None:
    res = w13(rules("block", players=3), W13_ONE)
    assert res.winner == 0 and res.pips_left == (4, 10, 7) and res.points == (17, 0, 0)


def test_W13_sum_minus_own() -> None:
    res = w13(rules("block", players=3, scoring="pagat_difference"), W13_ONE)
    assert res.points == (13, 0, 0)


def test_W13_pairwise() -> None:
    res = w13(rules("block", players=3, scoring="pagat_difference", difference_mode="pairwise"), W13_ONE)
    assert res.points == (9, 0, 0)


def test_W13_tie_no_score() -> None:
    res = w13(rules("block", players=3), W13_TIE)
    assert res.winner is None and res.pips_left == (5, 5, 9) and res.points == (0, 0, 0)


def test_W13_tie_split_opponents_total() -> None:
    assert w13(rules("block", players=3, blocked_tie="split"), W13_TIE).points == (4, 4, 0)


def test_W13_tie_split_sum_minus_own() -> None:
    r = rules("block", players=3, blocked_tie="split", scoring="pagat_difference")
    assert w13(r, W13_TIE).points == (2, 2, 0)


def test_W13_tie_split_all_fives() -> None:
    r = rules("all_fives", players=3, blocked_tie="split", boneyard_reserve=NO_DRAW)
    assert w13(r, W13_TIE).points == (5, 5, 0)

"""Worked examples for the line games (W1–W17, W24–W26), each with its exact expected outcome."""

from __future__ import annotations

import pytest

import domino
from domino import Deal, Play, full_set
from domino.errors import InvalidDealError
from domino.scoring import round5
from domino.variants.line_kernel import fresh
from engine_helpers import DRAW, PASS, P, T, ends_of, hand, layout_str, plays, position, rules

# ---------------------------------------------------------------------------------------------------
# helpers


def count(state: domino.State) -> int:
    """The All Fives count of the state's open ends, as the engine counts it (the kernel's)."""
    return fresh(state).count()


def deal(r: domino.Rules, *hands: str, boneyard: str = "") -> Deal:
    """A Deal with the given hands; the boneyard is ``boneyard`` (top first) then every other tile in set order."""
    hs = tuple(hand(h) for h in hands)
    head = [T(s) for s in boneyard.split()]
    used = {t for h in hs for t in h} | set(head)
    rest = [t for t in full_set(r.set_max_pips) if t not in used]
    return Deal(hands=hs, boneyard=tuple(head + rest))


def legal(state: domino.State) -> set[domino.Move]:
    moves = domino.legal_moves(state)
    assert len(set(moves)) == len(moves), "legal moves must not repeat"
    return set(moves)


def last(state: domino.State) -> domino.RoundResult:
    assert state.rounds, "no round has ended"
    return state.rounds[-1]


BLOCKING_LAYOUT = "[0-6][6-5][5-0]"  # both ends show 0; the hands used with it hold no 0
NO_DRAW = 100  # a boneyard_reserve larger than any boneyard: nobody may draw (allowed: docs/rules.md#boneyard_reserve)


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


# ---------------------------------------------------------------------------------------------------
# W14, W15 — All Fives counting


def test_W14_ends_4_and_6_score_10() -> None:
    s = position(rules("all_fives"), layout="[4-3]", hands=["2-2", "6-3 1-1"], to_move=1, rest="boneyard")
    assert count(s) == 7
    s = domino.apply(s, P("6-3", "right"))
    assert layout_str(s) == "[4-3][3-6]"
    assert s.scores == (0, 10)


def test_W15_counting_with_the_spinner() -> None:
    r = rules("all_fives")
    s = domino.new_game(r, deal=deal(r, "5-5 5-3 6-5 5-2 1-0 2-0 4-0", "5-1 3-3 6-0 6-1 6-2 6-3 6-4"))
    # 1. A opens with 5-5, the spinner: a lone double counts 10.
    assert s.turn == 0 and domino.legal_moves(s) == (Play(T("5-5")),)
    s = domino.apply(s, Play(T("5-5")))
    assert s.scores == (10, 0) and s.board.spinner == 0
    # 2. The extra play: sides only, Pass allowed; up/down illegal.
    assert s.turn == 0 and s.extra_play
    assert legal(s) == plays("5-3 left", "5-3 right", "6-5 left", "6-5 right", "5-2 left", "5-2 right") | {PASS}
    with pytest.raises(domino.IllegalMoveError):
        domino.apply(s, P("6-5", "up"))
    s = domino.apply(s, P("5-3", "left"))
    assert layout_str(s) == "[3-5][5-5]" and count(s) == 13 and s.scores == (10, 0)
    assert s.turn == 1
    # 3. B covers the other side: the spinner stops counting, up/down open empty.
    s = domino.apply(s, P("5-1", "right"))
    assert layout_str(s) == "[3-5][5-5][5-1]" and count(s) == 4 and s.scores == (10, 0)
    assert ends_of(s) == {"left": 3, "right": 1, "up": 5, "down": 5}
    # 4. A plays 6-5 on up: 3 + 1 + 6 = 10.
    s = domino.apply(s, P("6-5", "up"))
    assert count(s) == 10 and s.scores == (20, 0)
    # 5. B plays 3-3 at left: 6 + 1 + 6 = 13.
    s = domino.apply(s, P("3-3", "left"))
    assert count(s) == 13 and s.scores == (20, 0)
    # 6. A plays 5-2 on down: 6 + 1 + 6 + 2 = 15.
    s = domino.apply(s, P("5-2", "down"))
    assert count(s) == 15
    assert s.scores == (35, 0)
    assert s.round_points == (35, 0)


# ---------------------------------------------------------------------------------------------------
# W16 — rounding the bonus


def w16(r: domino.Rules, others: list[str]) -> domino.State:
    s = position(r, layout="[6-1]", hands=["1-0", *others], rest="boneyard")
    s = domino.apply(s, P("1-0", "right"))  # count 6 + 0 = 6: no in-play score
    res = last(s)
    assert res.end == "domino" and res.winner == 0
    assert res.points == res.award == s.scores
    return s


def test_W16_bonus_12_is_10() -> None:
    assert w16(rules("all_fives"), ["3-2 4-3"]).scores == (10, 0)


def test_W16_bonus_13_is_15() -> None:
    assert w16(rules("all_fives"), ["6-3 4-0"]).scores == (15, 0)


def test_W16_three_players_total() -> None:
    assert w16(rules("all_fives", players=3), ["5-2", "4-2"]).scores == (15, 0, 0)


def test_W16_three_players_per_opponent() -> None:
    r = rules("all_fives", players=3, fives_bonus_scope="per_opponent")
    assert w16(r, ["5-2", "4-2"]).scores == (10, 0, 0)


def test_W16_round5_table() -> None:
    table = {0: 0, 1: 0, 2: 0, 3: 5, 4: 5, 7: 5, 8: 10, 12: 10, 13: 15, 17: 15, 18: 20}
    assert {x: round5(x) for x in table} == table


def test_W16_last_tile_scores_in_play_then_bonus() -> None:
    # [4-3], A plays 6-3 as its last tile: C = 10 in play, then round5(12) = 10 bonus.
    s = position(rules("all_fives"), layout="[4-3]", hands=["6-3", "5-2 4-1"], rest="boneyard")
    s = domino.apply(s, P("6-3", "right"))
    res = last(s)
    assert res.award == (10, 0) and res.points == (20, 0) and s.scores == (20, 0)


# ---------------------------------------------------------------------------------------------------
# W17 — All Fives blocked round and immediate target


def test_W17_blocked_opponents_total_rounded() -> None:
    s = position(rules("all_fives", boneyard_reserve=NO_DRAW), layout=BLOCKING_LAYOUT, hands=["4-3", "5-2 3-1"], rest="boneyard")
    res = last(s)
    assert (res.end, res.winner, res.pips_left, res.points) == ("blocked", 0, (7, 11), (10, 0))
    assert s.scores == (10, 0)


def test_W17_blocked_tie_no_score() -> None:
    s = position(rules("all_fives", boneyard_reserve=NO_DRAW), layout=BLOCKING_LAYOUT, hands=["6-3", "5-4"], rest="boneyard")
    res = last(s)
    assert (res.end, res.winner, res.pips_left, res.points) == ("blocked", None, (9, 9), (0, 0))


def test_W17_blocked_award_none() -> None:
    r = rules("all_fives", boneyard_reserve=NO_DRAW, fives_blocked_award="none")
    s = position(r, layout=BLOCKING_LAYOUT, hands=["4-3", "5-2 3-1"], rest="boneyard")
    assert last(s).points == (0, 0)


def test_W17_immediate_target_abandons_round() -> None:
    s = position(rules("all_fives"), layout="[4-3]", hands=["6-3", "6-6 5-5"], scores=[145, 0], rest="boneyard")
    s, events = domino.step(s, P("6-3", "right"))
    assert s.scores == (155, 0)  # no going-out bonus (it would be round5(22) = 20)
    assert s.outcome == domino.Outcome("target_score", (0,), None)
    res = last(s)
    assert res.end == "abandoned" and res.award == (0, 0) and res.points == (10, 0)
    assert [e.type for e in events][-1] == "game_ended"
    assert domino.legal_moves(s) == ()


def test_W17_immediate_target_mid_round() -> None:
    s = position(rules("all_fives"), layout="[4-3]", hands=["6-3 1-1", "6-6 5-5"], scores=[145, 0], rest="boneyard")
    s = domino.apply(s, P("6-3", "right"))
    assert s.outcome is not None and s.outcome.winners == (0,)
    assert last(s).end == "abandoned" and s.scores == (155, 0)


# ---------------------------------------------------------------------------------------------------
# W24 — team play (draw_family, 4 players)


def teams(**kw: object) -> domino.Rules:
    return rules("draw_family", players=4, teams="partners_opposite", **kw)


W24_CASES = {
    # case: (layout, C's last tile, A, B, D, blocked?)
    "a": ("[6-6]", "6-0", "2-2", "5-3", "4-1"),
    "c": ("[5-5]", "5-0", "6-6", "3-1", "2-1"),
}


def w24_out(case: str, r: domino.Rules) -> domino.State:
    layout, last_tile, a, b, d = W24_CASES[case]
    s = position(r, layout=layout, hands=[a, b, last_tile, d], to_move=2, rest="boneyard")
    s = domino.apply(s, P(last_tile, "right"))
    res = last(s)
    assert res.end == "domino" and res.winner == 2
    assert s.scores == res.points
    assert s.scores[0] == s.scores[2] and s.scores[1] == s.scores[3] == 0
    return s


def test_W24a_all_hands() -> None:
    s = w24_out("a", teams())
    assert s.scores == (17, 0, 17, 0) and last(s).team == 0


def test_W24a_opponents_only() -> None:
    assert w24_out("a", teams(team_scoring="opponents_only")).scores == (13, 0, 13, 0)


def test_W24a_pagat_difference() -> None:
    assert w24_out("a", teams(scoring="pagat_difference")).scores == (9, 0, 9, 0)


def w24b(r: domino.Rules) -> domino.State:
    s = position(r, layout="[6-6]", hands=["3-1", "5-3", "4-2", "4-1"], rest="boneyard")
    res = last(s)
    assert res.end == "blocked" and res.pips_left == (4, 8, 6, 5) and res.team == 0
    return s


def test_W24b_all_hands() -> None:
    assert w24b(teams(boneyard_reserve=NO_DRAW)).scores == (23, 0, 23, 0)


def test_W24b_opponents_only() -> None:
    assert w24b(teams(boneyard_reserve=NO_DRAW, team_scoring="opponents_only")).scores == (13, 0, 13, 0)


def test_W24b_pagat_difference() -> None:
    assert w24b(teams(boneyard_reserve=NO_DRAW, scoring="pagat_difference")).scores == (3, 0, 3, 0)


def test_W24b_equal_team_totals_score_nothing() -> None:
    s = position(teams(boneyard_reserve=NO_DRAW), layout="[6-6]", hands=["3-1", "5-3", "4-2", "2-0"], rest="boneyard")
    res = last(s)
    assert res.end == "blocked" and res.points == (0, 0, 0, 0) and res.team is None


def test_W24c_all_hands() -> None:
    assert w24_out("c", teams()).scores == (19, 0, 19, 0)


def test_W24c_opponents_only() -> None:
    assert w24_out("c", teams(team_scoring="opponents_only")).scores == (7, 0, 7, 0)


def test_W24c_pagat_difference_negative_scores_nothing() -> None:
    assert w24_out("c", teams(scoring="pagat_difference")).scores == (0, 0, 0, 0)


# ---------------------------------------------------------------------------------------------------
# W25 — winning the round is not winning the match


def test_W25_round_win_is_not_match_win() -> None:
    s = position(rules("draw_family"), layout="[5-4]", hands=["4-1", "6-6 3-2"], rest="boneyard")
    s = domino.apply(s, P("4-1", "right"))
    assert last(s).points == (17, 0) and s.scores == (17, 0)
    assert s.outcome is None and s.round == 2 and domino.legal_moves(s)


@pytest.mark.parametrize("preset, final", [("draw_family", 104), ("draw", 101)])
def test_W25_blocked_round_reaches_target(preset: str, final: int) -> None:
    r = rules(preset, boneyard_reserve=NO_DRAW)
    assert r.target_score == 100
    s = position(r, layout=BLOCKING_LAYOUT, hands=["2-1", "5-4"], scores=[95, 60], rest="boneyard")
    res = last(s)
    assert res.end == "blocked" and res.winner == 0 and res.pips_left == (3, 9)
    assert s.scores == (final, 60)
    assert s.outcome == domino.Outcome("target_score", (0,), None)
    assert domino.legal_moves(s) == ()


# ---------------------------------------------------------------------------------------------------
# W26 — a spinner played after the lead


def w26_after_spinner() -> domino.State:
    s = position(rules("all_fives"), layout="[5-2][2-1][1-5]", hands=["5-5 1-0", "5-3 6-0"], rest="boneyard")
    assert legal(s) == plays("5-5 left", "5-5 right")
    s = domino.apply(s, P("5-5", "right"))
    assert s.scores == (15, 0) and count(s) == 15
    assert s.board.spinner == 3
    assert set(ends_of(s)) == {"left", "right"}
    assert s.turn == 1 and legal(s) == plays("5-3 left", "5-3 right")
    return s


def test_W26_1_spinner_after_lead() -> None:
    w26_after_spinner()


def test_W26_2a_spinner_open_side() -> None:
    s = domino.apply(w26_after_spinner(), P("5-3", "right"))
    assert count(s) == 8 and s.scores == (15, 0)
    assert ends_of(s) == {"left": 5, "right": 3, "up": 5, "down": 5}


def test_W26_2b_other_end() -> None:
    s = domino.apply(w26_after_spinner(), P("5-3", "left"))
    assert count(s) == 13 and s.scores == (15, 0)
    assert ends_of(s) == {"left": 3, "right": 5}


# ---------------------------------------------------------------------------------------------------
# Match ends beyond the worked examples (docs/rules.md#the-match, #team-play)


def test_fixed_rounds_team_tie_is_a_shared_win_with_no_team() -> None:
    r = rules("block", players=4, teams="partners_opposite", match_end="fixed_rounds", rounds=1)
    s = position(r, layout="[6-6]", hands=["3-1", "5-3", "4-2", "2-0"], rest="boneyard")  # 10 vs 10: nobody scores
    assert last(s).points == (0, 0, 0, 0)
    assert s.outcome == domino.Outcome("fixed_rounds", (0, 1, 2, 3), None)


def test_fixed_rounds_team_win() -> None:
    r = rules("block", players=4, teams="partners_opposite", match_end="fixed_rounds", rounds=1)
    s = position(r, layout="[6-6]", hands=["3-1", "5-3", "4-2", "4-1"], rest="boneyard")
    assert s.outcome == domino.Outcome("fixed_rounds", (0, 2), 0)


def test_fixed_rounds_shared_win_without_teams() -> None:
    r = rules("block", players=3, match_end="fixed_rounds", rounds=1)
    s = position(r, layout=BLOCKING_LAYOUT, hands=["4-1", "3-2", "6-3"], rest="boneyard")
    assert s.outcome == domino.Outcome("fixed_rounds", (0, 1, 2), None)


def test_target_tie_plays_another_round() -> None:
    r = rules("block", players=3, blocked_tie="split", target_score=10)
    s = position(r, layout=BLOCKING_LAYOUT, hands=["4-1", "3-2", "6-3"], scores=[8, 8, 0], rest="boneyard")
    assert last(s).points == (4, 4, 0) and s.scores == (12, 12, 0)
    assert s.outcome is None and s.round == 2


# ---------------------------------------------------------------------------------------------------
# Later rounds: who opens (docs/rules.md#next_round_starter)


def test_all_fives_previous_winner_leads_any_tile_without_extra_play() -> None:
    s = position(rules("all_fives"), layout="[6-1]", hands=["1-0", "3-2 4-3"], to_move=0, rest="boneyard")
    s = domino.apply(s, P("1-0", "right"))
    assert s.round == 2 and s.turn == 0 and s.lead is None and not s.opened_by_rule
    assert legal(s) == {Play(t) for t in s.hands[0]}
    lead = min(s.hands[0])  # any tile, not necessarily a double
    s = domino.apply(s, Play(lead))
    assert s.turn == 1 and not s.extra_play


def test_all_fives_after_a_blocked_round_the_starting_rule_applies_again() -> None:
    r = rules("all_fives", boneyard_reserve=NO_DRAW)
    s = position(r, layout=BLOCKING_LAYOUT, hands=["4-3", "5-2 3-1"], rest="boneyard")
    assert last(s).end == "blocked" and s.round == 2 and s.opened_by_rule
    best = max((t for h in s.hands for t in h), key=lambda t: (t.is_double, t.pips, t.high))
    assert domino.legal_moves(s) == (Play(best),)
    assert best in s.hands[s.turn]
    after = domino.apply(s, Play(best))
    can_add = any(t.has(best.high) or t.has(best.low) for t in after.hands[s.turn])
    assert after.extra_play == can_add and (after.turn == s.turn) == can_add


def test_draw_round_two_reapplies_the_starting_rule() -> None:
    s = position(rules("draw"), layout="[5-4]", hands=["4-1", "6-6 3-2"], rest="boneyard")
    s = domino.apply(s, P("4-1", "right"))
    best = max((t for h in s.hands for t in h), key=lambda t: (t.is_double, t.pips, t.high))
    assert s.round == 2 and domino.legal_moves(s) == (Play(best),) and best in s.hands[s.turn]


def test_opener_without_a_placement_passes_the_turn_at_once() -> None:
    # all_fives: A leads 6-6 and holds nothing with a 6, so the extra play ends with no move (docs/rules.md#opener_extra_play).
    r = rules("all_fives")
    s = domino.new_game(r, deal=deal(r, "6-6 5-0 4-1 3-2 2-0 1-0 0-0", "6-5 5-5 4-4 3-3 2-2 1-1 5-4"))
    s = domino.apply(s, Play(T("6-6")))
    assert s.turn == 1 and not s.extra_play and s.scores == (0, 0)
    assert legal(s) == plays("6-5 left", "6-5 right")

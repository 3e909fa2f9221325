"""Worked examples for the line games (W14–W17, W24–W26: All Fives counting, teams, the match's end), each with
its exact expected outcome; W1–W13 are in test_worked_examples.py."""

from __future__ import annotations

import pytest

import domino
from domino import Play
from domino.scoring import round5
from engine_helpers import BLOCKING_LAYOUT, NO_DRAW, PASS, P, T, count, deal, ends_of, last, layout_str, legal, plays, position, rules


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

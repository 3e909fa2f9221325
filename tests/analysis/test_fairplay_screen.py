"""The fair-play screen's pure part: the omniscient values, the moves best only with the hidden tiles in sight,
the paired test against the honest expert, and the peeking test bot against honest players."""

from __future__ import annotations

import random

import pytest

import domino
from domino.analysis.fairplay import Choice, Tally, exact_interval, gain, hidden_only, position_choice, screen, tally, upper_tail
from domino.analysis.omniscient import omniscient_values
from domino.analysis import move_values
from domino.testing import Peeker, position, screened_game

PASS, DRAW = domino.Pass(), domino.Draw()


def _position_where_the_hand_decides() -> domino.State:
    """2-player block: seat 0 holds 3-1 and 5-2 against the ends 3 and 5; seat 1 holds one tile, 2-6. Playing 5-2
    leaves 3 and 2 open (seat 1 plays 2-6 and is out); 3-1 leaves 1 and 5 (seat 1 passes, seat 0 goes out). From
    seat 0's information, five of the twenty hidden tiles show a 2 or a 3 and ten a 1 or a 5: 5-2 looks better."""
    rules = domino.Rules.preset("block", players=2)
    return position(rules, "[3-2][2-2][2-0][0-3][3-3][3-5]", hands=["3-1 5-2", "2-6"], rest="boneyard")


def test_the_omniscient_values_see_the_other_hand_and_the_peeker_plays_on_them() -> None:
    state = _position_where_the_hand_decides()
    three_one, five_two = domino.legal_moves(state)
    seen = dict(omniscient_values(state, random.Random(1), 4000))
    assert seen[three_one] > seen[five_two] + 5
    info = [(v.move, v.value) for v in move_values(domino.view(state, 0), random.Random(2), 4000)]
    assert dict(info)[five_two] > dict(info)[three_one] + 1
    assert hidden_only(info, list(seen.items())) == (three_one,)
    assert Peeker(4000).choose_seen(state, random.Random(3)) == three_one
    reading = position_choice(state, three_one, info, "g1:7", 4000)
    assert reading.seat_took and reading.hidden_only == (three_one,)
    assert reading.expert == five_two  # the honest expert plays what its information says
    assert position_choice(state, three_one, info, "g1:7", 4000) == reading  # seeded: the same reading again


def test_best_moves_within_the_tolerance_are_best_from_both_eyes() -> None:
    a, b, c = domino.Play(domino.Tile(1, 0), "left"), domino.Play(domino.Tile(2, 0), "left"), DRAW
    assert hidden_only([(a, 3.0), (b, 2.6), (c, 0.0)], [(a, 1.0), (b, 1.2), (c, 5.0)]) == (c,)
    assert hidden_only([(a, 3.0), (b, 2.6), (c, 0.0)], [(a, 1.0), (b, 1.4), (c, 0.0)]) == ()  # b is best for both
    assert hidden_only([(a, 3.0), (b, 2.0)], [(a, 1.0), (b, 1.4)]) == (b,)  # 0.4 apart: a too is best when seen


def test_binomial_tail_and_exact_interval() -> None:
    assert upper_tail(8, 10, 0.5) == pytest.approx(56 / 1024)
    assert upper_tail(0, 10, 0.3) == 1.0 and upper_tail(11, 10, 0.3) == 0.0
    lo, hi = exact_interval(20, 30, 0.01)
    assert upper_tail(20, 30, lo) == pytest.approx(0.01, abs=1e-6)
    assert 1 - upper_tail(21, 30, hi) == pytest.approx(0.01, abs=1e-6)
    assert exact_interval(0, 5, 0.01)[0] == 0.0 and exact_interval(5, 5, 0.01)[1] == 1.0


def _choices(seat_only: int, expert_only: int, both: int, neither: int, gain: float = 1.0) -> list[Choice]:
    """Positions with these outcomes; the seat's gains alternate gain + 1 and gain - 1."""
    out = (
        [Choice(0, PASS, PASS, (PASS,))] * both
        + [Choice(0, PASS, DRAW, (PASS,))] * seat_only
        + [Choice(0, DRAW, PASS, (PASS,))] * expert_only
        + [Choice(0, DRAW, DRAW, ())] * neither
    )
    return [Choice(c.side, c.played, c.expert, c.hidden_only, gain + (-1) ** i) for i, c in enumerate(out)]


def test_the_screen_is_a_paired_exact_test_and_its_interval_says_the_same() -> None:
    s = screen(_choices(seat_only=12, expert_only=2, both=3, neither=83))
    t = s.tally
    assert (t.positions, t.telling, t.seat_count, t.expert_count) == (100, 17, 15, 5)
    assert s.rate == pytest.approx(0.15) and s.expert_rate == pytest.approx(0.05)
    assert s.p_value == pytest.approx(upper_tail(12, 14, 0.5))
    assert s.p_value < 0.01 and s.interval[0] > 0 and s.interval[0] < s.difference < s.interval[1]
    assert s.gain == pytest.approx(1.0) and s.gain_interval[0] > 0 and s.gain_p_value < 0.01 and s.flag
    calm = screen(_choices(seat_only=7, expert_only=5, both=3, neither=85))
    assert not calm.flag and calm.interval[0] < 0 < calm.interval[1]
    for seat_only in range(0, 25):
        for expert_only in range(0, 25, 3):
            s = screen(_choices(seat_only, expert_only, 1, 50))
            assert (s.p_value < 0.01) == (s.interval[0] > 0)
            assert s.flag == (s.p_value < 0.01 and s.gain_p_value < 0.01)
    # Many hidden-only moves, but worth no more seen than the seat's information said: an honest player who
    # plays unlike the expert (greedy does) is not flagged.
    different = screen(_choices(seat_only=30, expert_only=2, both=3, neither=65, gain=0.0))
    assert different.p_value < 0.01 and different.gain_p_value > 0.01 and not different.flag
    empty = screen([])
    assert not empty.flag and empty.positions == 0 and empty.interval == (0.0, 0.0)
    assert empty.to_dict()["gain_interval"] == [None, None], "no interval: JSON has no infinity"
    assert screen(_choices(seat_only=1, expert_only=0, both=0, neither=0)).to_dict()["gain_interval"] == [None, None]
    assert set(s.to_dict()) == {
        "positions", "telling_positions", "rate", "expert_rate", "difference", "interval", "p_value", "gain",
        "gain_interval", "gain_p_value", "confidence", "flag",
    }  # fmt: skip


def test_tallies_add_up_and_a_sum_screens_as_the_positions_do() -> None:
    a, b = _choices(5, 1, 2, 20), _choices(3, 2, 0, 30, gain=0.5)
    assert tally(a) + tally(b) == tally(a + b)
    assert Tally.from_dict(tally(a).to_dict()) == tally(a)
    assert screen(tally(a) + tally(b)) == screen(a + b)


def test_the_gain_is_the_played_moves_edge_seen_minus_its_edge_from_the_information() -> None:
    x, y = domino.Play(domino.Tile(1, 0), "left"), DRAW
    assert gain(x, [(x, 1.0), (y, 3.0)], [(x, 6.0), (y, 2.0)]) == pytest.approx((6 - 4) - (1 - 2))


@pytest.mark.slow
def test_a_peeker_is_flagged_on_a_fixed_sample_and_honest_players_are_not() -> None:
    """Two 2-player block matches each, at a small budget (bench/fairplay.py measures the rates)."""
    rules = domino.Rules.preset("block", players=2)
    flags = {}
    for kind in ("peeker", "expert", "greedy"):
        choices: list[Choice] = []
        for game in range(2):
            choices += screened_game(rules, f"screen-{kind}-{game}", kind, "greedy", 4000)[0]
        flags[kind] = screen(choices).flag
    assert flags == {"peeker": True, "expert": False, "greedy": False}

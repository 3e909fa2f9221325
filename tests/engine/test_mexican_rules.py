"""Mexican Train rules the worked examples (test_mexican_examples.py) do not reach (docs/rules.md#mexican_train)."""

from __future__ import annotations

import pytest

import domino
from domino import Deal, Play
from domino.errors import AmbiguousMoveError, InvalidDealError
from engine_helpers import DRAW, PASS, P, T, legal, position
from mexican_helpers import build_deal, rules, step, w19_deal, w21


# -- more of §3.4 --------------------------------------------------------------------------------------


def first_double_deal(r: domino.Rules) -> Deal:
    """P0 holds the engine and 12-9 and 9-9 but no other 9; P1 holds 9-4 and 12-3."""
    return build_deal(
        r,
        {0: "12-12 12-9 9-9", 1: "9-4 12-3"},
        {0: lambda t: t.has(9) or t.has(12), 1: lambda t: t.has(9) or t.has(12), 2: lambda t: t.has(9)},
    )


@pytest.mark.parametrize("mode", ["deferred", "immediate"])
def test_first_turn_double(mode: str) -> None:
    r = rules(3, first_turn_double=mode)
    s = domino.new_game(r, deal=first_double_deal(r))
    assert s.turn == 0
    s = domino.apply(s, P("12-9", "train:0"))
    s, types = step(s, P("9-9", "train:0"))
    assert types == ["tile_played"] and s.turn == 1
    if mode == "deferred":
        assert legal(s) == {P("12-3", "train:1")}
        assert domino.view(s, None).board["active_double"] is None
    else:
        assert legal(s) == {P("9-4", "train:0")}  # the cover counts as P1's first turn
        s = domino.apply(s, P("9-4", "train:0"))
        assert domino.view(s, None).board["first_turn_pending"] == [2]


def test_later_double_must_follow_then_draw_then_pass() -> None:
    s = position(rules(4), hands=["4-4 11-10", "1-0", "2-0", "3-0"], boneyard="10-9",
                 trains=["[12-4]", "", "", ""], rest="boneyard")
    s, _ = step(s, P("4-4", "train:0"))
    assert s.turn == 0 and legal(s) == {DRAW}
    s, _ = step(s, DRAW)
    assert legal(s) == {PASS}
    s, types = step(s, PASS)
    assert types == ["passed", "marker_placed"] and s.turn == 1
    # P1 must cover 4-4 on train:0; P1 holds no 4, so P1 draws
    assert legal(s) == {DRAW}


def test_going_out_on_a_double_ends_the_round() -> None:
    s = position(rules(4), hands=["4-4", "1-0", "2-0", "3-0"], trains=["[12-4]", "", "", ""], rest="boneyard")
    s = domino.apply(s, P("4-4", "train:0"))
    assert s.rounds[-1].end == "domino" and s.rounds[-1].winner == 0 and s.round == 2


def test_mexican_train_off() -> None:
    r = rules(4, mexican_train=False)
    s = position(r, hands=["12-3 4-1", "1-0", "2-0", "3-0"], trains=["[12-4]", "", "", ""], rest="boneyard")
    assert legal(s) == {P("4-1", "train:0")}
    assert all(t["owner"] is not None for t in domino.view(s, 0).board["trains"])
    with pytest.raises(InvalidDealError):
        position(r, hands=["4-1", "1-0", "2-0", "3-0"], mexican="[12-3]", rest="boneyard")


def test_ambiguous_and_named_trains() -> None:
    s = position(rules(4), hands=["12-3 4-1", "1-0", "2-0", "3-0"], trains=["", "", "", ""], rest="boneyard")
    assert legal(s) == {P("12-3", "train:0"), P("12-3", "mexican")}
    with pytest.raises(AmbiguousMoveError):
        domino.step(s, Play(T("12-3")))
    s2 = domino.apply(s, P("12-3", "mexican"))
    assert domino.view(s2, None).board["trains"][4]["tiles"] == ["12-3"]


def test_serialization_round_trip_of_positions() -> None:
    s = w21("6-1 12-10 8-3")
    s = domino.apply(s, P("1-1", "train:2"))
    assert domino.from_dict(domino.to_dict(s)) == s
    r = rules(4, first_turn_double="immediate")
    s = domino.new_game(r, deal=w19_deal(r))
    s = domino.apply(s, P("12-5", "train:2"))
    assert domino.from_dict(domino.to_dict(s)) == s


def test_opening_events_replay() -> None:
    r = rules(3)
    d = build_deal(r, {}, {s: (lambda t: t == T("12-12")) for s in range(3)}, "5-2 6-1 12-12")
    s = domino.new_game(r, deal=d)
    assert s.turn == 2
    events = domino.opening_events(s)
    assert [(e.type, e.seat) for e in events] == [
        ("round_started", None), ("tile_drawn", 0), ("tile_drawn", 1), ("tile_drawn", 2), ("engine_double_placed", 2)
    ]


def _turns_offering_play_and_draw(r: domino.Rules, seed: str) -> int:
    """How many turns of one round, played by always taking the first legal move, list a play and a draw."""
    state = domino.new_game(r, seed=seed)
    offered = 0
    while state.outcome is None and state.round == 1:
        moves = domino.legal_moves(state)
        offered += any(isinstance(m, Play) for m in moves) and DRAW in moves
        state = domino.apply(state, moves[0])
    return offered


def test_may_draw_when_playable_lets_a_seat_draw_instead_of_playing() -> None:
    assert _turns_offering_play_and_draw(rules(may_draw_when_playable=True), "draw-anyway") > 0
    assert _turns_offering_play_and_draw(rules(), "draw-anyway") == 0


def test_mexican_train_has_no_target_score() -> None:
    with pytest.raises(domino.InvalidRulesError) as caught:
        rules(match_end="target_score")
    assert caught.value.option == "match_end"

"""Worked examples W18–W23 (Mexican Train) with their exact outcomes (docs/rules.md#mexican_train); the rules
they do not reach are in test_mexican_rules.py."""

from __future__ import annotations

import pytest

import domino
from domino import Tile
from domino.errors import IllegalMoveError, InvalidDealError
from domino.variants import mexican_train as mt
from domino.variants import train_rounds
from engine_helpers import DRAW, PASS, P, T, legal, position
from mexican_helpers import build_deal, rules, step, train, w19_deal, w21


# -- W18 ---------------------------------------------------------------------------------------------


def test_w18_engines_by_round() -> None:
    r = rules()
    assert [train_rounds.engine_value(r, n) for n in (1, 5, 13)] == [12, 8, 0]
    assert r.rounds == 13
    for n, e in ((1, "12-12"), (5, "8-8"), (13, "0-0")):
        state, events = mt.start_round(r, n, seed="w18")
        assert domino.view(state, None).board["engine_double"] == e
        assert events[0].type == "round_started" and events[0].data["engine_double"] == e
        assert events[-1].type == "engine_double_placed" and events[-1].data["tile"] == e
    assert rules(set_max_pips=6, hand_size=5).rounds == 7


def test_w18_engine_search() -> None:
    r = rules(3)
    d = build_deal(r, {}, {s: (lambda t: t == T("11-11") or t == T("7-3")) for s in range(3)}, "7-3 11-11")
    assert [len(h) for h in d.hands] == [15, 15, 15] and len(d.boneyard) == 46
    state, events = mt.start_round(r, 2, d, seed="w18")
    assert state.turn == 2
    assert [len(h) for h in state.hands] == [15, 16, 15]
    assert T("7-3") in state.hands[1]
    assert len(state.boneyard) == 44
    assert [(e.type, e.seat) for e in events] == [
        ("round_started", None),
        ("tile_drawn", 1),
        ("tile_drawn", 2),
        ("engine_double_placed", 2),
    ]
    assert events[1].private == {"tile": "7-3"} and events[1].private_to == 1
    assert "tile" not in events[1].to_dict(for_seat=2) and events[1].to_dict(for_seat=1)["tile"] == "7-3"
    assert domino.view(state, None).board["first_turn_pending"] == [2, 0, 1]
    assert [(e.seat, e.type) for e in state.log] == [(1, "draw"), (2, "draw")]


def test_engine_in_hand_and_set_aside() -> None:
    r = rules(4)
    state = domino.new_game(r, seed="s")
    holder = state.turn
    assert Tile(12, 12) in state.deal.hands[holder] and Tile(12, 12) not in state.hands[holder]
    assert len(state.hands[holder]) == 14 and len(state.boneyard) == 31
    aside = rules(4, engine_setup="set_aside")
    for n in (1, 2, 6):
        s, events = mt.start_round(aside, n, seed="s")
        assert s.turn == (n - 1) % 4
        assert [len(h) for h in s.hands] == [15] * 4 and len(s.boneyard) == 30
        assert [e.type for e in events] == ["round_started", "engine_double_placed"]
    with pytest.raises(InvalidDealError):
        domino.new_game(aside, deal=domino.deal_round(r, "s", 1))  # holds the engine: not a set-aside deal


# -- W19, W20 ----------------------------------------------------------------------------------------


def test_w19_first_turns_and_w20_deferred_cover() -> None:
    r = rules(4)
    s = domino.new_game(r, deal=w19_deal(r))
    assert s.turn == 2
    assert domino.view(s, None).board["first_turn_pending"] == [2, 3, 0, 1]
    assert legal(s) == {P("12-5", "train:2"), P("12-3", "train:2")}  # no mexican, no pass
    with pytest.raises(IllegalMoveError):
        domino.step(s, P("12-3", "mexican"))
    s, _ = step(s, P("12-5", "train:2"))
    assert legal(s) == {P("9-5", "train:2"), PASS}  # may stop after 12-5
    s, _ = step(s, P("9-5", "train:2"))
    assert legal(s) == {P("9-9", "train:2"), P("9-1", "train:2"), PASS}  # may stop after 9-5
    s, _ = step(s, P("9-9", "train:2"))
    assert legal(s) == {P("9-1", "train:2")}  # MUST cover 9-9
    with pytest.raises(IllegalMoveError):
        domino.step(s, PASS)
    s, types = step(s, P("9-1", "train:2"))
    assert types == ["tile_played"]  # nothing more fits: the run ends by itself
    assert s.turn == 3 and train(s, 2)["end"] == 1 and train(s, 2)["tiles"] == ["12-5", "5-9", "9-9", "9-1"]
    assert train(s, 2)["marker"] is False
    # P3 cannot start: no draw, Pass puts the marker up
    assert legal(s) == {PASS}
    s, types = step(s, PASS)
    assert types == ["passed", "marker_placed"]
    assert train(s, 3) == {"owner": 3, "tiles": [], "end": 12, "marker": True}
    # P0: [12-0] then Pass, with no duty to play 4-0
    s, _ = step(s, P("12-0", "train:0"))
    assert P("4-0", "train:0") in legal(s) and PASS in legal(s)
    s, types = step(s, PASS)
    assert types == ["passed"] and train(s, 0)["marker"] is False
    # P1: [12-7][7-7], no other 7: the turn ends by itself, no draw, no marker; the obligation is deferred
    boneyard = len(s.boneyard)
    s, _ = step(s, P("12-7", "train:1"))
    s, types = step(s, P("7-7", "train:1"))
    assert types == ["tile_played"] and len(s.boneyard) == boneyard
    assert train(s, 1)["marker"] is False
    b = domino.view(s, None).board
    assert b["pending_doubles"] == ["7-7"] and b["first_turn_pending"] == []
    # W20: the opening cycle is complete; P2 MUST cover 7-7 on P1's private train
    assert s.turn == 2 and b["active_double"] == {"train": "train:1", "tile": "7-7"}
    assert legal(s) == {P("7-4", "train:1")}
    s, types = step(s, P("7-4", "train:1"))
    assert types == ["tile_played"] and s.turn == 3
    assert train(s, 1)["end"] == 4 and train(s, 1)["marker"] is False
    assert domino.view(s, None).board["pending_doubles"] == []




def test_w20_no_cover_draws_then_passes_on() -> None:
    r = rules(4)
    trains = ["[12-0]", "[12-7][7-7]", "[12-3][3-1]", ""]
    base = dict(trains=trains, markers=[3], to_move=2, rest="boneyard")
    # the drawn tile covers: it MUST be played on 7-7
    s = position(r, hands=["1-0", "2-2", "5-1 10-10", "8-3"], boneyard="7-5", **base)
    assert legal(s) == {DRAW}
    s, _ = step(s, DRAW)
    assert legal(s) == {P("7-5", "train:1")}
    # anything else: P2 passes, marks train:2, and P3 inherits the obligation
    s = position(r, hands=["1-0", "2-2", "5-1 10-10", "8-3 7-6"], boneyard="11-4", **base)
    s, _ = step(s, DRAW)
    assert legal(s) == {PASS}
    s, types = step(s, PASS)
    assert types == ["passed", "marker_placed"] and train(s, 2)["marker"] is True
    assert s.turn == 3 and legal(s) == {P("7-6", "train:1")}


# -- W21 ---------------------------------------------------------------------------------------------


def test_w21_double_cover_obligations() -> None:
    s = w21("6-1 12-10 8-3")
    assert domino.view(s, None).board["phase"] == "play"
    s, types = step(s, P("1-1", "train:2"))
    assert types == ["tile_played"] and s.turn == 2  # MUST play again
    assert legal(s) == {P("5-1", "train:2"), P("12-8", "train:3"), P("12-8", "mexican")}
    s, _ = step(s, P("12-8", "mexican"))
    assert train(s, 4)["end"] == 8 and train(s, 4)["owner"] is None
    assert domino.view(s, None).board["pending_doubles"] == ["1-1"]
    assert s.turn == 3
    assert legal(s) == {P("6-1", "train:2")}  # not 12-10 on train:3, not 8-3 on mexican
    for bad in (P("12-10", "train:3"), P("8-3", "mexican")):
        with pytest.raises(IllegalMoveError):
            domino.step(s, bad)
    s, types = step(s, P("6-1", "train:2"))
    assert types == ["tile_played"]
    assert domino.view(s, None).board["pending_doubles"] == [] and train(s, 3)["marker"] is True


def test_w21_variant_obligation_passes_on() -> None:
    for top, inherits in (("11-4", True), ("9-1", False)):
        s = w21("12-10 8-3", top)
        s = domino.apply(s, P("1-1", "train:2"))
        s = domino.apply(s, P("12-8", "mexican"))
        assert legal(s) == {DRAW}
        s, _ = step(s, DRAW)
        if not inherits:
            assert legal(s) == {P("9-1", "train:2")}
            continue
        assert legal(s) == {PASS}
        s, types = step(s, PASS)
        assert types == ["passed"]  # train:3 is already marked
        assert s.turn == 0 and legal(s) == {P("1-0", "train:2")}  # not 9-0 on train:0


# -- W22 ---------------------------------------------------------------------------------------------


def w22(p0: str, top: str, rest: str = "boneyard") -> domino.State:
    return position(
        rules(4),
        hands=[p0, "6-0 9-3", "2-1", "3-3"],
        boneyard=top,
        trains=["[12-0]", "[12-7][7-4]", "[12-2][2-6]", ""],
        mexican="[12-8]",
        markers=[3],
        to_move=0,
        rest=rest,
    )


def test_w22_draw_rule_and_markers() -> None:
    s = w22("4-3 11-10", "8-2")
    assert legal(s) == {DRAW}  # 4-3 fits train:1, but it is private
    s, _ = step(s, DRAW)
    assert legal(s) == {P("8-2", "mexican")}
    s, _ = step(s, P("8-2", "mexican"))
    assert train(s, 4)["end"] == 2 and s.turn == 1

    s = w22("4-3 11-10", "5-5")
    s, _ = step(s, DRAW)
    assert legal(s) == {PASS}
    s, types = step(s, PASS)
    assert types == ["passed", "marker_placed"] and train(s, 0)["marker"] is True
    assert P("6-0", "train:0") in legal(s)  # P1 may now play on train:0

    s = w22("4-3 11-10", "", rest="hand:1")
    assert len(s.boneyard) == 0 and legal(s) == {PASS}
    s, types = step(s, PASS)
    assert types == ["passed", "marker_placed"]

    s = w22("4-3 11-10 12-6", "8-2")
    assert legal(s) == {P("12-6", "train:3")}  # MUST play, MUST NOT draw


def test_marker_removed_when_owner_plays_own_train() -> None:
    s = position(
        rules(4), hands=["4-3 11-10 5-0", "6-0 9-3", "2-1", "3-3"], boneyard="8-2",
        trains=["[12-0]", "[12-7][7-4]", "[12-2][2-6]", ""], mexican="[12-8]", markers=[0, 3], rest="boneyard",
    )
    assert P("5-0", "train:0") in legal(s)
    s, types = step(s, P("5-0", "train:0"))
    assert types == ["tile_played", "marker_removed"] and train(s, 0)["marker"] is False


# -- W23 ---------------------------------------------------------------------------------------------


def w23(r: domino.Rules, scores: tuple[int, ...], round_no: int = 1, p1: str = "12-11 0-0") -> domino.State:
    e = train_rounds.engine_value(r, round_no)
    return position(
        r,
        hands=["4-1", p1, "3-2", "6-6 5-0"],
        trains=[f"[{e}-4]", "", "", ""],
        to_move=0,
        scores=scores,
        round=round_no,
        rest="boneyard",
    )


def test_w23_penalty_scoring() -> None:
    s = w23(rules(4), (10, 20, 30, 40))
    s, types = step(s, P("4-1", "train:0"))
    result = s.rounds[-1]
    assert (result.end, result.winner, result.points) == ("domino", 0, (0, 23, 5, 17))
    assert result.pips_left == (0, 23, 5, 17)
    assert s.scores == (10, 43, 35, 57)
    assert types[:3] == ["tile_played", "round_ended", "round_started"] and types[-1] == "engine_double_placed"
    assert s.round == 2 and s.board.engine == 11 and s.outcome is None


def test_w23_double_blank_value() -> None:
    s = w23(rules(4, double_blank_value=50), (0, 0, 0, 0))
    s = domino.apply(s, P("4-1", "train:0"))
    assert s.rounds[-1].points == (0, 73, 5, 17)


def test_w23_lowest_total_wins_after_last_round_and_ties_share() -> None:
    r = rules(4)
    s = w23(r, (90, 70, 90, 80), 13, p1="12-11 1-1")  # round 13: engine 0-0
    s, types = step(s, P("4-1", "train:0"))
    assert s.scores == (90, 95, 95, 97)
    assert s.outcome == domino.Outcome("fixed_rounds", (0,))
    assert types[-1] == "game_ended" and domino.legal_moves(s) == ()
    s = domino.apply(w23(r, (95, 70, 90, 80), 13, p1="12-11 1-1"), P("4-1", "train:0"))
    assert s.scores == (95, 95, 95, 97) and s.outcome is not None and s.outcome.winners == (0, 1, 2)


def test_w23_blocked_round_scores_every_hand() -> None:
    # double-six, 2 players, no Mexican train: after 5-3 every 5 is on the table and the boneyard is empty
    r = rules(2, set_max_pips=6, hand_size=7, mexican_train=False)
    s = position(
        r,
        hands=["5-3 1-1", ""],
        trains=["[6-5][5-0][0-1][1-5]", "[6-4][4-5][5-5][5-2][2-3]"],
        markers=[1],
        rest="hand:1",
    )
    assert s.rounds == () and legal(s) == {P("5-3", "train:0"), P("5-3", "train:1")}
    p1 = sum(t.pips for t in s.hands[1])
    s, types = step(s, P("5-3", "train:1"))
    result = s.rounds[-1]
    assert result.end == "blocked" and result.points == (2, p1) and result.winner == 0
    assert s.scores == (2, p1) and s.round == 2
    assert "round_ended" in types

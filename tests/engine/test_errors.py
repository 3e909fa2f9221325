"""The engine's error types, rules validation (docs/rules.md#options) and the tile text round trip."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import domino
from domino import (
    AmbiguousMoveError,
    DominoError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidRulesError,
    NotYourTurnError,
    Play,
    Tile,
    full_set,
)
from engine_helpers import DRAW, PASS, P, T, plays, position, rules


def opened_draw_game() -> domino.State:
    """draw, 2 players: B opened 6-6; A (seat 0) holds 6-1 and 6-3 among others (worked example W2)."""
    r = rules("draw")
    a, b = "5-5 6-1 3-2 4-0 2-2 1-0 6-3", "6-6 5-4 3-1 0-0 4-2 6-5 2-1"
    hands = tuple(tuple(T(x) for x in h.split()) for h in (a, b))
    used = {t for h in hands for t in h}
    deal = domino.Deal(hands, tuple(t for t in full_set(6) if t not in used))
    return domino.apply(domino.new_game(r, deal=deal), Play(T("6-6")))


# -- InvalidMoveError ------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "6", "6-", "-4", "a-b", "6-4-3", "6+4", "100-1", "6 4", None, 64])
def test_invalid_tile_text(text: Any) -> None:
    with pytest.raises(InvalidMoveError):
        Tile.parse(text)


@pytest.mark.parametrize("data", [None, [], "play", {}, {"type": "jump"}, {"type": "play"}, {"type": "play", "tile": "x"},
                                  {"type": "play", "tile": "6-4", "end": "middle"}, {"type": "play", "tile": "6-4", "end": 3}])
def test_invalid_move_json(data: Any) -> None:
    with pytest.raises(InvalidMoveError):
        domino.parse_move(data)


def test_parse_move_accepts_the_json_forms() -> None:
    assert domino.parse_move({"type": "play", "tile": "4-6", "end": "left"}) == P("6-4", "left")
    assert domino.parse_move({"type": "play", "tile": "6-6"}) == Play(T("6-6"))
    assert domino.parse_move({"type": "draw"}) == DRAW
    assert domino.parse_move({"type": "pass"}) == PASS
    for m in (P("6-4", "left"), Play(T("6-6")), DRAW, PASS):
        assert domino.parse_move(m.to_dict()) == m


@pytest.mark.parametrize("tile", [Tile(7, 1), Tile(12, 12), Tile(-1, 3), Tile(2, -2)])
def test_tile_not_in_the_set(tile: Tile) -> None:
    s = opened_draw_game()
    with pytest.raises(InvalidMoveError):
        domino.apply(s, Play(tile, "left"))
    with pytest.raises(InvalidMoveError):
        domino.apply(s, Play(tile))


@pytest.mark.parametrize("end", ["sideways", "", 3, "train:x"])
def test_malformed_end(end: Any) -> None:
    with pytest.raises(InvalidMoveError):
        domino.apply(opened_draw_game(), Play(T("6-1"), end))


def test_not_a_move() -> None:
    with pytest.raises(InvalidMoveError):
        domino.apply(opened_draw_game(), "draw")  # type: ignore[arg-type]


# -- IllegalMoveError ------------------------------------------------------------------------------


def test_illegal_tile_not_in_hand() -> None:
    s = opened_draw_game()
    with pytest.raises(IllegalMoveError) as info:
        domino.apply(s, P("6-4", "left"))  # 6-4 is in the boneyard, not A's hand
    assert set(info.value.legal_moves) == set(domino.legal_moves(s))
    assert set(info.value.legal_moves) == plays("6-1 left", "6-1 right", "6-3 left", "6-3 right") | {DRAW}


def test_illegal_tile_does_not_fit() -> None:
    s = opened_draw_game()
    with pytest.raises(IllegalMoveError) as info:
        domino.apply(s, P("5-5", "left"))
    assert info.value.legal_moves == domino.legal_moves(s)
    with pytest.raises(IllegalMoveError):
        domino.apply(s, P("6-1", "up"))  # no spinner arms in the draw game


def test_illegal_pass_with_playable_tile() -> None:
    s = opened_draw_game()
    with pytest.raises(IllegalMoveError) as info:
        domino.apply(s, PASS)
    assert info.value.legal_moves == domino.legal_moves(s)


def test_illegal_draw_when_not_allowed() -> None:
    r = rules("draw_family")
    s = position(r, layout="[6-6]", hands=["6-1 2-0", "5-5"], rest="boneyard")
    with pytest.raises(IllegalMoveError) as info:
        domino.apply(s, DRAW)
    assert set(info.value.legal_moves) == plays("6-1 left", "6-1 right")


def test_illegal_opening_with_an_end_or_wrong_tile() -> None:
    r = rules("draw")
    s = domino.new_game(r, seed=1)
    lead = domino.legal_moves(s)
    assert len(lead) == 1
    tile = lead[0].tile  # type: ignore[union-attr]
    with pytest.raises(IllegalMoveError):
        domino.apply(s, Play(tile, "left"))
    other = next(t for t in s.hands[s.turn] if t != tile)
    with pytest.raises(IllegalMoveError):
        domino.apply(s, Play(other))
    with pytest.raises(IllegalMoveError):
        domino.apply(s, DRAW)


# -- AmbiguousMoveError ----------------------------------------------------------------------------


def test_ambiguous_end_omitted() -> None:
    s = opened_draw_game()
    with pytest.raises(AmbiguousMoveError) as info:
        domino.apply(s, Play(T("6-1")))
    assert set(info.value.options) == plays("6-1 left", "6-1 right")


def test_ambiguous_spinner_arms() -> None:
    s = position(rules("all_fives"), layout="[6-4][4-4][4-1]", hands=["4-2 3-0", "3-3"], rest="boneyard")
    with pytest.raises(AmbiguousMoveError) as info:
        domino.apply(s, Play(T("4-2")))
    assert set(info.value.options) == plays("4-2 up", "4-2 down")


def test_end_omitted_but_unique_is_resolved() -> None:
    s = position(rules("block"), layout="[0-3]", hands=["5-3 6-4", "1-1"], rest="boneyard")
    after = domino.apply(s, Play(T("5-3")))
    assert domino.to_dict(after) == domino.to_dict(domino.apply(s, P("5-3", "right")))


# -- NotYourTurnError, GameOverError ---------------------------------------------------------------


def test_not_your_turn() -> None:
    s = opened_draw_game()
    assert s.turn == 0
    with pytest.raises(NotYourTurnError):
        domino.step(s, P("6-1", "left"), seat=1)
    assert domino.apply(s, P("6-1", "left"), seat=0).turn == 1


def test_game_over() -> None:
    s = position(rules("all_fives"), layout="[4-3]", hands=["6-3", "6-6 5-5"], scores=[145, 0], rest="boneyard")
    s = domino.apply(s, P("6-3", "right"))
    assert s.outcome is not None and domino.legal_moves(s) == ()
    for move in (DRAW, PASS, P("6-6", "left")):
        with pytest.raises(GameOverError):
            domino.apply(s, move)
    with pytest.raises(GameOverError):
        domino.resign(s, 1)


def test_resign() -> None:
    s = opened_draw_game()
    done, events = domino.resign(s, 0)
    assert done.outcome == domino.Outcome("resigned", (1,), None)
    r = rules("block", players=4, teams="partners_opposite")
    t = domino.new_game(r, seed=3)
    done = domino.resign(t, 1)[0]
    assert done.outcome == domino.Outcome("resigned", (0, 2), 0)


def test_errors_share_one_base() -> None:
    for cls in (AmbiguousMoveError, GameOverError, IllegalMoveError, InvalidMoveError, InvalidRulesError, NotYourTurnError):
        assert issubclass(cls, DominoError)


# -- InvalidRulesError -----------------------------------------------------------------------------

FORBIDDEN = [
    # Options refused in combination (docs/rules.md#options)
    ("teams needs 4 players", "draw", 2, {"teams": "partners_opposite"}, "teams"),
    ("teams needs 4 players (3)", "block", 3, {"teams": "partners_opposite"}, "teams"),
    ("teams only in line games", "mexican_train", 4, {"teams": "partners_opposite"}, "teams"),
    ("difference_mode needs pagat_difference", "draw_family", 2, {"difference_mode": "pairwise"}, "difference_mode"),
    ("difference_mode with opponents_total", "draw", 2, {"scoring": "opponents_total", "difference_mode": "pairwise"}, "difference_mode"),
    ("spinner only in line games", "mexican_train", 4, {"spinner": "first_double"}, "spinner"),
    ("immediate needs all_fives scoring", "draw", 2, {"target_check": "immediate"}, "target_check"),
    ("immediate needs all_fives scoring (block)", "block", 2, {"target_check": "immediate"}, "target_check"),
    ("split not with teams", "block", 4, {"teams": "partners_opposite", "blocked_tie": "split"}, "blocked_tie"),
    ("hands exceed the set", "draw", 4, {"hand_size": 8}, "hand_size"),
    ("hands exceed a small set", "block", 2, {"set_max_pips": 3}, "hand_size"),
    ("hands exceed the set (map)", "draw_family", 3, {"hand_size": {3: 10}}, "hand_size"),
    ("set_aside leaves one tile fewer", "mexican_train", 2, {"engine_setup": "set_aside", "hand_size": 46}, "hand_size"),
    ("mexican needs hand_size off double-12", "mexican_train", 4, {"set_max_pips": 9}, "hand_size"),
    # options that do not apply to the preset ("—" cells)
    ("block has no reserve", "block", 2, {"boneyard_reserve": 1}, "boneyard_reserve"),
    ("block has no may_draw", "block", 2, {"may_draw_when_playable": True}, "may_draw_when_playable"),
    ("block has no drawn_tile_play", "block", 2, {"drawn_tile_play": "may"}, "drawn_tile_play"),
    ("all_fives has no difference_mode", "all_fives", 2, {"difference_mode": "pairwise"}, "difference_mode"),
    ("draw has no fives bonus", "draw", 2, {"fives_bonus_scope": "per_opponent"}, "fives_bonus_scope"),
    ("block has no fives award", "block", 2, {"fives_blocked_award": "none"}, "fives_blocked_award"),
    ("draw has no engine_setup", "draw", 2, {"engine_setup": "set_aside"}, "engine_setup"),
    ("draw has no first_turn_double", "draw", 2, {"first_turn_double": "immediate"}, "first_turn_double"),
    ("draw has no double_blank_value", "draw", 2, {"double_blank_value": 50}, "double_blank_value"),
    ("draw has no mexican_train", "draw", 2, {"mexican_train": False}, "mexican_train"),
    ("mexican has no no_double_fallback", "mexican_train", 4, {"no_double_fallback": "reshuffle"}, "no_double_fallback"),
    ("mexican has no opener_extra_play", "mexican_train", 4, {"opener_extra_play": True}, "opener_extra_play"),
    ("mexican has no next_round_starter", "mexican_train", 4, {"next_round_starter": "previous_winner"}, "next_round_starter"),
    ("mexican has no blocked_tie", "mexican_train", 4, {"blocked_tie": "split"}, "blocked_tie"),
    ("mexican has no target_score", "mexican_train", 4, {"target_score": 100}, "target_score"),
    ("mexican has no target_check", "mexican_train", 4, {"target_check": "immediate"}, "target_check"),
    ("mexican has no team_scoring", "mexican_train", 4, {"team_scoring": "all_hands"}, "team_scoring"),
    ("mexican has no difference_mode", "mexican_train", 4, {"difference_mode": "pairwise"}, "difference_mode"),
    ("mexican has no fives bonus", "mexican_train", 4, {"fives_bonus_scope": "total"}, "fives_bonus_scope"),
    # other engine checks
    ("team_scoring without teams", "draw", 2, {"team_scoring": "opponents_only"}, "team_scoring"),
    ("engine_double is Mexican Train's", "draw", 2, {"starting_rule": "engine_double"}, "starting_rule"),
    ("mexican_penalty is Mexican Train's", "block", 2, {"scoring": "mexican_penalty"}, "scoring"),
    ("no_double_fallback needs highest_double", "draw", 2, {"starting_rule": "lot", "no_double_fallback": "reshuffle"}, "no_double_fallback"),
    ("fixed_rounds needs rounds", "draw", 2, {"match_end": "fixed_rounds"}, "rounds"),
    ("rounds needs fixed_rounds", "draw", 2, {"rounds": 3}, "rounds"),
    ("unknown value", "draw", 2, {"draw_policy": "sometimes"}, "draw_policy"),
    ("bool is not an int", "draw", 2, {"set_max_pips": True}, "set_max_pips"),
    ("set too big", "draw", 2, {"set_max_pips": 19}, "set_max_pips"),
    ("set too small", "draw", 2, {"set_max_pips": 0}, "set_max_pips"),
    ("negative reserve", "draw", 2, {"boneyard_reserve": -1}, "boneyard_reserve"),
    ("hand_size zero", "draw", 2, {"hand_size": 0}, "hand_size"),
    ("hand_size map without this count", "draw", 3, {"hand_size": {2: 7}}, "hand_size"),
    ("unknown option", "draw", 2, {"colour": "red"}, "colour"),
    ("players out of range", "draw", 5, {}, "players"),
    ("players out of range (1)", "block", 1, {}, "players"),
    ("unknown variant", "dominoes", 2, {}, "variant"),
]


@pytest.mark.parametrize("why, preset, players, options, option", FORBIDDEN, ids=[f[0] for f in FORBIDDEN])
def test_invalid_rules(why: str, preset: str, players: int, options: dict[str, Any], option: str) -> None:
    with pytest.raises(InvalidRulesError) as info:
        domino.Rules.preset(preset, players=players, **options)
    assert info.value.option == option
    assert info.value.reason


ALLOWED = [
    ("draw", 4, {"teams": "partners_opposite"}),
    ("block", 4, {"teams": "partners_opposite", "hand_size": 7, "starting_rule": "lot"}),
    ("all_fives", 4, {"teams": "partners_opposite", "team_scoring": "opponents_only"}),
    ("draw", 3, {"blocked_tie": "split", "difference_mode": "pairwise"}),
    ("draw", 2, {"boneyard_reserve": 40}),  # a boneyard smaller than the reserve is allowed
    ("draw", 2, {"spinner": "first_double"}),
    ("all_fives", 2, {"spinner": "none", "fives_bonus_scope": "per_opponent", "fives_blocked_award": "none"}),
    ("all_fives", 2, {"target_check": "end_of_round", "starting_rule": "lot"}),
    ("all_fives", 2, {"draw_policy": "draw_until_playable", "boneyard_reserve": 2}),
    ("draw_family", 2, {"drawn_tile_play": "may", "set_max_pips": 9, "hand_size": 10}),
    ("draw_family", 2, {"match_end": "fixed_rounds", "rounds": 5}),
    ("draw", 2, {"set_max_pips": 1, "hand_size": 1}),
    ("draw", 2, {"set_max_pips": 18, "hand_size": 20}),
    ("block", 2, {"draw_policy": "draw_one"}),  # draw_policy applies to block (docs/rules.md#draw_policy)
    ("block", 3, {"draw_policy": "draw_until_playable"}),
    ("draw", 2, {"draw_policy": "draw_one"}),
    ("mexican_train", 4, {"set_max_pips": 9, "hand_size": 8}),
]


@pytest.mark.parametrize("preset, players, options", ALLOWED)
def test_valid_rules(preset: str, players: int, options: dict[str, Any]) -> None:
    r = domino.Rules.preset(preset, players=players, **options)
    assert r.players == players
    for k, v in options.items():
        if k == "hand_size" and isinstance(v, dict):
            continue
        assert getattr(r, k) == v
    assert domino.Rules.from_dict(r.to_dict()) == r
    if r.is_line:
        s = domino.new_game(r, seed="valid")
        assert domino.legal_moves(s)


def test_block_with_a_draw_policy_draws() -> None:
    r = domino.Rules.preset("block", draw_policy="draw_one")
    assert (r.boneyard_reserve, r.may_draw_when_playable, r.drawn_tile_play) == (0, False, "must")
    s = position(r, layout="[6-6]", hands=["1-0 2-0", "5-5"], boneyard="6-1 3-3", rest="boneyard")
    assert domino.legal_moves(s) == (DRAW,)
    s = domino.apply(s, DRAW)
    assert domino.legal_moves(s) == (P("6-1", "left"), P("6-1", "right"))


def test_resolved_rules_show_numbers() -> None:
    assert rules("draw", players=3).hand_size == 7 and rules("draw", players=3).target_score == 61
    assert rules("draw", players=4).hand_size == 6 and rules("draw", players=4).target_score == 61
    assert rules("draw", players=4, teams="partners_opposite").target_score == 100
    assert rules("draw_family", players=3).hand_size == 5
    assert rules("block", players=4).hand_size == 5
    assert rules("all_fives").target_score == 150 and rules("all_fives").target_check == "immediate"
    assert rules("draw", players=3, target_score={3: 50}).target_score == 50


# -- Tile text round trip --------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 18), st.integers(0, 18), st.sampled_from(["-", "|", " - ", "-  "]))
def test_tile_parse_str_round_trip(a: int, b: int, sep: str) -> None:
    t = Tile(a, b)
    assert str(t) == f"{max(a, b)}-{min(a, b)}"
    assert Tile.parse(str(t)) == t
    assert Tile.parse(f"{a}{sep}{b}") == t == Tile(b, a)
    assert hash(Tile.parse(f"{b}-{a}")) == hash(t)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=8))
def test_tile_parse_never_raises_anything_else(text: str) -> None:
    try:
        t = Tile.parse(text)
    except InvalidMoveError:
        return
    assert Tile.parse(str(t)) == t
    assert 0 <= t.low <= t.high <= 99


# -- testing.position checks its input -------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [
    {"layout": "[6-4][3-1]", "hands": ["2-2", "1-1"]},  # halves that do not touch
    {"layout": "[6-4]", "hands": ["6-4", "1-1"]},  # a tile named twice
    {"layout": "[6-4]", "hands": ["7-1", "1-1"]},  # not in the set
    {"layout": "[6-4]", "hands": ["2-2"]},  # one hand for two players
    {"layout": "[6-4]", "hands": ["2-2", "1-1"], "rest": "error"},  # tiles left unplaced
    {"layout": "[6-4][4-4][4-1]", "hands": ["2-2", "1-1"], "spinner": "6-6"},  # spinner not on the line
    {"layout": "[6-4][4-1]", "hands": ["2-2", "1-1"], "up": "[4-2]"},  # an arm without a spinner
])
def test_position_rejects_bad_fixtures(kwargs: dict[str, Any]) -> None:
    kwargs.setdefault("rest", "boneyard")
    with pytest.raises(domino.InvalidDealError):
        position(rules("all_fives"), **kwargs)


def test_position_with_spinner_arms() -> None:
    s = position(rules("all_fives"), layout="[6-4][4-4][4-1]", up="[4-2]", hands=["2-0 3-3", "1-1"], rest="boneyard")
    assert dict(domino.view(s, None).ends) == {"left": 6, "right": 1, "up": 2, "down": 4}
    assert set(domino.legal_moves(s)) == plays("2-0 up")


def test_a_player_count_given_twice_in_a_map_is_refused():
    with pytest.raises(domino.InvalidRulesError, match="twice"):
        domino.Rules.preset("draw", players=2, hand_size={2: 7, "2": 5})

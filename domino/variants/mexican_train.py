"""Mexican Train (docs/rules.md#mexican_train): the hub, one personal train per seat, the Mexican train, markers, doubles.

A variant of the registry (``domino.variants``). The State's ``board`` is a :class:`TrainBoard` (tiles on the
table) and its ``variant`` a :class:`TrainTurn` (markers, uncovered doubles, who still has a first turn, the
turn's phase); both, and their stored forms, are in :mod:`domino.variants.trains`. Each round's engine, deal
and opening are in :mod:`domino.variants.train_rounds`.

A turn is one of five kinds, derived from the state (``_kind``):

- ``first``: the seat's first turn, nothing played yet: plays on its own train, or ``Pass`` (marker) if none.
- ``sequence``: a first-turn run under way: plays on its own train, plus ``Pass`` (no marker) unless the
  last tile is a double that can be covered; with no placement left the turn ends by itself.
- ``cover``: an uncovered double is active: cover the oldest one, else draw one, else ``Pass`` (marker).
- ``play``: a later turn: own train, marked trains, the Mexican train; else draw one, else ``Pass`` (marker).
- ``follow``: a double was just played in a later turn: another tile anywhere allowed, else draw one, else
  ``Pass`` (marker).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from domino import match
from domino.dealing import draw_tile
from domino.moves import DRAW, PASS, Draw, Move, Play, move_key
from domino.state import Event, LogEntry, RoundResult, State, evolve, placed_str
from domino.tiles import Tile, hand_pips
from domino.variants.train_rounds import deal_round as deal_round  # the Variant protocol's rounds
from domino.variants.train_rounds import opening_events as opening_events
from domino.variants.train_rounds import start_round as start_round
from domino.variants.trains import MEXICAN, TrainBoard, TrainTurn, train_name
from domino.variants.trains import board_from_dict as board_from_dict  # the Variant protocol's stored forms
from domino.variants.trains import board_to_dict as board_to_dict
from domino.variants.trains import turn_from_dict as turn_from_dict
from domino.variants.trains import turn_to_dict as turn_to_dict


# -- legal moves -----------------------------------------------------------------------------------


def _turn(state: State) -> TrainTurn:
    v = state.variant
    assert isinstance(v, TrainTurn)
    return v


def _board(state: State) -> TrainBoard:
    b = state.board
    assert isinstance(b, TrainBoard)
    return b


def active_double(state: State) -> str | None:
    """The train whose uncovered double binds the seat to move now, if any (docs/rules.md#mexican_train, uncovered doubles)."""
    v = _turn(state)
    if not v.pending:
        return None
    if v.first_turn and state.rules.first_turn_double == "deferred":
        return None  # deferred until the opening cycle is complete
    return v.pending[0]


def _kind(state: State) -> str:
    v = _turn(state)
    if v.phase != "start":
        return v.phase
    if active_double(state) is not None:
        return "cover"
    return "first" if state.turn in v.first_turn else "play"


def _targets(state: State, kind: str) -> list[str]:
    """The trains the seat to move may play on in this kind of turn."""
    p = state.turn
    if kind in ("first", "sequence"):
        return [train_name(p)]
    if kind == "cover":
        active = active_double(state)
        assert active is not None
        return [active]
    markers = _turn(state).markers
    names = [train_name(p)] + [train_name(s) for s in range(state.rules.players) if s != p and markers[s]]
    if state.rules.mexican_train:
        names.append(MEXICAN)
    return names


def _plays(state: State, kind: str, hand: tuple[Tile, ...]) -> list[Play]:
    board = _board(state)
    out: list[Play] = []
    for name in _targets(state, kind):
        v = board.end(name)
        out.extend(Play(t, name) for t in hand if t.high == v or t.low == v)
    return out


def can_draw(state: State) -> bool:
    return len(state.boneyard) > state.rules.boneyard_reserve


def legal_moves(state: State) -> tuple[Move, ...]:
    """The moves the seat to move may make, sorted (the game is not over)."""
    kind = _kind(state)
    plays: list[Move] = list(_plays(state, kind, state.hands[state.turn]))
    if kind == "first":
        moves = plays or [PASS]  # cannot start the train: no draw, the marker goes up
    elif kind == "sequence":
        own = _board(state).train(train_name(state.turn))
        must_cover = bool(own) and own[-1][0] == own[-1][1]
        moves = plays if (plays and must_cover) else plays + [PASS]
    elif state.drawn == 0:
        may_draw = can_draw(state) and (not plays or state.rules.may_draw_when_playable)
        moves = plays + [DRAW] if may_draw else plays or [PASS]
    else:
        moves = plays + ([PASS] if state.rules.drawn_tile_play == "may" else []) if plays else [PASS]
    return tuple(sorted(moves, key=move_key))


def places(state: State) -> tuple[tuple[str, int], ...]:
    """The trains the seat to move may play on now, with their end values (View.ends, for bots)."""
    if state.outcome is None:
        board = _board(state)
        return tuple((name, board.end(name)) for name in _targets(state, _kind(state)))
    return ()


def is_blocked(state: State) -> bool:
    """The end of a round (docs/rules.md#mexican_train): after the opening cycle, nobody can draw and nobody holds a tile that can ever be played
    (the oldest uncovered double's value if any, else the end of any train, regardless of markers)."""
    v = _turn(state)
    if v.first_turn or can_draw(state):
        return False
    board = _board(state)
    if v.pending:
        values = {board.end(v.pending[0])}
    else:
        values = {board.end(name) for name in board.names(bool(state.rules.mexican_train))}
    return not any(t.high in values or t.low in values for h in state.hands for t in h)


# -- stepping --------------------------------------------------------------------------------------


def advance(state: State, move: Move, events: list[Event] | None) -> State:
    """Apply a move already validated by ``domino.engine.resolve``; its events are appended to ``events``
    (None: not wanted)."""
    events = [] if events is None else events
    kind = _kind(state)
    if isinstance(move, Play):
        return _play(state, move, kind, events)
    if isinstance(move, Draw):
        return draw_tile(state, events)
    return _pass(state, kind, events)


def _play(state: State, move: Play, kind: str, events: list[Event]) -> State:
    p = state.turn
    tile = move.tile
    name = move.end
    assert name is not None
    v = _turn(state)
    hand = list(state.hands[p])
    hand.remove(tile)
    hands = state.hands[:p] + (tuple(hand),) + state.hands[p + 1 :]
    board = _board(state).place(name, tile)
    pending = tuple(n for n in v.pending if n != name)  # a tile on an uncovered double covers it
    if tile.is_double:
        pending += (name,)
    markers = v.markers
    events.append(Event("tile_played", p, {"tile": str(tile), "end": name, "points": 0}))
    if name == train_name(p) and markers[p]:
        markers = markers[:p] + (False,) + markers[p + 1 :]
        events.append(Event("marker_removed", p, {"train": name}))
    turn = replace(v, pending=pending, markers=markers)
    state = evolve(
        state, hands=hands, board=board, variant=turn, drawn=0, log=state.log + (LogEntry(p, "play", tile, name),)
    )
    if not hand:
        return _end_round(state, "domino", p, events)
    if kind in ("first", "sequence"):
        state = evolve(state, variant=replace(turn, phase="sequence"))
        if not _plays(state, "sequence", state.hands[p]):
            return _end_turn(state, events)  # nothing more fits: the run ends by itself, no marker
        return state
    if kind != "cover" and tile.is_double:
        return evolve(state, variant=replace(turn, phase="follow"))
    return _end_turn(state, events)


def _pass(state: State, kind: str, events: list[Event]) -> State:
    p = state.turn
    v = _turn(state)
    events.append(Event("passed", p, {}))
    state = evolve(state, log=state.log + (LogEntry(p, "pass"),))
    if kind != "sequence" and not v.markers[p]:
        markers = v.markers[:p] + (True,) + v.markers[p + 1 :]
        state = evolve(state, variant=replace(v, markers=markers))
        events.append(Event("marker_placed", p, {"train": train_name(p)}))
    return _end_turn(state, events)


def _end_turn(state: State, events: list[Event]) -> State:
    """The turn passes clockwise; after the opening cycle the block test runs."""
    p = state.turn
    v = _turn(state)
    turn = replace(v, first_turn=tuple(s for s in v.first_turn if s != p), phase="start")
    state = evolve(state, variant=turn, turn=(p + 1) % state.rules.players, drawn=0)
    return settle_with(state, events)


def settle(state: State) -> State:
    """The block test for a position built by hand (``domino.testing``), at the start of a turn."""
    if _turn(state).phase == "start" and state.drawn == 0:
        return settle_with(state, [])
    return state


def settle_with(state: State, events: list[Event]) -> State:
    if is_blocked(state):
        return _end_round(state, "blocked", None, events)
    return state


def _end_round(state: State, end: str, went_out: int | None, events: list[Event]) -> State:
    r = state.rules
    penalties = tuple(hand_pips(h, r.double_blank_value or 0) for h in state.hands)
    if end == "domino":
        winner = went_out
        why = f"seat {went_out} went out; everyone adds the pips left in hand"
    else:
        low = min(penalties)
        lowest = [s for s, x in enumerate(penalties) if x == low]
        winner = lowest[0] if len(lowest) == 1 else None
        why = f"blocked; everyone adds the pips left in hand (fewest: {low})"
    result = RoundResult(
        round=state.round,
        end=end,
        winner=winner,
        pips_left=penalties,
        hands=state.hands,
        points=penalties,
        award=penalties,
        why=why,
        deal=state.deal,
    )
    state = evolve(state, variant=replace(_turn(state), phase="start"))
    return match.close_round(state, result, events, start_round)


# -- views -----------------------------------------------------------------------------------------


def board_view(state: State) -> dict[str, Any]:
    """Mexican Train's ``board`` in a view."""
    board = _board(state)
    v = _turn(state)
    trains: list[dict[str, Any]] = [
        {"owner": s, "tiles": [placed_str(p) for p in t], "end": board.end(train_name(s)), "marker": v.markers[s]}
        for s, t in enumerate(board.trains)
    ]
    if state.rules.mexican_train:
        trains.append(
            {"owner": None, "tiles": [placed_str(p) for p in board.mexican], "end": board.end(MEXICAN), "marker": True}
        )
    active = active_double(state) if state.outcome is None else None
    return {
        "engine_double": f"{board.engine}-{board.engine}",
        "trains": trains,
        "pending_doubles": [placed_str(board.train(n)[-1]) for n in v.pending],
        "active_double": None if active is None else {"train": active, "tile": placed_str(board.train(active)[-1])},
        "first_turn_pending": list(v.first_turn),
        "phase": None if state.outcome is not None else _kind(state),
    }


def table(state: State) -> tuple[dict[str, Any], tuple[tuple[str, int], ...], tuple[Tile, ...]]:
    """What the view shows of the table: the board, the playable places, the tiles laid."""
    return board_view(state), places(state), _board(state).tiles()



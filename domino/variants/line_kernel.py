"""The line games' public states on the kernel: ``legal_moves`` and the steps of a round run on a
:class:`domino.core.position.LineSim`, and a state keeps its hands, board and log in compact form until they
are read (:class:`Position`, the State's ``Source``).

A state's kernel is its position as a ``LineSim`` that is never changed once the state holds it: a move
plays on a copy. The board and log are the ones the position started from (``board0``, ``log0``) plus a
trail of the moves made since, ``(earlier trail, seat, move code)``, replayed when read. What a round's end
needs (the result, the match, the next deal) stays in :mod:`domino.variants.line` and :mod:`domino.match`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from domino.core.codes import DRAW_CODE, END_NAMES
from domino.core.position import LineSim
from domino.core.tables import Tables, index, mask_of, tables, tiles_of
from domino.moves import DRAW, PASS, Move
from domino.state import Board, LogEntry, State
from domino.tiles import Tile
from domino.variants import line_board

Trail = tuple[Any, int, int] | None  # (earlier trail, seat, move code), newest first


class Origin:
    """What the positions of one stretch of a round share: the tables, where the board and log stood when
    the kernel took over (``board0``, ``log0``), and the public move of each move code."""

    __slots__ = ("tb", "spinner", "board0", "log0", "moves")

    def __init__(self, tb: Tables, spinner: bool, board0: Board, log0: tuple[LogEntry, ...]) -> None:
        self.tb = tb
        self.spinner = spinner
        self.board0 = board0
        self.log0 = log0
        self.moves = _moves_by_code(tb.max_pips)


class Position:
    """A state's compact form (its ``Source`` and its kernel): the kernel position, never changed once a
    state holds it, and the moves made since the origin. The board and log, once read, are kept
    (``read_board``, ``read_log``): the next position starts from them (:meth:`then`)."""

    __slots__ = ("sim", "origin", "trail", "read_board", "read_log")

    def __init__(self, sim: LineSim, origin: Origin, trail: Trail) -> None:
        self.sim = sim
        self.origin = origin
        self.trail = trail
        self.read_board: Board | None = None
        self.read_log: tuple[LogEntry, ...] | None = None

    def then(self, sim: LineSim, seat: int, code: int) -> Position:
        """The position after ``seat``'s move ``code`` (``sim``: a copy of this one's, moved). When this one's
        board and log have been read (a service stores every state it commits), the next one starts from them,
        so reading its own replays one move, not every move since the kernel took over."""
        board, log = self.read_board, self.read_log
        if board is not None and log is not None:
            o = self.origin
            return Position(sim, Origin(o.tb, o.spinner, board, log), (None, seat, code))
        return Position(sim, self.origin, (self.trail, seat, code))

    def _moves(self) -> list[tuple[int, int]]:
        """(seat, code) of the moves since the origin, oldest first."""
        out = []
        trail = self.trail
        while trail is not None:
            trail, seat, code = trail
            out.append((seat, code))
        out.reverse()
        return out

    def hands(self) -> tuple[tuple[Tile, ...], ...]:
        tb = self.origin.tb
        return tuple(tiles_of(h, tb) for h in self.sim.hands)

    def board(self) -> Board:
        o = self.origin
        board = o.board0
        tiles = o.tb.tiles
        for _, code in self._moves():
            if code >= 0:
                board = line_board.place(board, tiles[code >> 3], END_NAMES[code & 7], o.spinner)
        self.read_board = board
        return board

    def log(self) -> tuple[LogEntry, ...]:
        o = self.origin
        entry = _entries(o.tb.max_pips)
        log = self.read_log = o.log0 + tuple(entry(seat, code) for seat, code in self._moves())
        return log


def position(state: State) -> Position:
    """The state's kernel position, built from its fields the first time it is needed."""
    pos = state.kernel
    if pos is None:
        r = state.rules
        tb = tables(r.set_max_pips)
        sim = LineSim.new(tb, r, state.opened_by_rule)
        sim.hands = [mask_of(h, tb) for h in state.hands]
        sim.bone = list(map(index, state.boneyard))
        sim.set_board(state.board)
        sim.turn, sim.drawn, sim.extra = state.turn, state.drawn, state.extra_play
        sim.lead = -1 if state.lead is None else index(state.lead)
        pos = Position(sim, Origin(tb, r.spinner == "first_double", state.board, state.log), None)
        object.__setattr__(state, "kernel", pos)  # a cache, not part of the state's value
    assert isinstance(pos, Position)
    return pos


def start(state: State, tab: Tables, hands: list[int], boneyard: list[int], lead: int) -> None:
    """Give a round's first state (no tile laid) its kernel position, from the deal as masks."""
    r = state.rules
    sim = LineSim.new(tab, r, state.opened_by_rule)
    sim.hands = hands
    sim.bone = boneyard
    sim.turn = state.turn
    sim.lead = lead
    origin = Origin(tab, r.spinner == "first_double", state.board, ())
    object.__setattr__(state, "kernel", Position(sim, origin, None))


@lru_cache(maxsize=32)
def _moves_by_code(max_pips: int) -> tuple[Move, ...]:
    """Move code -> public move (``line_board.play``'s shared objects)."""
    out: list[Move] = []
    for t in tables(max_pips).tiles:
        out.extend(line_board.play(t, end) for end in END_NAMES)
        out.extend((PASS, PASS, PASS))  # a tile has 8 codes for its 5 ends: these 3 name no move
    return tuple(out) + (PASS, DRAW)  # the pass and draw codes, -2 and -1, index from the end


@lru_cache(maxsize=32)
def _entries(max_pips: int) -> Callable[[int, int], LogEntry]:
    """(seat, move code) -> its log entry; entries are immutable, so one object each is shared."""
    tb = tables(max_pips)
    cache: dict[tuple[int, int], LogEntry] = {}

    def entry(seat: int, code: int) -> LogEntry:
        e = cache.get((seat, code))
        if e is None:
            if code >= 0:
                e = LogEntry(seat, "play", tb.tiles[code >> 3], END_NAMES[code & 7])
            else:
                e = LogEntry(seat, "draw" if code == DRAW_CODE else "pass")
            cache[(seat, code)] = e
        return e

    return entry


def legal_moves(state: State) -> tuple[Move, ...]:
    """The moves of the seat to move in legal order: plays by tile then end, then a draw or a pass."""
    pos = state.kernel or position(state)
    return tuple(map(pos.origin.moves.__getitem__, pos.sim.moves()))

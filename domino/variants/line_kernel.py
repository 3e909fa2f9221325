"""The line games' public states on the kernel: ``legal_moves`` and the steps of a round run on a
:class:`domino.core.position.LineSim`, and a state keeps its hands, board and log in compact form until they
are read (:class:`Position`, the State's ``Source``).

A state's kernel position is handed on, not copied: the first step from a state takes its ``LineSim`` out of
the position's ``box`` and plays on it in place for the next state. The position keeps what its state
shows without it (the hands as masks, the board and log as the ones the round's stretch started from,
``board0`` and ``log0``, plus a trail of the moves made since, ``(earlier trail, seat, move code)``,
replayed when read), so a state stays the same value after it was stepped from; a second step from it, or
its legal moves after the first step, rebuild a ``LineSim`` from its fields. ``list.pop`` is atomic, so
two threads stepping one state never share a ``LineSim``. What a round's end needs (the result, the
match, the next deal) stays in :mod:`domino.variants.line` and :mod:`domino.match`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from domino.core.codes import DRAW_CODE, END_NAMES, PASS_CODE, to_code
from domino.core.position import LineSim
from domino.core.round import Config
from domino.core.tables import Tables, index, mask_of, tables, tiles_of
from domino.moves import DRAW, PASS, Move
from domino.state import Board, LogEntry, State, successor
from domino.tiles import Tile
from domino.variants import line_board

Trail = tuple[Any, int, int] | None  # (earlier trail, seat, move code), newest first


class Origin:
    """What the positions of one stretch of a round share: the tables, where the board and log stood when
    the kernel took over (``board0``, ``log0``), the public move of each move code, and the lists of legal
    moves already made for these rules (``listed``, see :func:`listed`)."""

    __slots__ = ("tb", "spinner", "board0", "log0", "moves", "listed", "shift")

    def __init__(self, tb: Tables, cfg: Config, board0: Board, log0: tuple[LogEntry, ...]) -> None:
        self.tb = tb
        self.spinner = cfg.spinner
        self.board0 = board0
        self.log0 = log0
        self.moves = _moves_by_code(tb.max_pips)
        self.listed = _listed(len(tb.tiles), () if cfg.fast else cfg.options)
        self.shift = len(tb.tiles)

    def moved_on(self, board0: Board, log0: tuple[LogEntry, ...]) -> Origin:
        """The same round's origin, the board and log standing at ``board0`` and ``log0``."""
        o = Origin.__new__(Origin)
        o.tb, o.spinner, o.moves, o.listed, o.shift = self.tb, self.spinner, self.moves, self.listed, self.shift
        o.board0, o.log0 = board0, log0
        return o


class Position:
    """A state's compact form (its ``Source`` and its kernel): the kernel position in ``box`` until a step
    takes it, the hands as masks, and the moves made since the origin. The board and log, once read, are
    kept (``read_board``, ``read_log``): the next position starts from them (:meth:`then`)."""

    __slots__ = ("box", "hand_masks", "origin", "trail", "read_board", "read_log")

    def __init__(self, sim: LineSim, origin: Origin, trail: Trail) -> None:
        self.box = [sim]
        self.hand_masks = tuple(sim.hands)  # before any step plays on ``sim``
        self.origin = origin
        self.trail = trail
        self.read_board: Board | None = None
        self.read_log: tuple[LogEntry, ...] | None = None

    def then(self, sim: LineSim, seat: int, code: int) -> Position:
        """The position after ``seat``'s move ``code`` (``sim``: at this one, moved). When this one's
        board and log have been read (a service stores every state it commits), the next one starts from them,
        so reading its own replays one move, not every move since the kernel took over."""
        board, log = self.read_board, self.read_log
        nxt = Position.__new__(Position)  # ``__init__``'s work, inlined (a call a move)
        nxt.box = [sim]
        nxt.hand_masks = tuple(sim.hands)
        if board is not None and log is not None:
            nxt.origin = self.origin.moved_on(board, log)
            nxt.trail = (None, seat, code)
        else:
            nxt.origin = self.origin
            nxt.trail = (self.trail, seat, code)
        nxt.read_board = nxt.read_log = None
        return nxt

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
        return tuple(tiles_of(h, tb) for h in self.hand_masks)

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
        sim = _sim_of(state, tb)
        pos = Position(sim, Origin(tb, sim.cfg, state.board, state.log), None)
        object.__setattr__(state, "kernel", pos)  # a cache, not part of the state's value
    assert isinstance(pos, Position)
    return pos


def _sim_of(state: State, tb: Tables) -> LineSim:
    """A new ``LineSim`` at the state's position, from its fields."""
    sim = LineSim.new(tb, state.rules, state.opened_by_rule)
    sim.hands = [mask_of(h, tb) for h in state.hands]
    sim.bone = list(map(index, state.boneyard))
    sim.set_board(state.board)
    sim.turn, sim.drawn, sim.extra = state.turn, state.drawn, state.extra_play
    sim.lead = -1 if state.lead is None else index(state.lead)
    return sim


def fresh(state: State) -> LineSim:
    """A ``LineSim`` of its own at the state's position, for a question (the blocked test, the count): the
    state's own kernel may be played on by a step meanwhile."""
    return _sim_of(state, tables(state.rules.set_max_pips))


def _claim(state: State, pos: Position) -> LineSim:
    """The position's own ``LineSim``, taken out of its box (``list.pop`` is atomic: no other thread gets
    it), or one rebuilt from the state's fields when a step has taken it already."""
    try:
        return pos.box.pop()
    except IndexError:
        return _sim_of(state, pos.origin.tb)


def take(state: State, move: Move) -> tuple[Position, LineSim, int]:
    """The state's position, a ``LineSim`` at it to play ``move`` (a legal move) on in place, and the
    move's code. The ``LineSim`` is the position's own the first time, one rebuilt from the state's fields
    after that. The listed moves are shared objects, so the code is found by the move's identity (cheaper
    than hashing a move); a move only equal to one is coded from its fields."""
    pos = state.kernel or position(state)
    try:  # ``_claim``, inlined: a call a move
        sim = pos.box.pop()
    except IndexError:
        sim = _sim_of(state, pos.origin.tb)
    hit = _CODES.get(id(move))
    return pos, sim, hit[1] if hit is not None and hit[0] is move else to_code(move)


def step(state: State, move: Move) -> tuple[State, LineSim, int]:
    """The state after a legal ``move`` that scores nothing in play (any move but an All Fives play), the
    ``LineSim`` played on (at the new position) and the move's code. The hot path of ``domino.apply`` in one
    frame: :func:`take` and :meth:`Position.then` are written out here (two calls a move fewer; keep the
    three in step), the next legal moves listed and the state built."""
    pos = state.kernel or position(state)
    try:
        sim = pos.box.pop()
    except IndexError:
        sim = _sim_of(state, pos.origin.tb)
    hit = _CODES.get(id(move))
    code = hit[1] if hit is not None and hit[0] is move else to_code(move)
    seat = state.turn
    boneyard = state.boneyard
    if code >= 0:
        if sim.cfg.fast:
            sim.play_plain(code >> 3, code & 7)
        else:
            sim.play(code >> 3, code & 7)
        drawn = 0
    elif code == DRAW_CODE:
        sim.draw()
        boneyard = boneyard[1:]
        drawn = sim.drawn
    else:
        sim.pass_()
        drawn = sim.drawn
    board, log = pos.read_board, pos.read_log
    nxt = Position.__new__(Position)
    nxt.box = [sim]
    nxt.hand_masks = tuple(sim.hands)
    if board is not None and log is not None:
        origin = nxt.origin = pos.origin.moved_on(board, log)
        nxt.trail = (None, seat, code)
    else:
        origin = nxt.origin = pos.origin
        nxt.trail = (pos.trail, seat, code)
    nxt.read_board = nxt.read_log = None
    moves = None if sim.over else listed(sim, origin)
    after = successor(state, nxt, sim.turn, drawn, sim.extra, boneyard, state.scores, state.round_points, moves)
    return after, sim, code


def start(state: State, tab: Tables, hands: list[int], boneyard: list[int], lead: int) -> None:
    """Give a round's first state (no tile laid) its kernel position, from the deal as masks, and its legal
    moves."""
    sim = LineSim.new(tab, state.rules, state.opened_by_rule)
    sim.hands = hands
    sim.bone = boneyard
    sim.turn = state.turn
    sim.lead = lead
    origin = Origin(tab, sim.cfg, state.board, ())
    object.__setattr__(state, "kernel", Position(sim, origin, None))
    object.__setattr__(state, "moves_memo", listed(sim, origin))  # a cache, as ``domino.legal_moves`` keeps


# id of a listed move -> (the move, its code); holding the move keeps its id from being reused.
_CODES: dict[int, tuple[Move, int]] = {id(DRAW): (DRAW, DRAW_CODE), id(PASS): (PASS, PASS_CODE)}


@lru_cache(maxsize=32)
def _moves_by_code(max_pips: int) -> tuple[Move, ...]:
    """Move code -> public move (``line_board.play``'s shared objects)."""
    out: list[Move] = []
    for i, t in enumerate(tables(max_pips).tiles):
        for end, name in enumerate(END_NAMES):
            move = line_board.play(t, name)
            _CODES[id(move)] = (move, i << 3 | end)
            out.append(move)
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
    sim = _claim(state, pos)  # held while listing, so a step in another thread cannot play on it meanwhile
    moves = listed(sim, pos.origin)
    pos.box.append(sim)
    return moves


_LISTED_MAX = 1 << 14  # lists kept per set size and options (a few MB at most); past it the cache starts afresh


@lru_cache(maxsize=32)
def _listed(tile_count: int, options: tuple[tuple[int, ...], ...]) -> dict[int, tuple[Move, ...]]:
    """The lists of legal moves made so far for a set's size and a rules' draw and pass options (``()``
    under the block fast path, which has none): see :func:`listed`."""
    return {}


def listed(sim: LineSim, origin: Origin) -> tuple[Move, ...]:
    """The legal moves of ``sim``'s seat to move, as public moves in legal order. With two open ends they
    depend only on which tiles of the hand match each end (and, when the rules draw, on this turn's draw and
    pass options), so that is their key in a cache of shared tuples: a step lists the next moves with one
    dict lookup rather than walking the hand and building a tuple."""
    if sim.nopen != 2:
        moves = origin.moves
        return tuple([moves[c] for c in sim.moves()])
    hand = sim.hands[sim.turn]
    val = sim.tb.value_mask
    ev = sim.ev
    key = (hand & val[ev[0]]) << origin.shift | hand & val[ev[1]]
    cfg = sim.cfg
    if not cfg.fast:  # (the fast path's only option is a pass when nothing fits: the masks decide it)
        can_draw = cfg.draws and len(sim.bone) - sim.bpos > cfg.reserve
        key = key << 3 | sim.extra << 2 | (not sim.drawn) << 1 | can_draw
    cache = origin.listed
    got = cache.get(key)
    if got is None:
        moves = origin.moves
        got = tuple([moves[c] for c in sim.moves()])
        if len(cache) >= _LISTED_MAX:
            cache.clear()
        cache[key] = got
    return got

"""Mexican Train (docs/rules.md#mexican_train): the hub, one personal train per seat, the Mexican train, markers, doubles.

The public engine (``domino.engine``, ``domino.views``, ``domino.codec``, ``domino.testing``) dispatches here
when ``not rules.is_line``. The State's ``board`` is a :class:`TrainBoard` (tiles on the table) and its
``variant`` a :class:`TrainTurn` (markers, uncovered doubles, who still has a first turn, the turn's phase).

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

import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from domino import shuffle
from domino.engine import draw_tile, sorted_hand
from domino.errors import InvalidDealError
from domino.moves import DRAW, PASS, Draw, Move, Play, move_key
from domino.rules import Rules
from domino.state import Deal, Event, LogEntry, Placed, RoundResult, State, placed_str
from domino.tiles import Tile, full_set, hand_pips

MEXICAN = "mexican"
PHASES = ("start", "sequence", "follow")
Events = tuple[Event, ...]


def train_name(seat: int) -> str:
    return f"train:{seat}"


# -- the board and the turn state ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TrainBoard:
    """The hub with the engine double, the personal trains by seat, and the Mexican train (hub outwards)."""

    engine: int
    trains: tuple[tuple[Placed, ...], ...]
    mexican: tuple[Placed, ...] = ()

    def train(self, name: str) -> tuple[Placed, ...]:
        if name == MEXICAN:
            return self.mexican
        return self.trains[int(name[6:])]

    def end(self, name: str) -> int:
        """A train's end value: the outer half of its last tile, or the engine value when empty."""
        t = self.train(name)
        return t[-1][1] if t else self.engine

    def names(self, with_mexican: bool) -> list[str]:
        return [train_name(s) for s in range(len(self.trains))] + ([MEXICAN] if with_mexican else [])

    def tiles(self) -> tuple[Tile, ...]:
        """Every tile on the table: the engine first, then each train hub outwards."""
        out = [Tile(self.engine, self.engine)]
        for t in self.trains + (self.mexican,):
            out.extend(Tile(a, b) for a, b in t)
        return tuple(out)

    def place(self, name: str, tile: Tile) -> TrainBoard:
        v = self.end(name)
        grown = self.train(name) + ((v, tile.other(v)),)
        if name == MEXICAN:
            return replace(self, mexican=grown)
        s = int(name[6:])
        return replace(self, trains=self.trains[:s] + (grown,) + self.trains[s + 1 :])


@dataclass(frozen=True, slots=True)
class TrainTurn:
    """Mexican Train's per-round turn state (the State's ``variant``)."""

    markers: tuple[bool, ...]  # seat's personal train carries its marker (is open)
    pending: tuple[str, ...] = ()  # trains ending in an uncovered double, oldest first
    first_turn: tuple[int, ...] = ()  # seats that have not had their first turn, in turn order
    phase: str = "start"  # "start" | "sequence" (first-turn run under way) | "follow" (after a double)


# -- rounds and engines ---------------------------------------------------------------------------


def engine_value(rules: Rules, round_no: int) -> int:
    """Round r's engine: n-n, (n-1)-(n-1), … 0-0 for a double-n set; beyond n+1 rounds it starts again [engine]."""
    n = rules.set_max_pips
    return n - (round_no - 1) % (n + 1)


def deal_round(rules: Rules, seed: str, round_no: int) -> Deal:
    """The seeded deal (purpose ``deal``); with ``engine_setup = set_aside`` the engine is taken out first."""
    tiles = full_set(rules.set_max_pips)
    if rules.engine_setup == "set_aside":
        e = engine_value(rules, round_no)
        tiles = tuple(t for t in tiles if t != Tile(e, e))
    order = shuffle.shuffled(tiles, seed, round_no, "deal")
    n = rules.hand_size
    hands = tuple(sorted_hand(order[i * n : (i + 1) * n]) for i in range(rules.players))
    return Deal(hands=hands, boneyard=tuple(order[rules.players * n :]))


def check_deal(rules: Rules, deal: Deal, round_no: int = 1) -> Deal:
    """An explicit deal: ``hand_size`` tiles per seat and the whole set once (minus the engine if set aside)."""
    if len(deal.hands) != rules.players:
        raise InvalidDealError(f"the deal has {len(deal.hands)} hands for {rules.players} players")
    for seat, hand in enumerate(deal.hands):
        if len(hand) != rules.hand_size:
            raise InvalidDealError(f"seat {seat} was dealt {len(hand)} tiles, not {rules.hand_size}")
    expected = list(full_set(rules.set_max_pips))
    if rules.engine_setup == "set_aside":
        e = engine_value(rules, round_no)
        expected.remove(Tile(e, e))
    tiles = [t for h in deal.hands for t in h] + list(deal.boneyard)
    if sorted(tiles) != sorted(expected):
        what = "every tile of the set except the engine" if rules.engine_setup == "set_aside" else "every tile of the set"
        raise InvalidDealError(f"the deal must hold {what} exactly once")
    return Deal(tuple(sorted_hand(h) for h in deal.hands), tuple(deal.boneyard))


@dataclass(frozen=True, slots=True)
class _Setup:
    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...]
    placer: int
    search: tuple[tuple[int, Tile], ...]  # the search draws (seat, tile), the last one the engine if any


def _setup(rules: Rules, round_no: int, deal: Deal) -> _Setup:
    """Find and place the engine (docs/rules.md#mexican_train, the engine double): from a hand, or by search draws from seat (r−1) mod N."""
    n = rules.players
    e = engine_value(rules, round_no)
    engine = Tile(e, e)
    hands = [list(h) for h in deal.hands]
    boneyard = list(deal.boneyard)
    first = (round_no - 1) % n
    if rules.engine_setup == "set_aside":
        return _Setup(deal.hands, deal.boneyard, first, ())
    holder = next((s for s, h in enumerate(hands) if engine in h), None)
    search: list[tuple[int, Tile]] = []
    if holder is None:
        s = first
        while True:
            tile = boneyard.pop(0)
            search.append((s, tile))
            if tile == engine:
                holder = s
                break
            hands[s].append(tile)
            s = (s + 1) % n
    else:
        hands[holder].remove(engine)
    return _Setup(tuple(sorted_hand(h) for h in hands), tuple(boneyard), holder, tuple(search))


def _setup_events(rules: Rules, round_no: int, setup: _Setup) -> list[Event]:
    e = engine_value(rules, round_no)
    events = [Event("round_started", None, {"round": round_no, "opener": setup.placer, "engine_double": f"{e}-{e}"})]
    left = len(setup.boneyard) + len(setup.search)
    for seat, tile in setup.search:
        left -= 1
        events.append(Event("tile_drawn", seat, {"boneyard_count": left, "search": True}, {"tile": str(tile)}, seat))
    events.append(Event("engine_double_placed", setup.placer, {"tile": f"{e}-{e}"}))
    return events


def start_round(
    rules: Rules,
    round_no: int,
    deal: Deal | None = None,
    seed: str = "",
    scores: tuple[int, ...] | None = None,
    rounds: tuple[RoundResult, ...] = (),
) -> tuple[State, Events]:
    """Round ``round_no`` dealt from ``seed`` (or laid out as ``deal``), its engine placed, and its events."""
    if deal is None:
        deal = deal_round(rules, seed, round_no)
    else:
        deal = check_deal(rules, deal, round_no)
    setup = _setup(rules, round_no, deal)
    n = rules.players
    state = State(
        rules=rules,
        seed=seed,
        round=round_no,
        deal=deal,
        hands=setup.hands,
        boneyard=setup.boneyard,
        board=TrainBoard(engine_value(rules, round_no), ((),) * n),
        turn=setup.placer,
        scores=scores if scores is not None else (0,) * n,
        log=tuple(LogEntry(s, "draw") for s, _ in setup.search),
        rounds=rounds,
        round_points=(0,) * n,
        variant=TrainTurn(markers=(False,) * n, first_turn=tuple((setup.placer + i) % n for i in range(n))),
    )
    return state, tuple(_setup_events(rules, round_no, setup))


def new_game(rules: Rules, seed: str, deal: Deal | None) -> State:
    """A new match: round 1 dealt from ``seed`` (or ``deal``), the engine placed, its placer to move."""
    return start_round(rules, 1, deal, seed)[0]


def opening_events(state: State) -> Events:
    """The events that started the current round (replayed from its deal)."""
    return tuple(_setup_events(state.rules, state.round, _setup(state.rules, state.round, state.deal)))


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
    """The moves the seat to move may make, sorted; ``()`` once the game is over."""
    if state.outcome is not None:
        return ()
    kind = _kind(state)
    plays: list[Move] = list(_plays(state, kind, state.hands[state.turn]))
    if kind == "first":
        moves = plays or [PASS]  # cannot start the train: no draw, the marker goes up
    elif kind == "sequence":
        own = _board(state).train(train_name(state.turn))
        must_cover = bool(own) and own[-1][0] == own[-1][1]
        moves = plays if (plays and must_cover) else plays + [PASS]
    elif state.drawn == 0:
        moves = plays or ([DRAW] if can_draw(state) else [PASS])
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


def step(state: State, move: Move) -> tuple[State, Events]:
    """Apply a move already validated by ``domino.engine.resolve``."""
    events: list[Event] = []
    kind = _kind(state)
    if isinstance(move, Play):
        state = _play(state, move, kind, events)
    elif isinstance(move, Draw):
        state = draw_tile(state, events)
    else:
        state = _pass(state, kind, events)
    return state, tuple(events)


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
    state = replace(
        state, hands=hands, board=board, variant=turn, drawn=0, log=state.log + (LogEntry(p, "play", tile, name),)
    )
    if not hand:
        return _end_round(state, "domino", p, events)
    if kind in ("first", "sequence"):
        state = replace(state, variant=replace(turn, phase="sequence"))
        if not _plays(state, "sequence", state.hands[p]):
            return _end_turn(state, events)  # nothing more fits: the run ends by itself, no marker
        return state
    if kind != "cover" and tile.is_double:
        return replace(state, variant=replace(turn, phase="follow"))
    return _end_turn(state, events)


def _pass(state: State, kind: str, events: list[Event]) -> State:
    p = state.turn
    v = _turn(state)
    events.append(Event("passed", p, {}))
    state = replace(state, log=state.log + (LogEntry(p, "pass"),))
    if kind != "sequence" and not v.markers[p]:
        markers = v.markers[:p] + (True,) + v.markers[p + 1 :]
        state = replace(state, variant=replace(v, markers=markers))
        events.append(Event("marker_placed", p, {"train": train_name(p)}))
    return _end_turn(state, events)


def _end_turn(state: State, events: list[Event]) -> State:
    """The turn passes clockwise; after the opening cycle the block test runs."""
    p = state.turn
    v = _turn(state)
    turn = replace(v, first_turn=tuple(s for s in v.first_turn if s != p), phase="start")
    state = replace(state, variant=turn, turn=(p + 1) % state.rules.players, drawn=0)
    if is_blocked(state):
        return _end_round(state, "blocked", None, events)
    return state


def _end_round(state: State, end: str, went_out: int | None, events: list[Event]) -> State:
    from domino.engine import _finish, _match_over

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
    events.append(Event("round_ended", None, result.to_dict()))
    scores = tuple(s + x for s, x in zip(state.scores, penalties))
    state = replace(state, scores=scores, rounds=state.rounds + (result,), variant=replace(_turn(state), phase="start"))
    outcome = _match_over(state)
    if outcome is not None:
        return _finish(state, outcome, events)
    fresh, started = start_round(r, state.round + 1, None, state.seed, scores, state.rounds)
    events.extend(started)
    return fresh


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


# -- serialization ---------------------------------------------------------------------------------


def _placed_list(t: tuple[Placed, ...]) -> list[list[int]]:
    return [[a, b] for a, b in t]


def _placed_tuple(items: Iterable[Iterable[int]]) -> tuple[Placed, ...]:
    out: list[Placed] = []
    for item in items:
        a, b = item
        out.append((int(a), int(b)))
    return tuple(out)


def board_to_dict(board: Any) -> dict[str, Any]:
    assert isinstance(board, TrainBoard)
    return {
        "engine": board.engine,
        "trains": [_placed_list(t) for t in board.trains],
        "mexican": _placed_list(board.mexican),
    }


def board_from_dict(d: Mapping[str, Any]) -> TrainBoard:
    return TrainBoard(int(d["engine"]), tuple(_placed_tuple(t) for t in d["trains"]), _placed_tuple(d["mexican"]))


def variant_to_dict(v: Any) -> dict[str, Any]:
    assert isinstance(v, TrainTurn)
    return {"markers": list(v.markers), "pending": list(v.pending), "first_turn": list(v.first_turn), "phase": v.phase}


def variant_from_dict(d: Mapping[str, Any]) -> TrainTurn:
    return TrainTurn(
        markers=tuple(bool(m) for m in d["markers"]),
        pending=tuple(str(n) for n in d["pending"]),
        first_turn=tuple(int(s) for s in d["first_turn"]),
        phase=str(d["phase"]),
    )


# -- fixtures (domino.testing.position) ------------------------------------------------------------

_PLACED = re.compile(r"\[(\d+)-(\d+)\]")


def _layout(text: str, start: int, what: str) -> tuple[Placed, ...]:
    placed = tuple((int(a), int(b)) for a, b in _PLACED.findall(text or ""))
    prev = start
    for a, b in placed:
        if a != prev:
            raise InvalidDealError(f"{what} {text!r}: {a} does not touch {prev}")
        prev = b
    return placed


def position(
    rules: Rules,
    hands: Iterable[str | Iterable[str]] = (),
    boneyard: str | Iterable[str] = (),
    to_move: int = 0,
    scores: Iterable[int] | None = None,
    round: int = 1,
    seed: str = "position",
    rest: str = "error",
    trains: Mapping[int, str] | Iterable[str] = (),
    mexican: str = "",
    markers: Iterable[int] = (),
    pending_doubles: Iterable[str] | None = None,
    first_turn_pending: Iterable[int] = (),
    phase: str = "start",
    drawn: int = 0,
) -> State:
    """A Mexican Train state in the middle of a round (see ``domino.testing.position``).

    ``trains``: each seat's train as an oriented layout from the hub, e.g. ``["[12-5][5-9]", "", …]`` or
    ``{1: "[12-7][7-7]"}``; ``mexican`` likewise. ``markers``: seats whose trains are marked (open).
    ``pending_doubles``: the uncovered doubles, oldest first, as tiles (``"7-7"``) or trains (``"train:1"``);
    by default every train that ends in a double, in seat order then the Mexican train. ``first_turn_pending``:
    seats that have not had their first turn (default: none, the opening cycle is over). ``phase``: ``start``,
    ``sequence`` (the seat to move is in a first-turn run) or ``follow`` (it has just played a double).
    ``rest``: ``"error"``, ``"boneyard"`` or ``"hand:<seat>"`` for the tiles not named.
    The block test runs at once for a position at the start of a turn.
    """
    from domino.testing import account, mid_round, tiles

    n = rules.players
    e = engine_value(rules, round)
    if isinstance(trains, Mapping):
        texts = [str(trains.get(s, "")) for s in range(n)]
    else:
        texts = list(trains) or [""] * n
    if len(texts) != n:
        raise InvalidDealError(f"{len(texts)} trains for {n} players")
    board = TrainBoard(
        e, tuple(_layout(t, e, f"train:{s}") for s, t in enumerate(texts)), _layout(mexican, e, "mexican")
    )
    if board.mexican and not rules.mexican_train:
        raise InvalidDealError("there is no Mexican train (mexican_train = false)")
    hand_tiles = [list(tiles(h)) for h in hands]
    if len(hand_tiles) != n:
        raise InvalidDealError(f"{len(hand_tiles)} hands for {n} players")
    pile = list(tiles(boneyard))
    account(rules, board.tiles(), hand_tiles, pile, rest)
    ends_in_double = [name for name in board.names(True) if board.train(name) and _is_double(board.train(name)[-1])]
    if pending_doubles is None:
        pending = tuple(ends_in_double)
    else:
        pending = tuple(_pending_name(board, item) for item in pending_doubles)
        if any(name not in ends_in_double for name in pending):
            raise InvalidDealError("a pending double must be the last tile of its train")
    marked = set(markers)
    if phase not in PHASES:
        raise InvalidDealError(f"phase must be one of {', '.join(PHASES)}")
    first = sorted(set(first_turn_pending), key=lambda s: (s - to_move) % n)
    turn = TrainTurn(tuple(s in marked for s in range(n)), pending, tuple(first), phase)
    state = mid_round(rules, seed, round, hand_tiles, pile, board, to_move, scores, drawn, variant=turn)
    if phase == "start" and drawn == 0 and is_blocked(state):
        return _end_round(state, "blocked", None, [])
    return state


def _is_double(p: Placed) -> bool:
    return p[0] == p[1]


def _pending_name(board: TrainBoard, item: str) -> str:
    if item == MEXICAN or item.startswith("train:"):
        return item
    tile = Tile.parse(item)
    for name in board.names(True):
        t = board.train(name)
        if t and Tile(*t[-1]) == tile:
            return name
    raise InvalidDealError(f"{item} is not the last tile of any train")

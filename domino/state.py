"""The game state and the records it keeps: immutable values, so a failed move can never corrupt one.

A ``State`` is built without its frozen guard (a call a field): a ``_Draft`` (the same slots, no guard) is
filled, then becomes a ``State`` by assigning ``__class__``. Only this module's constructors do that
(``State.__init__``, ``evolve`` through ``_draft``, ``successor``). ``_draft`` and ``successor`` copy every
slot inline for speed, generated from ``_Slots.__slots__`` (:func:`_copier`); tests/engine/test_state_slots.py
checks that every constructor carries every slot, that ``FIELDS`` matches the slots, and that the two
classes keep the one layout the swap needs.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Union

from domino.moves import Move
from domino.rules import Rules
from domino.tiles import Tile, halves_text, texts

# An oriented tile on the table: (half touching the inner neighbour, outer half).
Placed = tuple[int, int]


def placed_str(p: Placed) -> str:
    return halves_text(p[0], p[1])


@dataclass(frozen=True, slots=True)
class Deal:
    """A round's deal: ``hands[i]`` is seat i's hand; ``boneyard`` the rest in draw order (top first)."""

    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"hands": [texts(h) for h in self.hands], "boneyard": texts(self.boneyard)}


@dataclass(frozen=True, slots=True)
class LineBoard:
    """The line of play (docs/rules.md#the-line-games, #the-spinner): tiles left to right; the spinner and its two arms."""

    line: tuple[Placed, ...] = ()
    spinner: int | None = None  # index of the spinner in ``line``
    up: tuple[Placed, ...] = ()
    down: tuple[Placed, ...] = ()

    @property
    def tile_count(self) -> int:
        return len(self.line) + len(self.up) + len(self.down)


Board = Union[LineBoard, Any]  # Mexican Train adds its own board type


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One public move of the current round; a draw never names its tile."""

    seat: int
    type: str  # "play" | "draw" | "pass"
    tile: Tile | None = None
    end: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"seat": self.seat, "type": self.type}
        if self.tile is not None:
            d["tile"] = str(self.tile)
            d["end"] = self.end
        return d


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round ended and what it was worth (docs/rules.md#scoring-a-round)."""

    round: int
    end: str  # "domino" | "blocked" | "abandoned"
    winner: int | None  # the seat that went out or had the fewest pips; None on a tie or when abandoned
    pips_left: tuple[int, ...]
    hands: tuple[tuple[Tile, ...], ...]
    points: tuple[int, ...]  # what each seat (each team, shown on both partners) gained in this round
    award: tuple[int, ...]  # the end-of-round part of ``points``
    why: str
    deal: Deal
    team: int | None = None  # the winning team, when teams play

    def to_dict(self, reveal_deal: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            "round": self.round,
            "end": self.end,
            "winner": self.winner,
            "pips_left": list(self.pips_left),
            "hands": [texts(h) for h in self.hands],
            "points": list(self.points),
            "award": list(self.award),
            "why": self.why,
        }
        if self.team is not None:
            d["team"] = self.team
        if reveal_deal:
            d["deal"] = self.deal.to_dict()
        return d


@dataclass(frozen=True, slots=True)
class Outcome:
    """How the match ended: ``reason`` is target_score, fixed_rounds, resigned, expired or aborted."""

    reason: str
    winners: tuple[int, ...]
    team: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason, "winners": list(self.winners), "team": self.team}


@dataclass(frozen=True, slots=True)
class Event:
    """A rules-level fact produced by a step; ``private`` details reach only seat ``private_to``."""

    type: str
    seat: int | None
    data: Mapping[str, Any] = field(default_factory=dict)
    private: Mapping[str, Any] | None = None
    private_to: int | None = None

    def to_dict(self, for_seat: int | None = None) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type, "seat": self.seat, **self.data}
        if self.private is not None and for_seat is not None and for_seat == self.private_to:
            d.update(self.private)
        return d


Events = tuple[Event, ...]


# The public fields of a State, in order: its value (equality, hash, repr) is these.
FIELDS = (
    "rules", "seed", "deal_version", "round", "deal", "hands", "boneyard", "board", "turn", "scores", "lead",
    "opened_by_rule", "drawn", "extra_play", "log", "rounds", "outcome", "round_points", "variant", "last_round", "has_records",
)  # fmt: skip
_LAZY = ("hands", "board", "log")


class Source(Protocol):
    """Where a state's hands, board and log come from when they were not given: a variant's compact form of
    the position (the line games' kernel), turned into the public values on first use."""

    def hands(self) -> tuple[tuple[Tile, ...], ...]: ...

    def board(self) -> Board: ...

    def log(self) -> tuple[LogEntry, ...]: ...


class _Slots:
    # ``_hands``/``_board``/``_log`` are None until first read when ``_source`` can give them; ``kernel`` is the
    # variant's fast form of the position for its next moves (None: built on demand); ``moves_memo`` the
    # legal moves once listed. None of the three is part of the state's value.
    __slots__ = (
        "rules", "seed", "deal_version", "round", "deal", "_hands", "boneyard", "_board", "turn", "scores", "lead",
        "opened_by_rule", "drawn", "extra_play", "_log", "rounds", "outcome", "round_points", "variant", "last_round", "has_records",
        "_source", "kernel", "moves_memo",
    )  # fmt: skip
    rules: Rules
    seed: str
    deal_version: int  # how the seed deals (domino.shuffle): 1 or 2, kept for the whole match
    round: int
    deal: Deal  # this round's deal, revealed when the game ends
    boneyard: tuple[Tile, ...]
    turn: int
    scores: tuple[int, ...]
    lead: Tile | None  # the tile the opener must lead (None: any tile)
    opened_by_rule: bool  # the round was opened under starting_rule (extra play applies)
    drawn: int  # draws in the current turn
    extra_play: bool  # the opener's optional extra tile is pending
    rounds: tuple[RoundResult, ...]
    outcome: Outcome | None
    round_points: tuple[int, ...]  # points scored during play in this round (All Fives)
    variant: Any  # variant-specific turn state (Mexican Train)
    last_round: RoundResult | None  # the latest finished round (``rounds[-1]`` when the records are held)
    # ``rounds`` holds every finished round's record (False for a state loaded from its live document alone).
    has_records: bool

    _hands: tuple[tuple[Tile, ...], ...] | None
    _board: Board
    _log: tuple[LogEntry, ...] | None
    _source: Source | None
    kernel: Any
    moves_memo: tuple[Move, ...] | None


class State(_Slots):
    """One moment of a match. Never mutated: every step returns a new State.

    ``hands``, ``board`` and ``log`` may be held in a variant's compact form (``Source``) and built on first
    read; every other field is stored as it is."""

    __slots__ = ()

    def __init__(
        self,
        rules: Rules,
        seed: str,
        deal_version: int,
        round: int,
        deal: Deal,
        hands: tuple[tuple[Tile, ...], ...],
        boneyard: tuple[Tile, ...],
        board: Board,
        turn: int,
        scores: tuple[int, ...],
        lead: Tile | None = None,
        opened_by_rule: bool = True,
        drawn: int = 0,
        extra_play: bool = False,
        log: tuple[LogEntry, ...] = (),
        rounds: tuple[RoundResult, ...] = (),
        outcome: Outcome | None = None,
        round_points: tuple[int, ...] = (),
        variant: Any = None,
        last_round: RoundResult | None = None,
        has_records: bool = True,
    ) -> None:
        d: Any = self
        object.__setattr__(d, "__class__", _Draft)  # filled unguarded (see _Draft), then a State again
        d.rules, d.seed, d.deal_version, d.round, d.deal = rules, seed, deal_version, round, deal
        d._hands, d.boneyard, d._board = hands, boneyard, board
        d.turn, d.scores, d.lead, d.opened_by_rule, d.drawn, d.extra_play = turn, scores, lead, opened_by_rule, drawn, extra_play
        d._log, d.rounds, d.outcome, d.round_points, d.variant = log, rounds, outcome, round_points, variant
        d.last_round, d.has_records = last_round, has_records
        d._source = d.kernel = d.moves_memo = None
        d.__class__ = State

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> tuple[Any, ...]:
        return self._value()  # pickled by value: the compact forms are rebuilt on demand

    def __setstate__(self, value: tuple[Any, ...]) -> None:
        State.__init__(self, *value)

    @property
    def hands(self) -> tuple[tuple[Tile, ...], ...]:
        hands = self._hands
        if hands is None:
            assert self._source is not None
            hands = self._source.hands()
            object.__setattr__(self, "_hands", hands)  # a cache of the value the source holds
        return hands

    @property
    def board(self) -> Board:
        board = self._board
        if board is None:
            assert self._source is not None
            board = self._source.board()
            object.__setattr__(self, "_board", board)
        return board

    @property
    def log(self) -> tuple[LogEntry, ...]:
        log = self._log
        if log is None:
            assert self._source is not None
            log = self._source.log()
            object.__setattr__(self, "_log", log)
        return log

    def _value(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not State:
            return NotImplemented
        return self is other or self._value() == other._value()

    def __hash__(self) -> int:
        return hash(self._value())

    def __repr__(self) -> str:
        return "State(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in FIELDS) + ")"

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    @property
    def to_move(self) -> int | None:
        return None if self.outcome is not None else self.turn

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def team_scores(self) -> tuple[int, int] | None:
        if not self.rules.has_teams:
            return None
        return (self.scores[0], self.scores[1])


class _Draft(_Slots):
    """A State under construction: the same slots, written without State's guard (which costs a call a
    field); it becomes a State once filled (``__class__`` is reassigned, the layouts being the same)."""

    __slots__ = ()


def _copier(name: str, params: str, given: dict[str, str], doc: str, seal: bool) -> Any:
    """A function ``name(params)`` that makes a ``_Draft`` with every slot of ``state`` copied but those in
    ``given`` (slot -> the expression it gets), and returns it (a ``State`` when ``seal``). Generated from
    ``_Slots.__slots__``, as dataclasses generates an ``__init__``: a new slot is carried with no edit here,
    and the function runs as if written out (no loop, no call a slot)."""
    lines = [f"def {name}({params}):", "    d = _Draft.__new__(_Draft)"]
    lines += [f"    d.{slot} = {given.get(slot, 'state.' + slot)}" for slot in _Slots.__slots__]
    lines += ["    d.__class__ = State" if seal else "", "    return d"]
    namespace: dict[str, Any] = {"_Draft": _Draft, "State": State}
    exec("\n".join(lines), namespace)  # noqa: S102  # our own text, built from the slot names above
    func = namespace[name]
    func.__doc__, func.__module__, func.__qualname__ = doc, __name__, name
    return func


if TYPE_CHECKING:

    def _draft(state: State) -> Any: ...

else:
    _draft = _copier(
        "_draft",
        "state",
        {"kernel": "None", "moves_memo": "None"},
        "A writable copy of ``state`` (every slot, the compact forms included) to change and turn into a State.",
        seal=False,
    )


def evolve(state: State, **changes: Any) -> State:
    """``state`` with some public fields changed (``dataclasses.replace`` for a State). Fields held in compact
    form stay so; the kernel is dropped (it is rebuilt from the fields if the state is played on)."""
    d = _draft(state)
    for name, value in changes.items():
        if name not in FIELDS:
            raise TypeError(f"State has no field {name!r}")
        setattr(d, "_" + name if name in _LAZY else name, value)
    d.__class__ = State
    return d  # type: ignore[no-any-return]


if TYPE_CHECKING:

    def successor(
        state: State,
        source: Source,
        turn: int,
        drawn: int,
        extra_play: bool,
        boneyard: tuple[Tile, ...],
        scores: tuple[int, ...],
        round_points: tuple[int, ...],
        moves: tuple[Move, ...] | None,
    ) -> State: ...

else:
    successor = _copier(
        "successor",
        "state, source, turn, drawn, extra_play, boneyard, scores, round_points, moves",
        {
            "_hands": "None",
            "boneyard": "boneyard",
            "_board": "None",
            "turn": "turn",
            "scores": "scores",
            "drawn": "drawn",
            "extra_play": "extra_play",
            "_log": "None",
            "round_points": "round_points",
            "_source": "source",
            "kernel": "source",
            "moves_memo": "moves",
        },
        """The state after a move of the current round whose hands, board and log ``source`` gives (it is also
        the state's kernel) and whose legal moves are ``moves`` (None: listed when asked for): the rest of the
        round (rules, deal, records) is carried over. The engine's hottest constructor: generated, so the
        carried slots are copied inline (no call to ``_draft`` a move).""",
        seal=True,
    )

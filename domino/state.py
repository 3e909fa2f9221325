"""The game state and the records it keeps: immutable values, so a failed move can never corrupt one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Union

from domino.moves import Move
from domino.rules import Rules
from domino.tiles import Tile

# An oriented tile on the table: (half touching the inner neighbour, outer half).
Placed = tuple[int, int]


def placed_str(p: Placed) -> str:
    return f"{p[0]}-{p[1]}"


@dataclass(frozen=True, slots=True)
class Deal:
    """A round's deal: ``hands[i]`` is seat i's hand; ``boneyard`` the rest in draw order (top first)."""

    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"hands": [[str(t) for t in h] for h in self.hands], "boneyard": [str(t) for t in self.boneyard]}


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
            "hands": [[str(t) for t in h] for h in self.hands],
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
    """How the match ended: ``reason`` is target_score, fixed_rounds, resigned or aborted."""

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


@dataclass(frozen=True, slots=True)
class State:
    """One moment of a match. Never mutated: every step returns a new State."""

    rules: Rules
    seed: str
    round: int
    deal: Deal  # this round's deal, revealed when the game ends
    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...]
    board: Board
    turn: int
    scores: tuple[int, ...]
    lead: Tile | None = None  # the tile the opener must lead (None: any tile)
    opened_by_rule: bool = True  # the round was opened under starting_rule (extra play applies)
    drawn: int = 0  # draws in the current turn
    extra_play: bool = False  # the opener's optional extra tile is pending
    log: tuple[LogEntry, ...] = ()
    rounds: tuple[RoundResult, ...] = ()
    outcome: Outcome | None = None
    round_points: tuple[int, ...] = ()  # points scored during play in this round (All Fives)
    variant: Any = None  # variant-specific turn state (Mexican Train)
    last_round: RoundResult | None = None  # the latest finished round (``rounds[-1]`` when the records are held)
    # ``rounds`` holds every finished round's record (False for a state loaded from its live document alone).
    has_records: bool = True
    # The legal moves, filled in by the first ``domino.legal_moves`` call; not part of the state's value.
    moves_memo: tuple[Move, ...] | None = field(default=None, init=False, compare=False, repr=False)

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

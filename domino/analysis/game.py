"""A finished game analysed move by move (docs/analysis.md): its record replayed through the engine, and at
every move where the mover had a choice, every legal move valued from the mover's information then.

    for position in positions(record):          # the moves with a choice, in the game's order
        moved = analyse_position(record["id"], position)
    done = analyse(record)                        # all of it: GameAnalysis(moves, seats)

Each position's values are seeded from the game id and the move's version (:func:`position_rng`), so a move's
analysis does not depend on which other moves were analysed before it: an analysis can stop and resume
anywhere and gives the same answer.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from domino.analysis.values import DEFAULT_NODES, MoveValue, move_values
from domino.engine import legal_moves, new_game, resolve, step
from domino.moves import Move, parse_move
from domino.notation.acts import acts_of
from domino.rules import Rules
from domino.state import State
from domino.views import View, view

__all__ = [
    "ACCURATE_LOSS", "GameAnalysis", "MoveAnalysis", "Position", "SeatSummary", "analyse", "analyse_position",
    "position_rng", "positions", "summarise",
]  # fmt: skip

ACCURATE_LOSS = 0.5  # a move losing at most this many points counts as accurate
_MOVES = ("play", "draw", "pass")


@dataclass(frozen=True, slots=True)
class Position:
    """A move with a choice: the commit's ``version``, the mover, the move it made, the full state before it
    (every hand: the mover's ``view`` is what it saw), and each side's points so far in the round."""

    version: int
    seat: int
    played: Move
    state: State
    view: View
    round_points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MoveAnalysis:
    """One analysed move: every legal move's value (``values``, in ``legal_moves`` order), the best one (the
    first of the highest value) and the points the move played lost against it (never negative)."""

    version: int
    seat: int
    played: Move
    best: Move
    values: tuple[MoveValue, ...]
    loss: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "seat": self.seat,
            "played": self.played.to_dict(),
            "best": self.best.to_dict(),
            "values": [v.to_dict() for v in self.values],
            "loss": self.loss,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MoveAnalysis:
        values = tuple(MoveValue(parse_move(v["move"]), float(v["value"])) for v in d["values"])
        return cls(int(d["version"]), int(d["seat"]), parse_move(d["played"]), parse_move(d["best"]), values,
                   float(d["loss"]))  # fmt: skip


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """A seat's moves with a choice: how many, their mean loss, and the percentage of them with a loss of at
    most :data:`ACCURATE_LOSS` (None for both when the seat had no choice all game)."""

    seat: int
    count: int
    mean_loss: float | None
    accuracy: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "count": self.count, "mean_loss": self.mean_loss, "accuracy": self.accuracy}


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    moves: tuple[MoveAnalysis, ...]
    seats: tuple[SeatSummary, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"moves": [m.to_dict() for m in self.moves], "seats": [s.to_dict() for s in self.seats]}


def positions(record: dict[str, Any]) -> Iterator[Position]:
    """The moves with a choice (more than one legal move) of a revealed game record (its history document
    once the game is over: ``seed`` and ``rules`` known), in the game's order."""
    state = new_game(_rules(record), seed=str(record["seed"]), deal_version=record.get("deal_version", 1))
    for act in acts_of(record):
        if act.kind not in _MOVES or state.outcome is not None:
            if act.kind in ("resign", "end"):
                return
            continue
        move = parse_move({"type": act.kind, "tile": act.tile, "end": act.end})
        seat = state.turn
        if len(legal_moves(state)) > 1:
            points = state.round_points[: state.rules.sides]  # side k's are its first seat's, seat k's
            yield Position(act.version, seat, resolve(state, move), state, view(state, seat), points)
        state = step(state, move, seat=act.seat)[0]


def position_rng(game_id: str, version: int) -> random.Random:
    """The random numbers of one position's analysis: from the game id and the move's version only."""
    return random.Random(f"analysis:{game_id}:{version}")


def analyse_position(game_id: str, position: Position, nodes: int = DEFAULT_NODES) -> MoveAnalysis:
    """One move analysed (deterministic for the game id, the version and ``nodes``)."""
    rng = position_rng(game_id, position.version)
    values = move_values(position.view, rng, nodes, position.round_points)
    best = max(values, key=lambda v: v.value)  # the first of the highest
    played = next(v for v in values if v.move == position.played)
    loss = round(max(0.0, best.value - played.value), 2)
    return MoveAnalysis(position.version, position.seat, position.played, best.move, values, loss)


def summarise(moves: Sequence[MoveAnalysis], players: int) -> tuple[SeatSummary, ...]:
    """Every seat's count, mean loss and accuracy over its analysed moves."""
    out = []
    for seat in range(players):
        losses = [m.loss for m in moves if m.seat == seat]
        if not losses:
            out.append(SeatSummary(seat, 0, None, None))
            continue
        accurate = sum(1 for x in losses if x <= ACCURATE_LOSS)
        out.append(SeatSummary(seat, len(losses), round(sum(losses) / len(losses), 3),
                               round(100.0 * accurate / len(losses), 1)))  # fmt: skip
    return tuple(out)


def analyse(record: dict[str, Any], nodes: int = DEFAULT_NODES) -> GameAnalysis:
    """The whole game analysed: every move with a choice, and every seat's summary."""
    moves = tuple(analyse_position(str(record["id"]), p, nodes) for p in positions(record))
    return GameAnalysis(moves, summarise(moves, _rules(record).players))


def _rules(record: dict[str, Any]) -> Rules:
    return Rules.from_dict(record["rules"])

"""Mexican Train's table (docs/rules.md#mexican_train): the hub with the engine double, one personal train per seat, the
Mexican train, and the turn state (markers, uncovered doubles, first turns, the turn's phase)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from domino.state import Placed
from domino.tiles import Tile

MEXICAN = "mexican"
PHASES = ("start", "sequence", "follow")


def train_name(seat: int) -> str:
    return f"train:{seat}"


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


def turn_to_dict(v: Any) -> dict[str, Any]:
    assert isinstance(v, TrainTurn)
    return {"markers": list(v.markers), "pending": list(v.pending), "first_turn": list(v.first_turn), "phase": v.phase}


def turn_from_dict(d: Mapping[str, Any]) -> TrainTurn:
    return TrainTurn(
        markers=tuple(bool(m) for m in d["markers"]),
        pending=tuple(str(n) for n in d["pending"]),
        first_turn=tuple(int(s) for s in d["first_turn"]),
        phase=str(d["phase"]),
    )



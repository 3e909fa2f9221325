"""The three atomic moves (docs/rules.md#seats-turns-and-moves) and their JSON form."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Union

from domino.errors import InvalidMoveError
from domino.tiles import Tile

LINE_ENDS = ("left", "right", "up", "down")
END_PATTERN = r"^(left|right|up|down|mexican|train:[0-9]{1,2})$"  # also published in the OpenAPI document
_END = re.compile(END_PATTERN)


@dataclass(frozen=True, slots=True)
class Play:
    """Lay ``tile`` at ``end``; ``end`` is None for a round's opening tile (or to let the engine pick)."""

    tile: Tile
    end: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "play", "tile": str(self.tile)}
        if self.end is not None:
            d["end"] = self.end
        return d

    def __str__(self) -> str:
        return f"play {self.tile}" + (f" {self.end}" if self.end else "")


@dataclass(frozen=True, slots=True)
class Draw:
    def to_dict(self) -> dict[str, Any]:
        return {"type": "draw"}

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class Pass:
    def to_dict(self) -> dict[str, Any]:
        return {"type": "pass"}

    def __str__(self) -> str:
        return "pass"


Move = Union[Play, Draw, Pass]


def valid_end(end: object) -> bool:
    """Whether ``end`` names a place at all: left, right, up, down, mexican or train:<seat>."""
    return isinstance(end, str) and _END.fullmatch(end) is not None

DRAW = Draw()
PASS = Pass()


def end_order(end: str | None) -> tuple[int, int]:
    """Sort key for ends: opening, line ends, spinner arms, then trains by seat, then mexican."""
    if end is None:
        return (0, 0)
    if end in LINE_ENDS:
        return (1, LINE_ENDS.index(end))
    if end.startswith("train:"):
        return (2, int(end[6:]))
    return (3, 0)


def move_key(move: Move) -> tuple[int, int, int, tuple[int, int]]:
    """Deterministic order of legal moves: plays by tile then end, then draw, then pass."""
    if isinstance(move, Play):
        return (0, move.tile.high, move.tile.low, end_order(move.end))
    return (1 if isinstance(move, Draw) else 2, 0, 0, (0, 0))


def parse_move(data: Any) -> Move:
    """Build a move from its JSON form; raises InvalidMoveError on anything malformed."""
    if not isinstance(data, dict):
        raise InvalidMoveError("a move is an object with a 'type'")
    kind = data.get("type")
    if kind == "draw":
        return DRAW
    if kind == "pass":
        return PASS
    if kind != "play":
        raise InvalidMoveError("'type' must be 'play', 'draw' or 'pass'")
    tile = Tile.parse(data.get("tile"))  # type: ignore[arg-type]
    end = data.get("end")
    if end is not None and not valid_end(end):
        raise InvalidMoveError("'end' must be left, right, up, down, mexican or train:<seat>")
    return Play(tile, end)

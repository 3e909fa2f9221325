"""Tiles and sets (docs/rules.md#tiles-and-sets)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

from domino.errors import InvalidMoveError
from domino.rules import MAX_SET

_TILE_TEXT = re.compile(r"^\s*(\d{1,2})\s*[-|]\s*(\d{1,2})\s*$", re.ASCII)  # ASCII: "٥-٥" is no tile
_PARSED: dict[str, Tile] = {}  # text -> tile, for the canonical and oriented texts of the sets in play
# "a-b" for every pair of halves of the sets in play, either order (an oriented tile on the table too).
_TEXTS = tuple(tuple(f"{a}-{b}" for b in range(MAX_SET + 1)) for a in range(MAX_SET + 1))


class Tile:
    """A domino tile, always kept canonical: ``Tile(4, 6) == Tile(6, 4)``, printed ``6-4``."""

    __slots__ = ("high", "low")
    high: int
    low: int

    def __init__(self, a: int, b: int) -> None:
        if a < b:
            a, b = b, a
        object.__setattr__(self, "high", a)
        object.__setattr__(self, "low", b)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Tile is immutable")

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Parse ``"6-4"`` (either order; ``6|4`` too). Raises InvalidMoveError."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"a tile is written like '6-4', not {text!r}")
        tile = _PARSED.get(text) if cls is Tile else None
        if tile is not None:
            return tile  # tiles are immutable: loading a stored game parses the same few strings many times
        m = _TILE_TEXT.match(text)
        if m is None:
            raise InvalidMoveError(f"a tile is written like '6-4', not {text[:20]!r}")
        tile = cls(int(m.group(1)), int(m.group(2)))
        if cls is Tile and len(_PARSED) < 1024:
            _PARSED[text] = tile
        return tile

    @property
    def is_double(self) -> bool:
        return self.high == self.low

    @property
    def pips(self) -> int:
        return self.high + self.low

    def has(self, value: int) -> bool:
        return self.high == value or self.low == value

    def other(self, value: int) -> int:
        """The half opposite the given half (the new open end after matching ``value``)."""
        return self.low if self.high == value else self.high

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tile) and self.high == other.high and self.low == other.low

    def __lt__(self, other: Tile) -> bool:
        return (self.high, self.low) < (other.high, other.low)

    def __hash__(self) -> int:
        return self.high * 64 + self.low

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"

    def __repr__(self) -> str:
        return f"Tile.parse({str(self)!r})"

    def __reduce__(self) -> tuple[type[Tile], tuple[int, int]]:
        return (Tile, (self.high, self.low))


def texts(tiles: Iterable[Tile]) -> list[str]:
    """The tiles' texts, as ``str`` writes them, for tiles of a set in play. A table lookup: ``str`` calls
    ``__str__`` in Python for each tile, about 8× the instructions, and a stored state has a hundred or more."""
    return [_TEXTS[t.high][t.low] for t in tiles]


def text(tile: Tile) -> str:
    """One tile's text, as :func:`texts`."""
    return _TEXTS[tile.high][tile.low]


def halves_text(a: int, b: int) -> str:
    """``"a-b"`` for two halves of a set in play, in that order (an oriented tile on the table)."""
    return _TEXTS[a][b]


@lru_cache(maxsize=32)
def full_set(max_pips: int) -> tuple[Tile, ...]:
    """The double-n set in canonical order: 0-0, 1-0, 1-1, 2-0, ... n-n."""
    return tuple(Tile(a, b) for a in range(max_pips + 1) for b in range(a + 1))


def rank(tile: Tile) -> tuple[int, int, int]:
    """Opening rank (docs/rules.md#the-line-games): doubles first by value, then pip sum, then the higher half."""
    return (1 if tile.is_double else 0, tile.pips, tile.high)


def hand_pips(hand: tuple[Tile, ...], double_blank_value: int = 0) -> int:
    total = 0
    if not double_blank_value:  # the double blank counts its 0 pips: no test a tile (once a round end)
        for t in hand:
            total += t.high + t.low
        return total
    for t in hand:
        total += double_blank_value if (t.high == 0 and t.low == 0) else t.high + t.low
    return total

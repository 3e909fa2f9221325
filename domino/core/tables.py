"""Per-set lookup tables for the fast core: a tile is its index in ``full_set`` order, a hand an int bitmask.

``full_set`` is sorted by (high, low), which is also the order ``moves.move_key`` sorts plays by, so
walking a hand's bits from low to high visits tiles in legal-move order.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from domino.tiles import Tile, full_set, rank


class Tables(NamedTuple):
    max_pips: int
    tiles: tuple[Tile, ...]  # index -> Tile
    high: tuple[int, ...]
    low: tuple[int, ...]
    pips: tuple[int, ...]  # high + low; also "the other half" is pips[t] - v
    double: tuple[bool, ...]
    value_mask: tuple[int, ...]  # value v -> mask of the tiles with a half v
    double_mask: int
    all_mask: int  # every tile of the set
    bit: tuple[int, ...]  # 1 << index
    by_rank: tuple[int, ...]  # tile indices, best opening rank first (docs/rules.md#the-line-games)
    index_of: dict[Tile, int]


@lru_cache(maxsize=32)
def tables(max_pips: int) -> Tables:
    tiles = full_set(max_pips)
    masks = [0] * (max_pips + 1)
    for i, t in enumerate(tiles):
        masks[t.high] |= 1 << i
        masks[t.low] |= 1 << i
    return Tables(
        max_pips=max_pips,
        tiles=tiles,
        high=tuple(t.high for t in tiles),
        low=tuple(t.low for t in tiles),
        pips=tuple(t.pips for t in tiles),
        double=tuple(t.is_double for t in tiles),
        value_mask=tuple(masks),
        bit=tuple(1 << i for i in range(len(tiles))),
        double_mask=sum(1 << i for i, t in enumerate(tiles) if t.is_double),
        all_mask=(1 << len(tiles)) - 1,
        by_rank=tuple(sorted(range(len(tiles)), key=lambda i: rank(tiles[i]), reverse=True)),
        index_of={t: i for i, t in enumerate(tiles)},
    )


def index(tile: Tile) -> int:
    """A tile's index in ``full_set`` order, the same in every set (cheaper than hashing the tile)."""
    return tile.high * (tile.high + 1) // 2 + tile.low


def mask_of(tiles: tuple[Tile, ...] | list[Tile], tab: Tables) -> int:
    m = 0
    for t in tiles:
        m |= 1 << t.high * (t.high + 1) // 2 + t.low  # index(t), inlined
    return m


def tiles_of(mask: int, tab: Tables) -> tuple[Tile, ...]:
    """The tiles of a hand mask, highest first (the public engine's hand order)."""
    tiles = tab.tiles
    out = []
    while mask:
        i = mask.bit_length() - 1
        out.append(tiles[i])
        mask ^= 1 << i
    return tuple(out)


def pip_counts(hands: list[int], tab: Tables) -> tuple[int, ...]:
    """The pips of each hand mask."""
    pips = tab.pips
    out = []
    for mask in hands:
        total = 0
        while mask:
            bit = mask & -mask
            total += pips[bit.bit_length() - 1]
            mask ^= bit
        out.append(total)
    return tuple(out)

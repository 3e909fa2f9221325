"""Chance from the game's seed, portable and checkable (DESIGN.md §2).

Number i of a purpose in round r is drawn from SHA-256("<seed>|<r>|<purpose>|<i>|<attempt>") by rejection
sampling: the first 8 bytes as a big-endian integer, rejected while they fall in the incomplete last block,
so every value is exactly uniform. Anyone can redo a deal in any language once the seed is revealed.
"""

from __future__ import annotations

import hashlib
from typing import Sequence, TypeVar

T = TypeVar("T")
_SPACE = 1 << 64


def uniform(seed: str, round_no: int, purpose: str, i: int, n: int) -> int:
    """A uniform integer in [0, n) for draw number ``i`` of ``purpose`` in round ``round_no``."""
    limit = _SPACE - _SPACE % n
    attempt = 0
    while True:
        digest = hashlib.sha256(f"{seed}|{round_no}|{purpose}|{i}|{attempt}".encode()).digest()
        x = int.from_bytes(digest[:8], "big")
        if x < limit:
            return x % n
        attempt += 1


def shuffled(items: Sequence[T], seed: str, round_no: int, purpose: str) -> list[T]:
    """Fisher–Yates: for k = len-1 down to 1, swap k with j = uniform(k + 1), where draw i counts from 0."""
    out = list(items)
    for i, k in enumerate(range(len(out) - 1, 0, -1)):
        j = uniform(seed, round_no, purpose, i, k + 1)
        out[k], out[j] = out[j], out[k]
    return out

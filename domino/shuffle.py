"""Chance from the game's seed, portable and checkable (DESIGN.md §2).

Number i of a purpose in round r is drawn from SHA-256("<seed>|<r>|<purpose>|<i>|<attempt>") by rejection
sampling: the first 8 bytes as a big-endian integer, rejected while they fall in the incomplete last block,
so every value is exactly uniform. Anyone can redo a deal in any language once the seed is revealed.
"""

from __future__ import annotations

import hashlib
import struct
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
    return [items[i] for i in permutation(len(items), seed, round_no, purpose)]


def permutation(n: int, seed: str, round_no: int, purpose: str) -> list[int]:
    """``shuffled(range(n), ...)``. The fast core deals with it once per round, so it hashes exactly the
    bytes :func:`uniform` hashes, but builds them from a shared prefix and pre-encoded suffixes."""
    out = list(range(n))
    prefix = f"{seed}|{round_no}|{purpose}|".encode()
    sha256 = hashlib.sha256
    unpack = _unpack_u64
    for i in range(n - 1):
        m = n - i  # draw i chooses j in [0, k] for k = n - 1 - i
        suffix = _SUFFIX[i] if i < _TABLED else b"%d|0" % i
        x = unpack(sha256(prefix + suffix).digest())[0]
        # Attempt 0 is accepted unless it falls in the incomplete last block (odds m / 2**64).
        j = x % m if m < _TABLED and x < _LIMIT[m] else uniform(seed, round_no, purpose, i, m)
        k = m - 1
        out[k], out[j] = out[j], out[k]
    return out


_TABLED = 256
_SUFFIX = tuple(b"%d|0" % i for i in range(_TABLED))  # "<i>|<attempt 0>"
_LIMIT = tuple(_SPACE - _SPACE % m if m else 0 for m in range(_TABLED))
_unpack_u64 = struct.Struct(">Q").unpack_from  # the first 8 bytes, big-endian

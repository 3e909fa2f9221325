"""Chance from the game's seed, portable and checkable.

Number i of a purpose in round r is drawn from SHA-256("<seed>|<r>|<purpose>|<i>|<attempt>") by rejection
sampling: the first 8 bytes as a big-endian integer, rejected while they fall in the incomplete last block,
so every value is exactly uniform. Anyone can redo a deal in any language once the seed is revealed.
"""

from __future__ import annotations

import hashlib
import struct
from functools import lru_cache
from typing import Sequence, TypeVar

T = TypeVar("T")
_SPACE = 1 << 64


def uniform(seed: str, round_no: int, purpose: str, i: int, n: int) -> int:
    """A uniform integer in [0, n) for draw number ``i`` of ``purpose`` in round ``round_no``."""
    limit = _SPACE - _SPACE % n
    attempt = 0
    while True:
        digest = _sha256(f"{seed}|{round_no}|{purpose}|{i}|{attempt}".encode()).digest()
        x = int.from_bytes(digest[:8], "big")
        if x < limit:
            return x % n
        attempt += 1


def shuffled(items: Sequence[T], seed: str, round_no: int, purpose: str, unordered: int = 0) -> list[T]:
    """Fisher–Yates: for k = len-1 down to 1, swap k with j = uniform(k + 1), where draw i counts from 0
    (the first ``unordered`` items in no particular order: see :func:`permutation`)."""
    return [items[i] for i in permutation(len(items), seed, round_no, purpose, unordered)]


def permutation(n: int, seed: str, round_no: int, purpose: str, unordered: int = 0) -> list[int]:
    """``shuffled(range(n), ...)``. The fast core deals with it once per round, so it hashes exactly the
    bytes :func:`uniform` hashes, but builds them from a shared prefix and a per-size plan.

    A deal sorts its first hand, so the order of the first ``unordered`` positions does not matter to it:
    the draws for k < ``unordered`` only swap them among themselves, and are skipped. Every other position,
    and which items the first ``unordered`` hold, are those of the whole shuffle."""
    out = list(range(n))
    prefix = f"{seed}|{round_no}|{purpose}|".encode()
    sha256 = _sha256
    unpack = _unpack_u64
    for i, (suffix, m, limit) in enumerate(_plan(n)[: max(0, n - unordered)]):
        x = unpack(sha256(prefix + suffix).digest())[0]
        # Attempt 0 is accepted unless it falls in the incomplete last block (odds m / 2**64).
        j = x % m if x < limit else uniform(seed, round_no, purpose, i, m)
        k = m - 1
        out[k], out[j] = out[j], out[k]
    return out


@lru_cache(maxsize=64)
def _plan(n: int) -> tuple[tuple[bytes, int, int], ...]:
    """Per draw i of a shuffle of n: the message suffix "<i>|<attempt 0>", the range m, the rejection limit."""
    return tuple((b"%d|0" % i, n - i, _SPACE - _SPACE % (n - i)) for i in range(n - 1))


_unpack_u64 = struct.Struct(">Q").unpack_from  # the first 8 bytes, big-endian

# CPython's built-in SHA-256 has less per-call overhead than OpenSSL's for these tiny messages; the
# digest is the same. Not every build ships it under this name, hence the fallback.
try:
    from _sha2 import sha256 as _sha256  # type: ignore[import-not-found,unused-ignore]  # Python 3.12+
except ImportError:
    try:
        from _sha256 import sha256 as _sha256  # type: ignore[import-not-found,no-redef,unused-ignore]  # 3.11
    except ImportError:
        _sha256 = hashlib.sha256

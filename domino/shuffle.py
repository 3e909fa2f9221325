"""Chance from the game's seed, portable and checkable, in two deal versions (docs/engine.md#deal-versions).

Version 1: number i of a purpose in round r is drawn from SHA-256("<seed>|<r>|<purpose>|<i>|<attempt>") by
rejection sampling: the first 8 bytes as a big-endian integer, rejected while they fall in the incomplete
last block, so every value is exactly uniform. Version 2 (new games): each (round, purpose) reads one
SHAKE-256 stream as 32-bit little-endian words, with the same rejection sampling; one hash a round instead of
one a draw. Anyone can redo a deal in any language once the seed is revealed; a game keeps its version.
"""

from __future__ import annotations

import hashlib
import struct
from functools import lru_cache
from typing import Any, Callable, Sequence, TypeVar

from domino.errors import InvalidDealError

T = TypeVar("T")
_SPACE = 1 << 64
_SPACE32 = 1 << 32
DEAL_VERSIONS = (1, 2)
DEAL_VERSION = 2  # what new games deal by


def uniform(seed: str, round_no: int, purpose: str, i: int, n: int) -> int:
    """Version 1: a uniform integer in [0, n) for draw number ``i`` of ``purpose`` in round ``round_no``."""
    limit = _SPACE - _SPACE % n
    attempt = 0
    while True:
        digest = _sha256(f"{seed}|{round_no}|{purpose}|{i}|{attempt}".encode()).digest()
        x = int.from_bytes(digest[:8], "big")
        if x < limit:
            return x % n
        attempt += 1


def permutation(n: int, seed: str, round_no: int, purpose: str, unordered: int = 0) -> list[int]:
    """Version 1's Fisher–Yates: for k = len-1 down to 1, swap k with j = uniform(k + 1), where draw i counts
    from 0. The fast core deals with it once per round, so it hashes exactly the
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


# -- deal version 2: one SHAKE-256 stream per (round, purpose) ---------------------------------------------


def stream_message(seed: str, round_no: int, purpose: str) -> bytes:
    """What the stream of ``purpose`` in round ``round_no`` hashes: the seed's UTF-8 bytes, the version byte
    0x02, then the ASCII text "<round>|<purpose>". The last 0x02 of a message splits it: the label after it
    never holds one, so no two (seed, round, purpose) share a stream."""
    return b"%s\x02%d|%s" % (seed.encode(), round_no, purpose.encode())


class Stream:
    """The 32-bit little-endian words of one stream, read in order. SHAKE-256 is an extendable-output
    function: its first L bytes are the same whatever length is asked for, so a reader that runs short
    (after rejections) asks for a longer output and reads on where it stopped."""

    __slots__ = ("_xof", "words")

    def __init__(self, seed: str, round_no: int, purpose: str, count: int) -> None:
        self._xof = _shake256(stream_message(seed, round_no, purpose))
        self.words = _words(self._xof, count)

    def at_least(self, count: int) -> tuple[int, ...]:
        """The stream's first ``count`` words or more."""
        if len(self.words) < count:
            self.words = _words(self._xof, max(count, 2 * len(self.words)))
        return self.words


def draws(seed: str, round_no: int, purpose: str, ranges: Sequence[int]) -> list[int]:
    """The first draws of a stream, draw t uniform in [0, ranges[t]): each takes the next word x, accepted
    when x < 2**32 - 2**32 % n (then the draw is x % n), else skipped for the word after it."""
    stream = Stream(seed, round_no, purpose, len(ranges))
    return _drawn(stream, tuple((n, _SPACE32 - _SPACE32 % n) for n in ranges))


def permutation2(n: int, seed: str, round_no: int, purpose: str, unordered: int = 0) -> list[int]:
    """:func:`permutation` in version 2: the same Fisher–Yates (for k = n-1 down to 1, swap k with a draw
    below k + 1), its draws read in order from the stream of (round, purpose); the draws for k < ``unordered``
    come last in the stream, so skipping them changes no other. The engine deals with it once per round: one
    hash, then each word is a draw unless it falls in the incomplete last block."""
    count, unpack, plan = _shuffle_plan(n, unordered)
    words = unpack(_shake256(stream_message(seed, round_no, purpose)).digest(4 * count))
    out = list(range(n))
    for x, (m, limit) in zip(words, plan):
        if x >= limit:  # a skipped word (odds one in 26 million a double-six deal): later draws read on
            return _swapped(n, _drawn(Stream(seed, round_no, purpose, count), plan))
        j = x % m
        out[m - 1], out[j] = out[j], out[m - 1]
    return out


def _swapped(n: int, draws: list[int]) -> list[int]:
    """``range(n)`` after the Fisher–Yates swaps of ``draws`` (for k = n-1 down)."""
    out = list(range(n))
    for j, k in zip(draws, range(n - 1, 0, -1)):
        out[k], out[j] = out[j], out[k]
    return out


def _drawn(stream: Stream, plan: Plan32) -> list[int]:
    """A draw per (range, rejection limit) of ``plan``, read from ``stream``: a skipped word moves every later
    draw one word on, and the stream is extended when they run past the words read."""
    words = stream.words
    w = 0
    out = []
    for m, limit in plan:
        x = words[w]
        w += 1
        while x >= limit:  # odds below m / 2**32: the draw takes the next word instead
            words = stream.at_least(w + len(plan))
            x = words[w]
            w += 1
        out.append(x % m)
    return out


Plan32 = tuple[tuple[int, int], ...]  # per draw: the range m and its rejection limit among 32-bit words


@lru_cache(maxsize=256)
def _shuffle_plan(n: int, unordered: int) -> tuple[int, Callable[[bytes], tuple[int, ...]], Plan32]:
    """A version 2 shuffle of n that skips the draws for k < ``unordered``: its number of draws, the unpacker
    of that many words, and each draw's range and rejection limit."""
    plan = tuple((m, _SPACE32 - _SPACE32 % m) for m in range(n, 1, -1))[: max(0, n - unordered)]
    return len(plan), _unpack_words(len(plan)), plan


@lru_cache(maxsize=64)
def _unpack_words(count: int) -> Callable[[bytes], tuple[int, ...]]:
    return struct.Struct(f"<{count}I").unpack


def _words(xof: Any, count: int) -> tuple[int, ...]:
    return _unpack_words(count)(xof.digest(4 * count))


_shake256 = hashlib.shake_256  # OpenSSL's where Python has it: less per call here than the built-in one


# -- either version --------------------------------------------------------------------------------------


def order(n: int, seed: str, round_no: int, purpose: str, deal_version: int, unordered: int = 0) -> list[int]:
    """``range(n)`` shuffled for (round, purpose) by deal version ``deal_version``."""
    if deal_version == 2:
        return permutation2(n, seed, round_no, purpose, unordered)
    return permutation(n, seed, round_no, purpose, unordered)


def shuffled(
    items: Sequence[T], seed: str, round_no: int, purpose: str, deal_version: int, unordered: int = 0
) -> list[T]:
    """``items`` shuffled for (round, purpose) by deal version ``deal_version`` (see :func:`order`)."""
    return [items[i] for i in order(len(items), seed, round_no, purpose, deal_version, unordered)]


def first_draw(seed: str, round_no: int, purpose: str, n: int, deal_version: int) -> int:
    """The first draw below n of (round, purpose): a lot's seat."""
    if deal_version == 2:
        x = int.from_bytes(_shake256(stream_message(seed, round_no, purpose)).digest(4), "little")
        return x % n if x < _SPACE32 - _SPACE32 % n else draws(seed, round_no, purpose, (n,))[0]
    return uniform(seed, round_no, purpose, 0, n)


def check_version(deal_version: int) -> int:
    """``deal_version`` if the engine deals by it, else an InvalidDealError."""
    if type(deal_version) is not int or deal_version not in DEAL_VERSIONS:
        raise InvalidDealError(f"deal_version must be one of {', '.join(map(str, DEAL_VERSIONS))}")
    return deal_version

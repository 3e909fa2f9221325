"""The block games' round in the kernel: two ends, no drawing, no in-play scoring; the benchmarks' hot loop."""

from __future__ import annotations

from typing import Callable

from domino.core.codes import LEFT, OPEN, PASS_CODE, RIGHT
from domino.core.tables import Tables


def block_round(
    tab: Tables,
    hands: list[int],
    opener: int,
    lead: int,
    is_random: tuple[bool, ...],
    bits: Callable[[int], int],
    log: list[int] | None,
) -> tuple[str, int, int]:
    """Play one block round in place on ``hands``: (end kind, seat that went out or -1, moves).

    The hot loop of the benchmarks, so it is written flat: ``a``/``b`` are the tiles of the hand that
    match the left/right end, and a random move is the k-th of (tile, end) in legal order.
    """
    M = tab.value_mask
    PIPS = tab.pips
    nxt = _NEXT[len(hands)]
    union = 0
    for h in hands:
        union |= h
    dealt = union.bit_count()
    passes = 0
    p = opener
    h = hands[p]
    # The opening: the lead, or any tile of the hand in index order.
    if lead >= 0:
        if is_random[p]:
            while bits(1):  # randrange(1): the random bot draws even for a forced move
                pass
        t = lead
    elif is_random[p]:
        n = h.bit_count()
        nb = _BITS[n]
        k = bits(nb)
        while k >= n:
            k = bits(nb)
        c = h
        while k:
            c &= c - 1
            k -= 1
        t = (c & -c).bit_length() - 1
    else:
        t, best, c = -1, -1, h
        while c:
            x = c & -c
            i = x.bit_length() - 1
            if PIPS[i] > best:
                best, t = PIPS[i], i
            c ^= x
    bit = 1 << t
    h ^= bit
    hands[p] = h
    union ^= bit
    left = tab.high[t]
    right = tab.low[t]
    ml = M[left]
    mr = M[right]
    if log is not None:
        log.append(t << 3 | OPEN)
    if not h:
        return "domino", p, 1
    if not union & (ml | mr):
        return "blocked", -1, 1
    p = nxt[p]
    while True:
        h = hands[p]
        a = h & ml
        b = h & mr
        if not (a or b):
            passes += 1
            if is_random[p]:
                while bits(1):
                    pass
            if log is not None:
                log.append(PASS_CODE)
            p = nxt[p]
            continue  # a pass changes nothing the blocked test reads
        if is_random[p]:
            n = a.bit_count() + b.bit_count()
            nb = _BITS[n]
            k = bits(nb)
            while k >= n:
                k = bits(nb)
            if not a & b:  # no tile fits both ends: the k-th matching tile, at the end it fits
                c = a | b
                while k:
                    c &= c - 1
                    k -= 1
                bit = c & -c
                at_left = bool(a & bit)
            elif left == right:  # every matching tile is two moves: left, then right
                c = a
                i = k >> 1
                while i:
                    c &= c - 1
                    i -= 1
                bit = c & -c
                at_left = not k & 1
            else:  # the tile left-right is in the hand: it alone is two moves
                c = a | b
                while True:
                    bit = c & -c
                    if a & bit:
                        if not k:
                            at_left = True
                            break
                        k -= 1
                    if b & bit:
                        if not k:
                            at_left = False
                            break
                        k -= 1
                    c ^= bit
        else:  # greedy: the heaviest tile, the first in legal order among equals
            c = a | b
            best = -1
            bit = 0
            while c:
                x = c & -c
                w = PIPS[x.bit_length() - 1]
                if w > best:
                    best, bit = w, x
                c ^= x
            at_left = bool(a & bit)
        t = bit.bit_length() - 1
        if at_left:
            left = PIPS[t] - left
            ml = M[left]
            if log is not None:
                log.append(t << 3 | LEFT)
        else:
            right = PIPS[t] - right
            mr = M[right]
            if log is not None:
                log.append(t << 3 | RIGHT)
        h ^= bit
        hands[p] = h
        union ^= bit
        if not h:
            return "domino", p, dealt - union.bit_count() + passes
        if not union & (ml | mr):
            return "blocked", -1, dealt - union.bit_count() + passes
        p = nxt[p]


_NEXT = tuple(tuple((i + 1) % n for i in range(n)) for n in range(11))  # players -> seat -> next seat
_BITS = tuple(n.bit_length() for n in range(1024))  # n -> bits drawn by randrange(n); n <= 4 * 190

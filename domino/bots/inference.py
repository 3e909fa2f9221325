"""What the other seats cannot hold, and exact sampling of the hidden tiles (for search bots).

Everything here reads only a seat's :class:`~domino.views.View`: its own hand, the board, the hand counts,
the boneyard and out-of-play counts and the round's public log. Nothing hidden is ever looked at.

**Inference.** Each other seat's hand is modelled as *slots*, one per tile it holds, each with a mask of
tiles it cannot be. A slot is made when the seat is dealt a tile or draws one. When the public log proves
the seat held none of the open values at some moment (it passed without an excuse, or it drew when drawing
was compulsory: docs/rules.md#the-line-games), every slot it holds at that moment forbids those values; a tile drawn later
is not constrained by it. A played tile removes the oldest slot it is compatible with: slot masks are
nested (older slots forbid a superset of what newer ones forbid), so this keeps exactly the set of
possible hands. The forced opening (``highest_double`` / ``highest_tile``) says no hand was dealt a tile
that ranks above the lead. Seats with identical slot masks form one *group*.

**Sampling.** The hidden tiles (not in the bot's hand, not on the board) go to the groups (capacity = the
number of slots) and to the *rest* (boneyard in draw order, then the out-of-play tiles). Tiles that are
allowed in the same groups form a class; the number of completions is counted exactly by dynamic
programming over the classes with the remaining capacities (multinomial coefficients inside a class), and
a sample is drawn class by class in proportion to those counts. The result is **exactly uniform** over all
tile-to-slot-group assignments consistent with the constraints: in the block game, and whenever every seat
has one group, that is uniform over consistent deals; with several groups per seat a deal is weighted by
the number of ways its tiles fit the groups (a close approximation). No rejection: the cost is bounded
by the number of classes and capacities, whatever the position. The uniform prior ignores how the other
seats chose their plays (a heavier-first player is likelier to keep light tiles); search tolerates that.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from math import factorial
from typing import Any

from domino.core.tables import Tables, tables
from domino.state import LineBoard, LogEntry
from domino.tiles import rank
from domino.variants import line_board as line

__all__ = ["Knowledge", "Sampler", "Tables", "infer", "tables"]


def bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@dataclass(slots=True)
class Knowledge:
    """What one seat knows: the hidden tiles, and per other seat its slot groups ``[(forbidden, count)]``."""

    seat: int
    tables: Tables
    hidden: int  # mask of the tiles the seat cannot see
    groups: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    rest: int = 0  # boneyard + out of play
    boneyard: int = 0
    exact: bool = True  # False when the log could not be replayed (fixture positions): constraints dropped

    def voids(self, seat: int) -> int:
        """Tiles that ``seat`` certainly does not hold (the mask every one of its slots forbids)."""
        gs = self.groups.get(seat, [])
        if not gs:
            return self.hidden
        m = self.tables.all_mask
        for f, _ in gs:
            m &= f
        return m & self.hidden


def knowledge_from_view(view: Any, tb: Tables) -> Knowledge:
    """What the seat knows before replaying the log: every tile neither in its hand nor on the table is hidden."""
    mine = 0
    for t in view.hand or ():
        mine |= 1 << tb.index_of[t]
    seen = 0
    for t in view.tiles_on_board:
        seen |= 1 << tb.index_of[t]
    hidden = tb.all_mask & ~mine & ~seen
    rest = view.boneyard_count + view.out_of_play_count
    return Knowledge(int(view.seat), tb, hidden, boneyard=view.boneyard_count, rest=rest)


def infer(view: Any) -> Knowledge:
    """What ``view.seat`` can deduce about the other hands (line games and, coarsely, Mexican Train)."""
    rules: dict[str, Any] = view.rules
    tb = tables(int(rules["set_max_pips"]))
    me = int(view.seat)
    players = len(view.hand_counts)
    know = knowledge_from_view(view, tb)
    slots: dict[int, list[int]] = {}
    ok = rules.get("variant") != "mexican_train" and _replay(view, rules, tb, slots)
    know.exact = ok
    for s in range(players):
        if s == me:
            continue
        sl = slots.get(s) if ok else None
        if sl is None or len(sl) != view.hand_counts[s]:
            sl = [0] * view.hand_counts[s]
            if ok:
                know.exact = False
        groups: dict[int, int] = {}
        for f in sl:
            f &= know.hidden
            groups[f] = groups.get(f, 0) + 1
        # oldest (most forbidding) first
        know.groups[s] = sorted(groups.items(), key=lambda g: -bin(g[0]).count("1"))
    return know


def _replay(view: Any, rules: dict[str, Any], tb: Tables, slots: dict[int, list[int]]) -> bool:
    """Replay the round's log into per-seat slot masks; False if the log does not explain the board."""
    spinner = rules.get("spinner") == "first_double"
    log: tuple[LogEntry, ...] = view.log
    plays = [e for e in log if e.type == "play"]
    if len(plays) != len(view.tiles_on_board):
        return False
    initial = _forbidden_at_deal(view, rules, tb, plays[0] if plays else None)
    for s in range(len(view.hand_counts)):
        if s != int(view.seat):
            slots[s] = [initial] * int(rules["hand_size"])
    may_draw = bool(rules.get("may_draw_when_playable"))
    drawn_may = rules.get("drawn_tile_play") == "may"
    extra = bool(rules.get("opener_extra_play"))
    board = LineBoard()
    drew_this_turn = False
    prev: LogEntry | None = None
    for k, e in enumerate(log):
        if prev is not None and prev.seat != e.seat:
            drew_this_turn = False
        s = e.seat
        sl = slots.get(s)
        open_mask = 0
        for _, v in line.open_ends(board):
            open_mask |= tb.value_mask[v]
        if e.type == "play":
            if e.tile is None:
                return False
            if sl is not None:
                ti = tb.index_of[e.tile]
                # the oldest compatible slot (slots are kept oldest first)
                for j, f in enumerate(sl):
                    if not f >> ti & 1:
                        del sl[j]
                        break
                else:
                    return False
            try:
                board = line.place(board, e.tile, e.end, spinner)
            except (IndexError, TypeError):
                return False
        elif e.type == "draw":
            if sl is not None:
                if not may_draw and board.line:
                    # compulsory: no placement before this draw (first draw, or drawn tile did not fit)
                    for j in range(len(sl)):
                        sl[j] |= open_mask
                sl.append(0)
            drew_this_turn = True
        elif e.type == "pass":
            excused = (drawn_may and drew_this_turn) or (
                extra and k == 1 and prev is not None and prev.seat == s and prev.type == "play"
            )
            if sl is not None and not excused and board.line:
                for j in range(len(sl)):
                    sl[j] |= open_mask
        prev = e
    return True


def _forbidden_at_deal(view: Any, rules: dict[str, Any], tb: Tables, first: LogEntry | None) -> int:
    """The tiles no hand held when dealt (a mask): those outranking a lead that was forced, else none."""
    initial = 0
    if first is not None and _lead_was_forced(view, rules) and first.tile is not None:
        top = rank(first.tile)
        for i, t in enumerate(tb.tiles):
            if rank(t) > top:
                initial |= 1 << i
    return initial


def _lead_was_forced(view: Any, rules: dict[str, Any]) -> bool:
    """The round was opened under ``highest_double`` (the lead outranked every other dealt tile)."""
    if rules.get("starting_rule") != "highest_double":
        return False
    if rules.get("next_round_starter") == "previous_winner":
        last = view.last_round
        if last is not None and last.end == "domino":
            return False
    return True


class Sampler:
    """Exact sampling of the hidden tiles given :class:`Knowledge` (see the module docstring)."""

    def __init__(self, know: Knowledge) -> None:
        self.know = know
        holders: list[tuple[int, int, int]] = []  # (seat or -1 for rest, forbidden, capacity)
        for s, gs in sorted(know.groups.items()):
            for f, c in _cap_groups(gs):
                holders.append((s, f, c))
        hidden = bits(know.hidden)
        need = sum(c for _, _, c in holders)
        rest = len(hidden) - need
        if rest < 0:
            raise ValueError("hand counts exceed the hidden tiles")
        holders.append((-1, 0, rest))
        self.holders = holders
        classes: dict[int, list[int]] = {}
        for t in hidden:
            elig = 0
            for h, (_, f, _) in enumerate(holders):
                if not f >> t & 1:
                    elig |= 1 << h
            classes.setdefault(elig, []).append(t)
        # most constrained classes first: smaller branching near the root of the count
        self.classes = sorted(classes.items(), key=lambda kv: bin(kv[0]).count("1"))
        self._memo: dict[tuple[int, tuple[int, ...]], tuple[int, list[tuple[int, tuple[int, ...]]]]] = {}
        caps = tuple(c for _, _, c in holders)
        self.total = self._count(0, caps)
        if self.total == 0:
            # Inconsistent constraints (should not happen): drop them rather than fail.
            self.holders = [(s, 0, c) for s, _, c in holders]
            allh = (1 << len(holders)) - 1
            self.classes = [(allh, hidden)]
            self._memo = {}
            self.total = self._count(0, caps)
            self.know.exact = False
        self._caps = caps

    def _count(self, ci: int, caps: tuple[int, ...]) -> int:
        if ci == len(self.classes):
            return 1
        key = (ci, caps)
        got = self._memo.get(key)
        if got is not None:
            return got[0]
        elig, tiles_ = self.classes[ci]
        n = len(tiles_)
        hs = [h for h in range(len(caps)) if elig >> h & 1 and caps[h] > 0]
        options: list[tuple[int, tuple[int, ...]]] = []
        total = 0
        fn = factorial(n)
        for split in _splits(n, [caps[h] for h in hs]):
            nc = list(caps)
            w = fn
            for h, k in zip(hs, split):
                nc[h] -= k
                w //= factorial(k)
            sub = self._count(ci + 1, tuple(nc))
            if sub:
                total += w * sub
                options.append((total, tuple(split)))
        self._memo[key] = (total, options)
        return total

    def sample(self, rng: random.Random) -> tuple[dict[int, int], list[int]]:
        """One consistent completion: (seat -> mask of its hidden hand, rest tiles shuffled: boneyard first)."""
        caps = list(self._caps)
        hands: dict[int, int] = {s: 0 for s in self.know.groups}
        rest: list[int] = []
        for ci, (elig, tiles_) in enumerate(self.classes):
            total, options = self._memo[(ci, tuple(caps))]
            r = rng.randrange(total)
            lo_i, hi_i = 0, len(options) - 1
            while lo_i < hi_i:
                mid = (lo_i + hi_i) // 2
                if options[mid][0] > r:
                    hi_i = mid
                else:
                    lo_i = mid + 1
            split = options[lo_i][1]
            hs = [h for h in range(len(caps)) if elig >> h & 1 and caps[h] > 0]
            pool = list(tiles_)
            rng.shuffle(pool)
            pos = 0
            for h, k in zip(hs, split):
                caps[h] -= k
                chunk = pool[pos : pos + k]
                pos += k
                s = self.holders[h][0]
                if s < 0:
                    rest.extend(chunk)
                else:
                    m = hands[s]
                    for t in chunk:
                        m |= 1 << t
                    hands[s] = m
        rng.shuffle(rest)
        return hands, rest


def _cap_groups(gs: list[tuple[int, int]], limit: int = 3) -> list[tuple[int, int]]:
    """At most ``limit`` groups per seat: merge the newest ones (a sound relaxation: the newer mask)."""
    gs = list(gs)
    while len(gs) > limit:
        (f1, c1), (f2, c2) = gs[-2], gs[-1]
        gs[-2:] = [(f1 & f2, c1 + c2)]
    return gs


def _splits(n: int, caps: list[int]) -> list[list[int]]:
    """Every way to put n tiles into holders with these capacities (order as given)."""
    out: list[list[int]] = []
    if not caps:
        return out if n else [[]]
    room_after = [0] * (len(caps) + 1)
    for i in range(len(caps) - 1, -1, -1):
        room_after[i] = room_after[i + 1] + caps[i]
    if room_after[0] < n:
        return out
    cur: list[int] = []

    def rec(i: int, left: int) -> None:
        if i == len(caps) - 1:
            if left <= caps[i]:
                out.append(cur + [left])
            return
        lo = max(0, left - room_after[i + 1])
        for k in range(lo, min(caps[i], left) + 1):
            cur.append(k)
            rec(i + 1, left - k)
            cur.pop()

    rec(0, n)
    return out

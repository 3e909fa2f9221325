"""Mexican Train for the search levels: a train planner (docs/rules.md#mexican_train).

The planner finds, with a bounded depth-first search, the best chain of the seat's own tiles from its own
train's end (most pips, then most tiles): those tiles can be laid one a turn on a train nobody else may
touch while it is unmarked. Every legal move is scored by what it leaves: the pips *outside* the plan
(tiles that need someone else's open train or the Mexican train), the pips shed now, and whether the move
keeps the seat's own train private (an unmarked train keeps the plan safe; playing on one's own train
removes the marker). The first turn lays the plan's opening run. Doubles are laid when the seat can follow
them. It reads only the view; the time budget bounds the chain search (it never runs past the deadline).
"""

from __future__ import annotations

import random
import time
from typing import Any

from domino.bots.base import Budget
from domino.moves import Move, Play
from domino.tiles import Tile

_CHAIN_NODES = 1500


def _chain(hand: list[Tile], start: int, deadline: float | None) -> tuple[int, list[Tile]]:
    """The best run from ``start`` using hand tiles: (score, tiles in order). Score: pips*4 + count.

    Depth-first, doubles first, at most ``_CHAIN_NODES`` nodes and never past the deadline."""
    nodes = [0]
    best: tuple[int, list[Tile]] = (0, [])
    used = [False] * len(hand)
    path: list[Tile] = []

    def rec(v: int, score: int) -> None:
        nonlocal best
        nodes[0] += 1
        if score > best[0]:
            best = (score, list(path))
        if nodes[0] > _CHAIN_NODES or (deadline is not None and nodes[0] % 256 == 0 and time.monotonic() > deadline):
            return
        # doubles first: they must be followed, and they cost nothing to chain
        for i in sorted(range(len(hand)), key=lambda i: not hand[i].is_double):
            t = hand[i]
            if used[i] or not t.has(v):
                continue
            used[i] = True
            path.append(t)
            rec(t.other(v), score + 4 * t.pips + 1)
            path.pop()
            used[i] = False

    rec(start, 0)
    return best


def choose(view: Any, rng: random.Random, budget: Budget, deadline: float | None, bot: Any) -> Move:
    legal: tuple[Move, ...] = tuple(view.legal_moves)
    plays = [m for m in legal if isinstance(m, Play)]
    if not plays:
        return legal[0]
    me = int(view.seat)
    board = view.board
    trains = board["trains"]
    own_name = f"train:{me}"
    own = next(t for t in trains if t["owner"] == me)
    own_end = int(own["end"])
    own_marked = bool(own["marker"])
    hand = list(view.hand or ())
    phase = board.get("phase")
    dbv = int(view.rules.get("double_blank_value") or 0)

    def pip(t: Tile) -> int:
        return dbv if t.high == 0 and t.low == 0 else t.pips

    if phase in ("first", "sequence"):
        _, run = _chain(hand, own_end, deadline)
        if run:
            for m in plays:
                if m.tile == run[0]:
                    return m
        return max(plays, key=lambda m: (m.tile.is_double, pip(m.tile)))

    # Ends reachable by others' open trains and the Mexican train (besides one's own).
    other_ends = [int(t["end"]) for t in trains if t["owner"] != me and (t["marker"] or t["owner"] is None)]

    def value(rest: list[Tile], end: int) -> float:
        """What a hand is worth for the seat, higher is better: its plan and what the plan leaves out."""
        _, run = _chain(rest, end, deadline)
        planned = set(run)
        out = [t for t in rest if t not in planned]
        loose = sum(pip(t) for t in out)
        # a loose tile that fits an open end now is less of a worry
        fits = sum(1 for t in out if any(t.has(e) for e in other_ends))
        return -1.0 * loose - 2.0 * len(out) + 1.0 * fits - 0.3 * sum(pip(t) for t in run)

    scored: list[tuple[float, int, Play]] = []
    for i, m in enumerate(plays):
        rest = list(hand)
        rest.remove(m.tile)
        end_after = own_end
        if m.end == own_name:
            end_after = m.tile.other(own_end)
        s = value(rest, end_after)
        if m.end == own_name and own_marked:
            s += 6.0  # take the marker off: the plan is private again
        if m.tile.is_double:
            follow = any(t.has(m.tile.high) for t in rest)
            s += 5.0 if follow else 0.0
        s += 0.01 * rng.random()
        scored.append((s, -i, m))
    return max(scored)[2]

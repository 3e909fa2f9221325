"""Exact values of block-game positions with every hand known (alpha-beta), and what the search and the solver
share: a round's utility for a side and the candidate moves."""

from __future__ import annotations

import time

from domino.core.codes import LEFT, RIGHT
from domino.core.position import LineSim

WIN_BONUS = 10.0


def utility(sim: LineSim, side: int, bonus: float = WIN_BONUS) -> float:
    res = sim.result
    assert res is not None
    mine = res[side]
    other = max(r for i, r in enumerate(res) if i != side)
    d = mine - other
    return d + (bonus if d > 0 else -bonus if d < 0 else 0.0)


def candidates(sim: LineSim, legal: list[int]) -> list[int]:
    """Legal moves, with plays of one tile on two plain-line ends showing the same value merged."""
    if sim.cfg.all_fives or sim.cfg.spinner or sim.nopen != 2 or sim.ev[0] != sim.ev[1]:
        return legal
    seen: set[int] = set()
    out = []
    for mv in legal:
        if mv >= 0 and (mv & 7) in (LEFT, RIGHT):
            if mv >> 3 in seen:
                continue
            seen.add(mv >> 3)
        out.append(mv)
    return out


class Abort(Exception):
    pass


def endgame_ok(sim: LineSim) -> bool:
    """The exact solver handles two-sided block games (no boneyard, no in-play points, no spinner)."""
    cfg = sim.cfg
    return not cfg.draws and not cfg.all_fives and not cfg.spinner and cfg.sides == 2


def solve(
    sim: LineSim,
    side: int,
    limit: int,
    tt: dict[tuple[int, ...], tuple[float, int]] | None = None,
    deadline: float | None = None,
    bonus: float = WIN_BONUS,
) -> tuple[float, int]:
    """Exact value (as :func:`utility`) of a block-game position with every hand known: alpha-beta with
    a transposition table and heaviest-first move ordering; (value, nodes). Raises Abort past ``limit`` nodes."""
    if tt is None:
        tt = {}
    count = [0]
    pips = sim.tb.pips

    # Over 60 lines as one closure on purpose: it runs at every node of the search, where a call per node to a
    # helper would cost measurably (bench/strength.py counts nodes per second).
    def ab(s: LineSim, alpha: float, beta: float) -> float:
        if s.over:
            return utility(s, side, bonus)
        count[0] += 1
        if count[0] > limit or (deadline is not None and count[0] & 255 == 0 and time.monotonic() >= deadline):
            raise Abort
        a, b = s.ev[0], s.ev[1]
        if a > b:
            a, b = b, a
        key = (*s.hands, a, b, s.turn)
        hit = tt.get(key)
        a0 = alpha
        if hit is not None:
            v, flag = hit
            if flag == 0:
                return v
            if flag == 1 and v > alpha:
                alpha = v
            elif flag == 2 and v < beta:
                beta = v
            if alpha >= beta:
                return v
        moves = candidates(s, s.legal())
        if len(moves) > 1:
            moves.sort(key=lambda mv: -pips[mv >> 3] if mv >= 0 else 1)
        maximize = s.cfg.side[s.turn] == side
        best = -1e18 if maximize else 1e18
        for mv in moves:
            c = s.copy()
            c.apply(mv)
            v = ab(c, alpha, beta)
            if maximize:
                if v > best:
                    best = v
                if v > alpha:
                    alpha = v
            else:
                if v < best:
                    best = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        flag = 0 if a0 < best < beta else (1 if best >= beta else 2)
        tt[key] = (best, flag)
        return best

    return ab(sim, -1e18, 1e18), count[0]

"""The fair-play screen: did a seat choose, more often than an honest ``expert`` would have on the same
positions, moves that are best only to one who sees the hidden tiles? (docs/analysis.md#fair-play)

At each of the seat's choice positions (two legal moves or more) two sets of moves are compared: the moves
best from the seat's own information (the analysis's values) and the moves best to one who sees the other
hands but not the boneyard's order (:mod:`domino.analysis.omniscient`); a move within ``TOLERANCE`` points of
a set's best value is in it. A move *best only with the hidden tiles in sight* is in the second set and not in
the first. The seat's rate of such moves is compared with the rate of the honest ``expert``'s picks (at the
analysis budget, seeded) on the same positions.

The comparison is paired: on each position the seat and the expert each chose such a move or not, and only
the positions where exactly one of them did carry information (McNemar). If the seat plays like an honest
expert (whatever the hidden tiles, it chooses from what it saw, as the expert does), the seat is as likely
as the expert to be the one of the two that chose it: the number of such positions won by the seat is
binomial(m, 1/2). ``flag`` is the exact one-sided test at the 1% level, and the interval is the matching
exact (Clopper-Pearson) interval for the difference of the two rates, given m: 98% two-sided, so its lower
end is the one-sided 99% bound and ``flag`` is true exactly when that end is above 0.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from domino.analysis.omniscient import omniscient_values
from domino.bots import Budget, get
from domino.moves import Move
from domino.state import State
from domino.views import view

__all__ = ["LEVEL", "TOLERANCE", "Choice", "Screen", "best_moves", "choice", "hidden_only", "position_choice", "screen"]

TOLERANCE = 0.5  # points: a move this close to the best value counts as best (the analysis's accuracy bound)
LEVEL = 0.01  # the flag's significance level (one-sided)

Values = Sequence[tuple[Move, float]]


@dataclass(frozen=True, slots=True)
class Choice:
    """One choice position of a seat, as the screen reads it."""

    side: int  # the seat's scoring side (its team in a team game, else the seat)
    played: Move
    expert: Move  # the honest expert's pick on the same position, at the analysis budget
    hidden_only: tuple[Move, ...]  # the moves best only with the hidden tiles in sight (often none)

    @property
    def seat_took(self) -> bool:
        return self.played in self.hidden_only

    @property
    def expert_took(self) -> bool:
        return self.expert in self.hidden_only


@dataclass(frozen=True, slots=True)
class Screen:
    """The screen of a set of choice positions (one player's, or one team's)."""

    positions: int  # choice positions screened
    telling: int  # of which with a move best only with the hidden tiles in sight
    seat_count: int  # positions where the seat played such a move
    expert_count: int  # positions where the expert picked one
    p_value: float  # exact one-sided McNemar test: the seat took them more often than the expert would
    interval: tuple[float, float]  # 98% interval of rate - expert_rate
    flag: bool

    @property
    def rate(self) -> float:
        return self.seat_count / self.positions if self.positions else 0.0

    @property
    def expert_rate(self) -> float:
        return self.expert_count / self.positions if self.positions else 0.0

    @property
    def difference(self) -> float:
        return self.rate - self.expert_rate

    def to_dict(self) -> dict[str, object]:
        return {
            "positions": self.positions,
            "telling_positions": self.telling,
            "rate": round(self.rate, 4),
            "expert_rate": round(self.expert_rate, 4),
            "difference": round(self.difference, 4),
            "interval": [round(self.interval[0], 4), round(self.interval[1], 4)],
            "confidence": 1 - 2 * LEVEL,
            "p_value": round(self.p_value, 6),
            "flag": self.flag,
        }


def best_moves(values: Values, tolerance: float = TOLERANCE) -> tuple[Move, ...]:
    """The moves within ``tolerance`` of the best value, in the order given."""
    if not values:
        return ()
    top = max(v for _, v in values)
    return tuple(m for m, v in values if v >= top - tolerance)


def hidden_only(info: Values, omniscient: Values, tolerance: float = TOLERANCE) -> tuple[Move, ...]:
    """The moves best to one who sees the other hands that are not best from the seat's own information."""
    from_info = set(best_moves(info, tolerance))
    return tuple(m for m in best_moves(omniscient, tolerance) if m not in from_info)


def choice(side: int, played: Move, expert: Move, info: Values, omniscient: Values) -> Choice:
    return Choice(side, played, expert, hidden_only(info, omniscient))


def position_choice(
    state: State, played: Move, info: Values, seed: str, nodes: int, round_points: Sequence[int] = ()
) -> Choice:
    """The screen's reading of one choice position of a finished game (``state``: every hand, before the move;
    ``info``: the analysis's values there): the values to one who sees the other hands, and the honest
    expert's pick, each within ``nodes`` and seeded from ``seed`` (the game id and version), so deterministic."""
    seat = state.turn
    omniscient = omniscient_values(state, random.Random(f"{seed}:seen"), nodes, round_points)
    expert = get("expert").choose(view(state, seat), random.Random(f"{seed}:expert"), Budget(nodes=nodes))
    return choice(state.rules.side_of(seat), played, expert, info, omniscient)


def screen(choices: Iterable[Choice]) -> Screen:
    """The paired comparison of the seat's rate of hidden-only-best moves with the expert's (module docstring)."""
    positions = telling = seat_count = expert_count = seat_only = expert_only = 0
    for c in choices:
        positions += 1
        telling += bool(c.hidden_only)
        seat_count += c.seat_took
        expert_count += c.expert_took
        seat_only += c.seat_took and not c.expert_took
        expert_only += c.expert_took and not c.seat_took
    m = seat_only + expert_only
    p = upper_tail(seat_only, m, 0.5)
    lo_share, hi_share = exact_interval(seat_only, m, LEVEL)
    scale = m / positions if positions else 0.0
    interval = (scale * (2 * lo_share - 1), scale * (2 * hi_share - 1))
    return Screen(positions, telling, seat_count, expert_count, p, interval, p < LEVEL)


def upper_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ binomial(n, p)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    lp, lq = math.log(p), math.log1p(-p)
    total = sum(math.exp(_log_comb(n, i) + i * lp + (n - i) * lq) for i in range(k, n + 1))
    return min(1.0, total)


def exact_interval(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Clopper-Pearson bounds for a binomial share from k of n: each end excludes ``alpha`` on its side."""
    if n == 0:
        return 0.5, 0.5  # nothing seen: the conditional share is undefined, the difference it scales is 0
    lo = 0.0 if k == 0 else _solve(lambda p: upper_tail(k, n, p) - alpha)
    hi = 1.0 if k == n else _solve(lambda p: upper_tail(k + 1, n, p) - (1 - alpha))
    return lo, hi


def _solve(f: Callable[[float], float]) -> float:
    """The root in [0, 1] of an increasing function (bisection, to 1e-9)."""
    a, b = 0.0, 1.0
    while b - a > 1e-9:
        mid = (a + b) / 2
        if f(mid) < 0:
            a = mid
        else:
            b = mid
    return (a + b) / 2


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)

"""The fair-play screen: did a seat choose, more often than an honest ``expert`` would have on the same
positions, moves that are best only to one who sees the hidden tiles? (docs/analysis.md#fair-play-screen)

At each of the seat's choice positions (two legal moves or more) two sets of moves are compared: the moves
best from the seat's own information (the analysis's values) and the moves best to one who sees the other
hands but not the boneyard's order (:mod:`domino.analysis.omniscient`); a move within ``TOLERANCE`` points of
a set's best value is in it. A move *best only with the hidden tiles in sight* is in the second set and not in
the first. The seat's rate of such moves is compared with the rate of the honest ``expert``'s picks (at the
analysis budget, seeded) on the same positions.

The comparison is paired: on each position the seat and the expert each chose such a move or not, and only
the positions where exactly one of them did carry information (McNemar): if the seat chose as often as the
expert, the number of those positions won by the seat is binomial(m, 1/2). ``p_value`` is the exact one-sided
test, and ``interval`` the matching exact (Clopper-Pearson) interval for the difference of the two rates, given
m: 98% two-sided, so its lower end is the one-sided 99% bound (above 0 exactly when ``p_value`` < 1%).

That test alone flags honest players who simply play unlike the expert: a weaker player leaves the moves best
from its information more often, and some of the moves it plays instead are best with the hidden tiles in sight
(measured: ``greedy`` was flagged in about half of 20-game samples). So the flag also asks for the second
sign of peeking, the ``gain`` (:func:`gain`): a move's value from the seat's information is the average of its
seen value over the hidden tiles the seat thought possible, so for any seat that chooses from what it saw,
whatever its strategy, the played move's edge seen minus its edge from the information averages 0; a seat
that chooses from the hidden tiles gains. ``flag`` is true when both one-sided tests are significant at 1%
(the mean gain's test by the normal approximation, with its 98% interval).
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

__all__ = ["LEVEL", "TOLERANCE", "Choice", "Screen", "best_moves", "Tally", "choice", "gain", "hidden_only", "position_choice", "screen", "tally"]

TOLERANCE = 0.5  # points: a move this close to the best value counts as best (the analysis's accuracy bound)
LEVEL = 0.01  # the flag's significance level (one-sided)
_Z = 2.3263478740408408  # the standard normal's 99% quantile

Values = Sequence[tuple[Move, float]]


@dataclass(frozen=True, slots=True)
class Choice:
    """One choice position of a seat, as the screen reads it."""

    side: int  # the seat's scoring side (its team in a team game, else the seat)
    played: Move
    expert: Move  # the honest expert's pick on the same position, at the analysis budget
    hidden_only: tuple[Move, ...]  # the moves best only with the hidden tiles in sight (often none)
    gain: float = 0.0  # how much better the played move looks with the hidden tiles in sight (see ``gain``)

    @property
    def seat_took(self) -> bool:
        return self.played in self.hidden_only

    @property
    def expert_took(self) -> bool:
        return self.expert in self.hidden_only


@dataclass(frozen=True, slots=True)
class Tally:
    """What the screen reads from a set of choice positions: counts, and the sums of the gains. Tallies add up
    (a screen over many games is the sum of the games' tallies)."""

    positions: int = 0  # choice positions screened
    telling: int = 0  # of which with a move best only with the hidden tiles in sight
    seat_count: int = 0  # positions where the seat played such a move
    expert_count: int = 0  # positions where the expert picked one
    seat_only: int = 0  # ... where the seat did and the expert did not
    expert_only: int = 0  # ... where the expert did and the seat did not
    gain_sum: float = 0.0
    gain_squares: float = 0.0

    def __add__(self, o: Tally) -> Tally:
        return Tally(
            self.positions + o.positions, self.telling + o.telling, self.seat_count + o.seat_count,
            self.expert_count + o.expert_count, self.seat_only + o.seat_only, self.expert_only + o.expert_only,
            self.gain_sum + o.gain_sum, self.gain_squares + o.gain_squares,
        )  # fmt: skip

    def to_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in Tally.__slots__}

    @classmethod
    def from_dict(cls, d: dict[str, float]) -> Tally:
        return cls(**{name: d[name] for name in Tally.__slots__})  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Screen:
    """The screen of a set of choice positions (one player's, or one team's)."""

    tally: Tally
    p_value: float  # exact one-sided McNemar test: the seat took them more often than the expert would
    interval: tuple[float, float]  # 98% interval of rate - expert_rate
    gain: float  # mean gain of the moves played with the hidden tiles in sight (points)
    gain_interval: tuple[float, float]  # its 98% interval
    gain_p_value: float  # one-sided: the gain is above 0
    flag: bool

    @property
    def positions(self) -> int:
        return self.tally.positions

    @property
    def rate(self) -> float:
        return self.tally.seat_count / self.positions if self.positions else 0.0

    @property
    def expert_rate(self) -> float:
        return self.tally.expert_count / self.positions if self.positions else 0.0

    @property
    def difference(self) -> float:
        return self.rate - self.expert_rate

    def to_dict(self) -> dict[str, object]:
        t = self.tally
        return {
            "positions": t.positions,
            "telling_positions": t.telling,
            "rate": round(self.rate, 4),
            "expert_rate": round(self.expert_rate, 4),
            "difference": round(self.difference, 4),
            "interval": [round(x, 4) for x in self.interval],
            "p_value": round(self.p_value, 6),
            "gain": round(self.gain, 3),
            # Unbounded (fewer than two positions): no interval, which JSON has no number for.
            "gain_interval": [None if math.isinf(x) else round(x, 3) for x in self.gain_interval],
            "gain_p_value": round(self.gain_p_value, 6),
            "confidence": 1 - 2 * LEVEL,
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


def gain(played: Move, info: Values, omniscient: Values) -> float:
    """The played move's edge over the average legal move to one who sees the hidden tiles, minus its edge from
    the seat's own information. The information's value of a move is the mean over the hidden tiles the seat
    thinks possible of the seen value, so for a seat that chooses from what it saw, whatever its strategy,
    this averages 0; a seat that chooses from the hidden tiles gains."""
    seen, own = dict(omniscient), dict(info)
    return (seen[played] - sum(seen.values()) / len(seen)) - (own[played] - sum(own.values()) / len(own))


def choice(side: int, played: Move, expert: Move, info: Values, omniscient: Values) -> Choice:
    return Choice(side, played, expert, hidden_only(info, omniscient), gain(played, info, omniscient))


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


def tally(choices: Iterable[Choice]) -> Tally:
    total = Tally()
    for c in choices:
        total += Tally(1, bool(c.hidden_only), c.seat_took, c.expert_took, c.seat_took and not c.expert_took,
                       c.expert_took and not c.seat_took, c.gain, c.gain * c.gain)  # fmt: skip
    return total


def screen(choices: Iterable[Choice] | Tally) -> Screen:
    """The two tests of the module docstring, and ``flag`` when both are significant at :data:`LEVEL`."""
    t = choices if isinstance(choices, Tally) else tally(choices)
    m = t.seat_only + t.expert_only
    p = upper_tail(t.seat_only, m, 0.5)
    lo_share, hi_share = exact_interval(t.seat_only, m, LEVEL)
    scale = m / t.positions if t.positions else 0.0
    interval = (scale * (2 * lo_share - 1), scale * (2 * hi_share - 1))
    mean, half, gain_p = _mean_test(t.positions, t.gain_sum, t.gain_squares)
    flag = p < LEVEL and gain_p < LEVEL
    return Screen(t, p, interval, mean, (mean - half, mean + half), gain_p, flag)


def _mean_test(n: int, total: float, squares: float) -> tuple[float, float, float]:
    """(mean, half-width of its 98% interval, one-sided p-value of mean > 0), normal approximation."""
    if n < 2:
        return (total / n if n else 0.0), math.inf, 1.0
    mean = total / n
    var = max(0.0, (squares - n * mean * mean) / (n - 1))
    se = math.sqrt(var / n)
    if se == 0.0:
        return mean, 0.0, 0.0 if mean > 0 else 1.0
    return mean, _Z * se, 0.5 * math.erfc(mean / se / math.sqrt(2))


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

"""Intervals for simulation results: Wilson for win rates, normal for means."""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (None without trials)."""
    if n <= 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_ci(total: float, total_sq: float, n: int, z: float = Z95) -> tuple[float | None, tuple[float, float] | None]:
    """Mean and its normal 95% interval from a sum and a sum of squares (no interval below two samples)."""
    if n <= 0:
        return None, None
    mean = total / n
    if n < 2:
        return mean, None
    var = max(0.0, (total_sq - n * mean * mean) / (n - 1))
    half = z * math.sqrt(var / n)
    return mean, (mean - half, mean + half)

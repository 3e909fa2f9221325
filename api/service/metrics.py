"""Counters the application keeps (prometheus-client; no Flask), shown by ``GET /metrics``:

- ``domino_moves_total{variant,by}``: accepted moves, ``by`` = ``human`` (a seat token's move), ``hosted``
  (a hosted bot's, through its seat token), ``registered`` (a registered bot's, with its bot token), ``bot`` (a computer player's job) or ``auto`` (the server's move
  for a seat past its deadline);
- ``domino_bot_turn_seconds{outcome}``: a computer player's turn from its job's enqueue to its end.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from prometheus_client import Counter, Histogram

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

MOVES = Counter("domino_moves", "Accepted moves", ["variant", "by"])
BOT_TURN = Histogram(
    "domino_bot_turn_seconds",
    "A computer player's turn, from its job's enqueue to its end",
    ["outcome"],
    buckets=BUCKETS,
)


# The labelled child of each (variant, by), kept: ``labels()`` checks its arguments and locks on every call.
_MOVES_BY: dict[tuple[str, str], Any] = {}


def move_played(variant: str, by: str) -> None:
    counter = _MOVES_BY.get((variant, by))
    if counter is None:
        counter = _MOVES_BY[(variant, by)] = MOVES.labels(variant=variant, by=by)
    counter.inc()


@contextlib.contextmanager
def bot_turn_timer(enqueued_at: datetime | None = None) -> Iterator[dict[str, str]]:
    """Time a bot-turn job: ``with bot_turn_timer(job.enqueued_at) as out: out["outcome"] = ...``."""
    out = {"outcome": "error"}
    start = time.time() if enqueued_at is None else enqueued_at.timestamp()
    try:
        yield out
    finally:
        BOT_TURN.labels(outcome=out["outcome"]).observe(max(0.0, time.time() - start))

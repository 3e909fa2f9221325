"""A server error's log line at most once per interval and kind in each process, with how many were left out.

A full Redis answers every write with 503 ``storage-full``: under a flood that is thousands of answers a second,
and a line for each would cost the server time it needs for the flood and fill the log's disk besides. The
first answer of a kind is logged at once, so an operator still sees when trouble starts.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable


class QuietLog:
    """``warning(kind, ...)`` writes to ``log`` unless a line of the same ``kind`` was written in the last
    ``interval`` seconds; the next line written says how many were left out meanwhile."""

    def __init__(self, log: logging.Logger, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.log, self.interval, self.clock = log, interval, clock
        self.last: dict[str, float] = {}
        self.left_out: dict[str, int] = {}

    def warning(self, kind: str, message: str, *args: object) -> None:
        now = self.clock()
        # No lock: a second line slipping through when two threads race is harmless.
        if now - self.last.get(kind, -self.interval) < self.interval:
            self.left_out[kind] = self.left_out.get(kind, 0) + 1
            return
        self.last[kind] = now
        left_out = self.left_out.pop(kind, 0)
        if left_out:
            self.log.warning(message + " (and %d more like it, not logged)", *args, left_out)
        else:
            self.log.warning(message, *args)

"""Independent calls that mostly wait on Redis, run on a few threads at once: a batch of apps' turn reminders.
One at a time, each waits out its round trips in
turn (a dozen each, longer on a loaded machine, where every reply also waits for the CPU); overlapped, a batch
costs about its CPU time."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def each(call: Callable[[T], R], items: Sequence[T], threads: int) -> list[R]:
    """``call(item)`` for every item, on up to ``threads`` threads (one: in this thread), the results in the
    items' order. One that raises does not stop the others: once all are done, the first failure is raised
    (as a loop would have raised it, but after the other items were served)."""
    if threads <= 1 or len(items) <= 1:
        return [call(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(threads, len(items)), thread_name_prefix="overlapped") as pool:
        futures = [pool.submit(call, item) for item in items]
    return [future.result() for future in futures]

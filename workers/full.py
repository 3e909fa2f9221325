"""Workers outlive a full Redis (``maxmemory`` with ``noeviction``: every write is refused).

A full Redis is an outage of writes, not of the worker: whatever fills it (a flood of games, a backlog of
finished games) goes away when memory is freed, and the worker must be there to carry on by itself.

- A job whose own writes are refused (``StoreFull``) is tried again in place after a back-off of
  ``DOMINO_FULL_BACKOFF`` seconds, doubling up to ``DOMINO_FULL_BACKOFF_MAX``: no write is needed to keep
  it (re-enqueueing it would be one), and every job is idempotent (by version, chunk id, game id), so a
  second run after a refused write does what the first did not. It gives up only when the worker is asked
  to stop (or at the job's timeout); then its due entry (bot turns, deliveries, archive) or the sweep
  (simulation chunks) brings it back.
- RQ's own bookkeeping (registering the worker, heartbeats, taking a job, marking it started and ended)
  writes too, and RQ ends its work loop on any error it does not expect. Our worker classes wait and try
  again where nothing was done yet (taking a job, starting it), and skip what can be missed (a heartbeat:
  the worker's key lives minutes; the periodic maintenance; the record of a job's end).
"""

from __future__ import annotations

import logging
from functools import partial
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from api.store import out_of_memory

R = TypeVar("R")

log = logging.getLogger("workers.full")

STOPPING = threading.Event()  # set by the worker's signal handler (workers/stopping.py): give up waiting


class Backoff:
    """Delays of ``first`` seconds, doubling up to ``most``; waits end early when the worker stops."""

    def __init__(self, first: float, most: float) -> None:
        self.first, self.most = first, most
        self.next = first
        self.since: float | None = None

    def wait(self, what: str) -> None:
        if self.since is None:
            self.since = time.monotonic()
            log.warning("redis is full: %s waits and tries again (every %.1f s at most)", what, self.most)
        STOPPING.wait(self.next)
        self.next = min(self.next * 2, self.most)

    def done(self, what: str) -> None:
        if self.since is not None:
            log.warning("redis has room again: %s went on after %.1f s", what, time.monotonic() - self.since)


def outlasting(what: str, first: float, most: float, fn: Callable[[], R]) -> R:
    """``fn()``, called again after each back-off while Redis is full, until it returns or the worker stops
    (then the last error is raised)."""
    backoff = Backoff(first, most)
    while True:
        try:
            result = fn()
        except Exception as exc:
            if not out_of_memory(exc) or STOPPING.is_set():
                raise
            backoff.wait(what)
            continue
        backoff.done(what)
        return result


def skipping(what: str, fn: Callable[[], R]) -> R | None:
    """``fn()``, or None when Redis is full (for what can be missed once: it runs again soon)."""
    try:
        return fn()
    except Exception as exc:
        if not out_of_memory(exc):
            raise
        log.warning("redis is full: %s skipped", what)
        return None


class OutlastingFull:
    """RQ's bookkeeping through a full Redis (a base of our worker classes, before RQ's): wait where nothing
    has been done yet (registering, taking a job, starting it), skip what can be missed. Give it the back-off
    (``full_backoff``, ``full_backoff_max``)."""

    def __init__(self, *args: Any, full_backoff: float = 0.1, full_backoff_max: float = 2.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.full_backoff = (full_backoff, full_backoff_max)

    def _outlast(self, what: str, fn: Callable[[], R]) -> R:
        return outlasting(what, *self.full_backoff, fn)

    def register_birth(self) -> None:
        self._outlast("starting the worker", super().register_birth)  # type: ignore[misc]

    def dequeue_job_and_maintain_ttl(self, *args: Any, **kwargs: Any) -> Any:
        # The dequeue (BLMOVE) is a write: refused, it took nothing.
        return self._outlast("taking a job", partial(super().dequeue_job_and_maintain_ttl, *args, **kwargs))  # type: ignore[misc]

    def prepare_execution(self, job: Any) -> Any:
        return self._outlast(f"starting job {job.id}", partial(super().prepare_execution, job))  # type: ignore[misc]

    def prepare_job_execution(self, job: Any, *args: Any) -> None:
        self._outlast(f"starting job {job.id}", partial(super().prepare_job_execution, job, *args))  # type: ignore[misc]

    def perform_job(self, job: Any, *args: Any) -> bool:
        # Past its start (waited for above), only RQ's record of the end can be refused: the job has run or
        # failed, and its record is skipped (the job stays "started" until RQ's cleanup; jobs are idempotent).
        try:
            return bool(super().perform_job(job, *args))  # type: ignore[misc]
        except Exception as exc:
            if not out_of_memory(exc):
                raise
            log.warning("redis is full: the end of job %s was not recorded", job.id)
            return False

    def heartbeat(self, *args: Any, **kwargs: Any) -> None:
        skipping("a heartbeat", partial(super().heartbeat, *args, **kwargs))  # type: ignore[misc]

    def maintain_heartbeats(self, *args: Any) -> None:
        skipping("a job's heartbeat", partial(super().maintain_heartbeats, *args))  # type: ignore[misc]

    def set_state(self, *args: Any, **kwargs: Any) -> None:
        skipping("the worker's state", partial(super().set_state, *args, **kwargs))  # type: ignore[misc]

    def check_for_suspension(self, *args: Any) -> None:
        # RQ's check sends a heartbeat with it.
        skipping("the check for a suspension", partial(super().check_for_suspension, *args))  # type: ignore[misc]

    def run_maintenance_tasks(self) -> None:
        skipping("RQ's maintenance", super().run_maintenance_tasks)  # type: ignore[misc]

    def teardown(self) -> None:
        skipping("unregistering the worker", super().teardown)  # type: ignore[misc]

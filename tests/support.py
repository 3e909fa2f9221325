"""Helpers that test modules import by name (``from support import ...``; ``tests/`` is on the path). Not in a
conftest: ``tests/web`` has a conftest of its own, and ``import conftest`` gets whichever was loaded last."""

from __future__ import annotations

import time

from rq import SimpleWorker

from api.queues import SERIALIZER, WEBHOOKS, Queues


class BurstWorker(SimpleWorker):
    """RQ's SimpleWorker, run in burst mode in the test's own thread, without RQ's command channel.

    Nothing sends a command (kill the work horse, shut down) to a worker that runs in the test's thread; and
    the channel costs each ``work()`` call up to a second: RQ subscribes with a listening thread that waits
    60 s per read and joins it for up to 1 s at teardown, which under a lost race it does in full (a third
    of the suite's time went there, in the tests that run one job at a time)."""

    def subscribe(self) -> None:
        """No command channel (see the class)."""

    def unsubscribe(self) -> None:
        """No command channel (see the class)."""


def work_burst(service, purposes: tuple[str, ...], max_jobs: int | None = None) -> bool:  # type: ignore[no-untyped-def]
    """Run this test's queues of ``purposes`` (``api.queues`` names: bots, bot-games, simulations, webhooks) to
    empty with a real RQ worker in burst mode, at most ``max_jobs`` jobs; returns whether it ran any."""
    by_purpose = Queues(service.store).by_purpose()
    names = [by_purpose[purpose].name for purpose in purposes]
    worker = BurstWorker(names, connection=service.store.worker_connection(), serializer=SERIALIZER)
    return bool(worker.work(burst=True, max_jobs=max_jobs, logging_level="WARNING"))


def run_webhooks(service) -> bool:  # type: ignore[no-untyped-def]
    """Run this test's webhooks queue (hosted bots' turns, apps' lifecycle events) to empty (``work_burst``)."""
    return work_burst(service, (WEBHOOKS,))


def wait_until(condition, seconds: float) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``condition()`` came true within ``seconds`` (checked every 10 ms)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True

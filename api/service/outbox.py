"""Apps' deliveries reach the webhooks workers by batches, through the outbox (:mod:`api.store.outbox`).

Whatever sends an app a delivery (a commit's events, a reminder, the sweep's retry, a redelivery) keeps its
record and marks it due, then :func:`hand_over` pushes its try to the outbox in that same transaction. The push
that finds no drain job queued or running enqueues one (``workers.jobs.deliver_app_events``): while it waits
in the queue, and while it runs, the tries that come join it, so a worker gets one job for many deliveries
rather than an RQ job each, and the move that made an event pays one round trip for it. A drain job that
leaves tries behind (its budget spent, or pushed as it released the flag) enqueues
the next (:func:`rearm`), behind the jobs queued meanwhile. A lost enqueue loses nothing: the tries wait in the
outbox, the drainer's flag lapses after ``webhook_timeout``, and the sweep rearms it; each delivery is still due
in its due set, so the sweep tries it again after its back-off (but not while its try waits in the outbox).
"""

from __future__ import annotations

import time

from api.queues import APP_EVENTS, Queues
from api.store import Batch, Store

DRAIN_BATCH = 200  # tries a drain job takes at once: a few round trips for them all
# A drain job serves the tries that come for up to DRAIN_BUDGET seconds (other jobs of the webhooks queue, hosted
# bots' turns, wait no longer behind it), waiting up to DRAIN_LINGER for the next when none is left: under a
# steady flow a few jobs a second, where one that ended as soon as the outbox was empty was followed by another
# at nearly every move, each costing the API an enqueue and the worker RQ's own work.
DRAIN_BUDGET = 0.25
DRAIN_LINGER = 0.05


def hand_over(store: Store, queues: Queues, tries: list[tuple[str, int]], batch: Batch | None = None) -> None:
    """Push (delivery id, attempt) ``tries`` to the outbox, after ``batch``'s writes in the same transaction,
    and enqueue a drain job unless one is queued."""
    if store.app_outbox.push(tries, batch):
        queues.enqueue(APP_EVENTS, attempt=time.time_ns())


def rearm(store: Store, queues: Queues) -> bool:
    """A drain job for the tries waiting in the outbox, unless one is queued: whether one was enqueued."""
    if store.app_outbox.size() and store.app_outbox.claim():
        queues.enqueue(APP_EVENTS, attempt=time.time_ns())
        return True
    return False

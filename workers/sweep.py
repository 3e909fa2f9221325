"""The sweep: re-enqueues computer-player turns whose due time has passed (a killed worker, a lost enqueue),
enforces turn deadlines (api.turns), retries failed webhook deliveries after their back-off (api.webhooks) and
hands back the simulation chunks of a dead worker (workers.queues.retry_abandoned_chunks).

Runs as a loop beside the ``bots`` worker (``domino-worker bots --sweep``, and in ``domino-serve``). Several
sweeps may run at once: a duplicate enqueue is a harmless no-op job.
"""

from __future__ import annotations

import logging
import threading

from api.service import Service
from api.store import StoreUnavailable

log = logging.getLogger("workers.sweep")


def sweep_once(service: Service, now: float | None = None) -> int:
    """One sweep, as at ``now`` (a Unix time; default: now)."""
    from api import turns, webhooks
    from workers.queues import retry_abandoned_chunks

    requeued = service.sweep(now)
    for game_id, version in requeued:
        log.info("re-enqueued bot turn %s@%s", game_id, version)
    timeouts = turns.sweep_timeouts(service, now)
    for game_id, version in timeouts:
        log.info("turn timeout %s@%s: moving for the seat", game_id, version)
    hooks = webhooks.sweep(service, now)
    for game_id, version, attempt in hooks:
        log.info("webhook %s@%s: attempt %s enqueued", game_id, version, attempt + 1)
    chunks = retry_abandoned_chunks(service.store, now)
    for job_id in chunks:
        log.warning("simulation chunk %s: its worker died; handed back to RQ", job_id)
    return len(requeued) + len(timeouts) + len(hooks) + len(chunks)


def run(service: Service, stop: threading.Event, interval: float | None = None) -> None:
    """Sweep every ``interval`` seconds (``DOMINO_SWEEP_INTERVAL``) until ``stop`` is set."""
    interval = service.settings.sweep_interval if interval is None else interval
    while not stop.is_set():
        try:
            sweep_once(service)
        except StoreUnavailable as exc:
            log.warning("sweep: redis unavailable (%s)", exc)
        except Exception:
            log.exception("sweep failed")
        stop.wait(interval)


def start_thread(service: Service, stop: threading.Event, interval: float | None = None) -> threading.Thread:
    thread = threading.Thread(target=run, args=(service, stop, interval), name="domino-sweep", daemon=True)
    thread.start()
    return thread

"""The sweep loop: every ``DOMINO_SWEEP_INTERVAL`` seconds, one :meth:`Service.sweep` (bot turns lost with a
killed worker, turn deadlines, webhook retries, simulation chunks of dead workers, rated games not counted,
running arenas), logged.

Runs as a thread beside the ``bots`` worker (``domino-worker bots --sweep``, and in ``domino-serve``).
"""

from __future__ import annotations

import logging
import threading

from api.service.service import Service
from api.store import StoreUnavailable

log = logging.getLogger("workers.sweep")


def sweep_once(service: Service, now: float | None = None) -> int:
    """One sweep, as at ``now`` (a Unix time; default: now). Returns how many jobs it enqueued or handed back."""
    report = service.sweep(now)
    for game_id, version, attempt in report.bots:
        log.info("re-enqueued bot turn %s@%s (attempt %s)", game_id, version, attempt)
    for game_id, version, _ in report.timeouts:
        log.info("turn timeout %s@%s: moving for the seat", game_id, version)
    for game_id, version, attempt in report.hooks:
        log.info("webhook %s@%s: attempt %s enqueued", game_id, version, attempt + 1)
    for game_id, _, attempt in report.ratings:
        log.info("rated game %s: counting it again (attempt %s)", game_id, attempt)
    for arena_id in report.arenas:
        log.info("arena %s: started games", arena_id)
    for delivery_id, _, attempt in report.app_events:
        log.info("app event %s: attempt %s enqueued", delivery_id, attempt + 1)
    for job_id in report.chunks:
        log.warning("simulation chunk %s: its worker died; handed back to RQ", job_id)
    return len(report)


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

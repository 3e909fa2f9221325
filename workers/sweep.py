"""The sweep loop: every ``DOMINO_SWEEP_INTERVAL`` seconds, one :meth:`Service.sweep` (bot turns lost with a
killed worker, turn deadlines, webhook retries, simulation chunks of dead workers, rated games not counted,
running arenas), logged; and beside it the timer, which takes turn deadlines and apps' reminders as they come
due (:meth:`Service.sweep_due`, then :meth:`Service.wait_due` until the next one), so that a seat's time is
enforced within a fraction of a second of its deadline, not an interval later.

Runs as two threads beside the ``bots`` worker (``domino-worker bots --sweep``, and in ``domino-serve``); any
number of machines may run them at once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from api.service.service import Service
from api.service.sweep import SweepReport
from api.store import StoreUnavailable

log = logging.getLogger("workers.sweep")


def sweep_once(service: Service, now: float | None = None) -> int:
    """One sweep, as at ``now`` (a Unix time; default: now). Returns how many jobs it enqueued or handed back."""
    report = service.sweep(now)
    for game_id, version, attempt in report.bots:
        log.info("re-enqueued bot turn %s@%s (attempt %s)", game_id, version, attempt)
    _log_due(report)
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


def _log_due(report: SweepReport) -> None:
    for game_id, version, _ in report.timeouts:
        log.info("turn timeout %s@%s: moving for the seat", game_id, version)
    for game_id, version, _ in report.reminders:
        log.info("turn reminder %s@%s sent", game_id, version)


def run(service: Service, stop: threading.Event, interval: float | None = None) -> None:
    """Sweep every ``interval`` seconds (``DOMINO_SWEEP_INTERVAL``) until ``stop`` is set, with the timer in a
    thread of its own (so that a long pass never delays a deadline); returns once both have stopped."""
    interval = service.settings.sweep_interval if interval is None else interval
    timer = threading.Thread(target=run_timer, args=(service, stop, interval), name="domino-timer", daemon=True)
    timer.start()
    _guarded(service.adopt_idle_games)
    while not stop.is_set():
        _guarded(lambda: sweep_once(service))
        stop.wait(interval)
    timer.join()


def run_timer(service: Service, stop: threading.Event, retry: float) -> None:
    """Take deadlines and reminders as they come due until ``stop`` is set (each wait is at most
    ``DOMINO_TIMER_MAX_WAIT``); after a failure, try again ``retry`` seconds later."""
    while not stop.is_set():
        if not _guarded(lambda: _log_due(service.sweep_due())) or not _guarded(service.wait_due):
            stop.wait(retry)


def _guarded(step: Callable[[], object]) -> bool:
    """Run one step of a loop; a failure is logged (the loop goes on). False when it failed."""
    try:
        step()
        return True
    except StoreUnavailable as exc:
        log.warning("sweep: redis unavailable (%s)", exc)
    except Exception:
        log.exception("sweep failed")
    return False


def start_thread(service: Service, stop: threading.Event, interval: float | None = None) -> threading.Thread:
    thread = threading.Thread(target=run, args=(service, stop, interval), name="domino-sweep", daemon=True)
    thread.start()
    return thread

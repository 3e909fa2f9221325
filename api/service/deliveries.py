"""Webhook deliveries in flight in one worker process, fair per owner.

A delivery job (``workers.jobs.deliver_webhook``; ``deliver_app_events``, a batch) only prepares its deliveries
and hands them here; threads of the process POST them. Up to ``Settings.webhook_concurrency`` (64) deliveries are in flight
at once, at most ``Settings.webhook_per_owner`` (4) of one owner (the app or client that created the game, or
the app of a lifecycle event), and the owners with deliveries waiting are served in turn (round robin).
Within an owner, the deliveries of one game (its *lane*) go one at a time, in the order they came, so an
app hears a game's events in order. So a
host that never answers holds at most its owner's few slots for its first-contact timeout, and one owner's
jam never delays another's delivery: 20 games from one address pointed at black holes hold 4 threads, the
other 60 serve everyone else.

An owner with ``Settings.webhook_per_owner`` x 4 deliveries already waiting gets no more: the job returns
and the delivery stays due in Redis, where the sweep finds it after its back-off (a batch's job first waits a
moment for room: a fast receiver frees its slots within it). Likewise a process that
stops with deliveries in flight loses nothing: each stays due until it is delivered. A delivery already
waiting or in flight here (the same turn enqueued again by the sweep) is not queued twice.
"""

from __future__ import annotations

import collections
import logging
import os
import threading
from collections.abc import Callable

from api.service import keepalive

log = logging.getLogger("api.service.deliveries")

BACKLOG_PER_SLOT = 4  # deliveries an owner may have waiting, per slot it may use


class Deliveries:
    def __init__(self, size: int, per_owner: int) -> None:
        self.size = max(1, size)
        self.per_owner = max(1, per_owner)
        lock = threading.Lock()
        self._cond = threading.Condition(lock)  # the delivery threads wait here, one woken per change
        self._changed = threading.Condition(lock)  # callers waiting for room or for idle: all woken per change
        self._waiting: dict[str, collections.deque[tuple[str, str, Callable[[], object]]]] = {}
        self._turns: collections.deque[str] = collections.deque()  # owners with deliveries waiting, in turn
        self._running: collections.Counter[str] = collections.Counter()
        self._keys: set[str] = set()  # deliveries waiting or in flight
        self._lanes: set[str] = set()  # lanes with a delivery in flight
        self._threads = 0
        self._idle = 0  # threads waiting for work

    def submit(self, owner: str, key: str, work: Callable[[], object], lane: str = "", wait: float = 0.0) -> str:
        """Queue ``work`` (one delivery, ``key``, of ``lane``: its game) for ``owner``: ``queued``, ``pending``
        (already here), or ``deferred: owner busy`` (the sweep retries it) when the owner's backlog stays full
        for ``wait`` seconds."""
        backlog = self.per_owner * BACKLOG_PER_SLOT
        with self._cond:
            if not self._changed.wait_for(lambda: len(self._waiting.get(owner, ())) < backlog, wait):
                return "deferred: owner busy"
            if key in self._keys:
                return "pending"
            queue = self._waiting.setdefault(owner, collections.deque())
            if not queue:
                self._turns.append(owner)
            queue.append((lane or key, key, work))
            self._keys.add(key)
            if self._threads < self.size and not self._idle:  # a thread only when none is idle
                self._threads += 1
                threading.Thread(target=self._serve, name="webhook-delivery", daemon=True).start()
            self._cond.notify()
        return "queued"

    def idle(self) -> bool:
        with self._cond:
            return not self._keys

    def wait_idle(self, timeout: float) -> bool:
        """Wait until nothing is waiting or in flight (tests, and a worker stopping); False at the ceiling."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._keys, timeout)

    def _next(self) -> tuple[str, str, str, Callable[[], object]] | None:
        """The first owner in turn that has a free slot, and its oldest delivery whose lane is free (under the
        lock)."""
        for _ in range(len(self._turns)):
            owner = self._turns.popleft()
            queue = self._waiting[owner]
            ready = next((i for i, item in enumerate(queue) if item[0] not in self._lanes), None)
            if self._running[owner] >= self.per_owner or ready is None:
                self._turns.append(owner)
                continue
            lane, key, work = queue[ready]
            del queue[ready]
            if queue:
                self._turns.append(owner)  # its next delivery waits for the other owners' turns
            else:
                del self._waiting[owner]
            self._running[owner] += 1
            self._lanes.add(lane)
            return owner, lane, key, work
        return None

    def _serve(self) -> None:
        while True:
            with self._cond:
                picked = self._next()
                closed = False
                while picked is None:
                    self._idle += 1
                    woke = self._cond.wait(None if closed else keepalive.KEEPALIVE_S)
                    self._idle -= 1
                    if not woke and not closed:  # idle: its connections would not be reused
                        keepalive.close_all()
                        closed = True
                    picked = self._next()
            owner, lane, key, work = picked
            try:
                work()
            except Exception:  # the delivery stays due; the sweep tries it again
                log.exception("webhook delivery %s failed", key)
            finally:
                with self._cond:
                    self._running[owner] -= 1
                    if not self._running[owner]:
                        del self._running[owner]
                    self._keys.discard(key)
                    self._lanes.discard(lane)
                    # One thread for what this may have made ready (this one looks too): waking every idle
                    # thread at each delivery's end cost more CPU than the delivery.
                    self._cond.notify()
                    self._changed.notify_all()


_pools: dict[tuple[int, int, int], Deliveries] = {}
_pools_lock = threading.Lock()


def pool(size: int, per_owner: int) -> Deliveries:
    """This process's deliveries of that shape (one per process: its threads do not survive a fork)."""
    shape = (os.getpid(), size, per_owner)
    with _pools_lock:
        if shape not in _pools:
            _pools[shape] = Deliveries(size, per_owner)
        return _pools[shape]


def wait_idle(timeout: float) -> bool:
    """Wait until every pool of this process is idle (tests run delivery jobs, then wait for their POSTs)."""
    with _pools_lock:
        pools = [p for (pid, *_), p in _pools.items() if pid == os.getpid()]
    return all(p.wait_idle(timeout) for p in pools)

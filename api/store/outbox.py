"""Apps' deliveries handed to the webhooks workers by batches, on the queue connection:

- ``<prefix>:apphooks:outbox``: a list of ``<attempt>:<delivery id>``, the tries to make, oldest first;
- ``<prefix>:apphooks:drainer``: present while a drain job is queued or running (it expires, so that one whose
  enqueue was lost, or that died, does not stop the next).

A commit, a reminder, the sweep push their deliveries in the transaction that marks them due; the push that
finds no drain job queued or running sets the flag and tells its caller to enqueue one. A drain job holds the
flag while it runs, takes the tries by batches, and lingers a moment for more before it releases the flag:
under a steady flow one job serves many deliveries, not one RQ job each (whose own work cost more than the
POST).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import redis

from api.store.connections import translating
from api.store.due import Batch

def item(delivery_id: str, attempt: int) -> str:
    return f"{attempt}:{delivery_id}"


def parse(raw: str) -> tuple[str, int]:
    """(delivery id, attempt) of an outbox item."""
    attempt, _, delivery_id = raw.partition(":")
    return delivery_id, int(attempt)


class AppOutbox:
    def __init__(self, conn: redis.Redis, blocking: Callable[[], redis.Redis], prefix: str, flag_ttl_s: float) -> None:
        self.conn = conn
        self.blocking = blocking  # a read timeout above the longest wait
        self.key = f"{prefix}:apphooks:outbox"
        self.flag_key = f"{prefix}:apphooks:drainer"
        self.flag_ttl_s = flag_ttl_s
        self.flag_ms = max(1, round(flag_ttl_s * 1000))

    @translating
    def push(self, tries: list[tuple[str, int]], batch: Batch | None = None) -> bool:
        """Append (delivery id, attempt) ``tries``; with ``batch``, the batch's own writes go first, in the same
        transaction (executed here). True when the caller must enqueue a drain job."""
        pipe = batch if batch is not None else self.conn.pipeline(transaction=True)
        if tries:
            pipe.rpush(self.key, *(item(delivery_id, attempt) for delivery_id, attempt in tries))
            pipe.set(self.flag_key, 1, nx=True, px=self.flag_ms)  # set: no drain job was queued
        results = pipe.execute()
        return bool(tries) and bool(results[-1])

    @translating
    def claim(self) -> bool:
        """Whether the caller is to enqueue a drain job (none is queued: the flag is set now)."""
        return bool(self.conn.set(self.flag_key, 1, nx=True, px=self.flag_ms))

    @translating
    def hold(self) -> None:
        """A drain job is running: pushes enqueue no other while it lasts (at most the flag's lifetime)."""
        self.conn.set(self.flag_key, 1, px=self.flag_ms)

    @translating
    def release(self) -> bool:
        """The drain job ends: the next push enqueues another. Whether tries are waiting (pushed before the
        release, when they enqueued no job)."""
        pipe = self.conn.pipeline(transaction=True)
        pipe.delete(self.flag_key)
        pipe.llen(self.key)
        return bool(pipe.execute()[-1])

    @translating
    def take_within(self, limit: int, seconds: float, drained: bool = False) -> list[tuple[str, int]]:
        """:meth:`take`, waiting up to ``seconds`` for a first try when there is none; ``drained``: the caller's
        last take left none, so the wait begins at once (it returns at once if one came meanwhile)."""
        tries = [] if drained and seconds > 0 else self.take(limit)
        if tries or seconds <= 0:
            return tries
        # at least a millisecond: a timeout rounded to 0 would have BLPOP wait with no end
        wait = max(0.001, round(seconds, 3))
        first = cast("tuple[bytes, bytes] | None", self.blocking().blpop([self.key], timeout=wait))
        if first is None:
            return []
        return [parse(first[1].decode()), *self.take(limit - 1)]

    @translating
    def take(self, limit: int) -> list[tuple[str, int]]:
        """Up to ``limit`` tries, oldest first, out of the outbox."""
        raw = cast("list[bytes] | None", self.conn.lpop(self.key, limit))
        return [parse(r.decode()) for r in raw or []]

    @translating
    def waiting(self) -> set[str]:
        """The deliveries with a try in the outbox (the sweep leaves them be)."""
        return {parse(r.decode())[0] for r in cast("list[bytes]", self.conn.lrange(self.key, 0, -1))}

    @translating
    def size(self) -> int:
        return int(self.conn.llen(self.key))

"""What an app's webhook was sent, for the app to look at (``GET /v1/app/deliveries``) and redeliver, on the
queue connection (one plain Redis):

- ``<prefix>:app:<app id>:deliveries``: a sorted set delivery id -> the time it was first noted, the newest
  ``max_entries`` of the last ``ttl_s`` seconds (older ones are dropped whenever one is added);
- ``<prefix>:app:<app id>:delivery:<delivery id>``: a hash, the delivery as the app sees it (``kind``,
  ``game``, ``status``, ``attempts``, ``code``, ``duration_ms``, ``created_at``, ``last_attempt_at``) and its
  ``body``, kept for a redelivery; it expires ``ttl_s`` after its last change.
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast

import redis

from api.store.connections import newest_before, translating
from api.store.due import Batch

FIELDS = ("kind", "game", "status", "attempts", "code", "duration_ms", "created_at", "last_attempt_at")


@dataclasses.dataclass(frozen=True)
class LogNote:
    """What :meth:`DeliveryLog.note_many` writes of one delivery."""

    app_id: str
    delivery_id: str
    at: float
    first: dict[str, str]
    changes: dict[str, str]
    tried: bool = False


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode()


class DeliveryLog:
    def __init__(self, conn: redis.Redis, prefix: str, ttl_s: int, max_entries: int) -> None:
        self.conn = conn
        self.prefix = prefix
        self.ttl_s = ttl_s
        self.max_entries = max_entries

    def index_key(self, app_id: str) -> str:
        return f"{self.prefix}:app:{app_id}:deliveries"

    def key(self, app_id: str, delivery_id: str) -> str:
        return f"{self.prefix}:app:{app_id}:delivery:{delivery_id}"

    @translating
    def note_many(self, notes: list[LogNote], batch: Batch | None = None) -> None:
        """Note deliveries, in one round trip (with ``batch``, the batch's own writes go first, in the same
        transaction, executed here): each one's ``first`` fields as first seen (kept if it is known already), its
        ``changes`` overwrite, ``tried`` counts an attempt. An app that got a new entry has its entries beyond the
        newest ``max_entries`` and those older than ``ttl_s`` dropped (what to drop is counted in the same
        transaction: another round trip only when there is some)."""
        if not notes:
            if batch is not None:
                batch.execute()
            return
        pipe = batch if batch is not None else self.conn.pipeline(transaction=True)
        skip = len(pipe)
        for n in notes:
            key = self.key(n.app_id, n.delivery_id)
            for field, value in n.first.items():
                pipe.hsetnx(key, field, value)
            if n.changes:
                pipe.hset(key, mapping=cast("dict[Any, Any]", n.changes))
            if n.tried:
                pipe.hincrby(key, "attempts", 1)
            pipe.expire(key, self.ttl_s)
            # to the microsecond: a cursor carries the time so, and must name this very entry when read back
            pipe.zadd(self.index_key(n.app_id), {n.delivery_id: round(n.at, 6)}, nx=True)
        latest: dict[str, float] = {}
        for n in notes:
            latest[n.app_id] = max(n.at, latest.get(n.app_id, n.at))
        for app_id, at in latest.items():
            pipe.zcount(self.index_key(app_id), "-inf", repr(at - self.ttl_s))  # the entries too old
            pipe.zcard(self.index_key(app_id))
        replies = iter(pipe.execute()[skip:])
        grown: set[str] = set()
        for n in notes:
            writes = len(n.first) + bool(n.changes) + n.tried + 1
            for _ in range(writes):
                next(replies)
            if next(replies):  # added to the index: a new entry
                grown.add(n.app_id)
        for app_id in latest:
            old, size = int(next(replies)), int(next(replies))
            if app_id in grown:
                self._trim(app_id, max(old, size - self.max_entries))

    def _trim(self, app_id: str, count: int) -> None:
        """Drop the app's ``count`` oldest entries (the too old ones are the oldest)."""
        if count <= 0:
            return
        index = self.index_key(app_id)
        old = cast("list[bytes]", self.conn.zrange(index, 0, count - 1))
        if old:
            pipe = self.conn.pipeline(transaction=False)
            pipe.zrem(index, *old)
            pipe.delete(*(self.key(app_id, m.decode()) for m in old))
            pipe.execute()

    @translating
    def get(self, app_id: str, delivery_id: str) -> dict[str, str] | None:
        """A delivery's fields and its ``body``; None when it is not kept (any more)."""
        found = cast("dict[bytes, bytes]", self.conn.hgetall(self.key(app_id, delivery_id)))
        return {k.decode(): v.decode() for k, v in found.items()} or None

    @translating
    def page(self, app_id: str, before: tuple[float, str] | None, limit: int) -> tuple[list[tuple[str, float, dict[str, str | None]]], bool]:
        """Newest first, strictly before the cursor (noted at, id): (id, noted at, fields) of each delivery
        still kept; and whether there are no more."""
        rows, done = newest_before(self.conn, self.index_key(app_id), before, limit)
        pipe = self.conn.pipeline(transaction=False)
        for delivery_id, _ in rows:
            pipe.hmget(self.key(app_id, delivery_id), list(FIELDS))
        found = []
        for (delivery_id, at), values in zip(rows, pipe.execute()):
            if values[0] is not None:  # expired meanwhile
                found.append((delivery_id, at, {f: _text(v) for f, v in zip(FIELDS, values)}))
        return found, done

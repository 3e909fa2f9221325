"""Apps' lifecycle deliveries waiting to be delivered: ``<prefix>:apphook:<delivery id>`` (the app's id and
the signed body, JSON), on the queue connection, from the commit that made the event until it is delivered or
out of tries (then it expires). Their due times are the ``apphooks`` :class:`~api.store.due.DueSet`."""

from __future__ import annotations

from typing import Any, cast

import orjson
import redis

from api.store.connections import translating


class AppDeliveries:
    def __init__(self, conn: redis.Redis, prefix: str) -> None:
        self.conn = conn
        self.prefix = prefix

    def key(self, delivery_id: str) -> str:
        return f"{self.prefix}:apphook:{delivery_id}"

    @translating
    def put(self, delivery_id: str, record: dict[str, Any], ttl_s: int) -> None:
        self.conn.set(self.key(delivery_id), orjson.dumps(record), ex=ttl_s)

    @translating
    def get(self, delivery_id: str) -> dict[str, Any] | None:
        raw = cast("bytes | None", self.conn.get(self.key(delivery_id)))
        return None if raw is None else cast("dict[str, Any]", orjson.loads(raw))

    @translating
    def delete(self, delivery_id: str) -> None:
        self.conn.delete(self.key(delivery_id))

"""Apps' lifecycle deliveries waiting to be delivered: ``<prefix>:apphook:<delivery id>``, a hash on the queue
connection, from just before the commit that makes the event until it is delivered or out of tries (then it
expires). Each commit that notes the delivery keeps its record (the app's id, the game's, the body: JSON)
under its own field, the digest of its events, since several commits may race for one version and only one
lands; ``landed`` names the field of the one that did. Their due times are the ``apphooks``
:class:`~api.store.due.DueSet`."""

from __future__ import annotations

from typing import Any, cast

import orjson
import redis

from api.store.connections import translating
from api.store.due import Batch

LANDED = "landed"

# KEYS: the delivery.  ARGV: a commit's digest.  Names it the one that landed, if its record is kept (never
# making a hash that was delivered and deleted meanwhile come back without its expiry).
_CONFIRM = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], 'landed', ARGV[1])
  return 1
end
return 0
"""


class AppDeliveries:
    def __init__(self, conn: redis.Redis, prefix: str) -> None:
        self.conn = conn
        self.prefix = prefix
        self._confirm = conn.register_script(_CONFIRM)

    def key(self, delivery_id: str) -> str:
        return f"{self.prefix}:apphook:{delivery_id}"

    @translating
    def put(
        self,
        delivery_id: str,
        commit: str,
        record: dict[str, Any],
        ttl_s: int,
        landed: bool = False,
        batch: Batch | None = None,
    ) -> None:
        """Keep ``record`` for the commit whose events have the digest ``commit``; ``landed``: that commit
        made the event. With ``batch``, written when the batch is."""
        key = self.key(delivery_id)
        pipe = batch or self.conn.pipeline(transaction=True)
        pipe.hset(key, commit, orjson.dumps(record))
        if landed:
            pipe.hset(key, LANDED, commit)
        pipe.expire(key, ttl_s)
        if batch is None:
            pipe.execute()

    @translating
    def confirm(self, delivery_id: str, commit: str) -> bool:
        """The commit ``commit`` made the event; False when no record of it is kept."""
        return bool(self._confirm(keys=[self.key(delivery_id)], args=[commit]))

    @translating
    def get(self, delivery_id: str) -> dict[str, Any] | None:
        """The record of the commit that made the event (None: delivered, expired, or not known to have landed)."""
        fields = cast("dict[bytes, bytes]", self.conn.hgetall(self.key(delivery_id)))
        raw = fields.get(fields.get(LANDED.encode(), b""))
        return None if raw is None else cast("dict[str, Any]", orjson.loads(raw))

    @translating
    def get_many(self, delivery_ids: list[str]) -> list[dict[str, Any] | None]:
        """:meth:`get` of each of ``delivery_ids``, in one round trip."""
        pipe = self.conn.pipeline(transaction=False)
        for delivery_id in delivery_ids:
            pipe.hgetall(self.key(delivery_id))
        out: list[dict[str, Any] | None] = []
        for fields in cast("list[dict[bytes, bytes]]", pipe.execute()):
            raw = fields.get(fields.get(LANDED.encode(), b""))
            out.append(None if raw is None else cast("dict[str, Any]", orjson.loads(raw)))
        return out

    @translating
    def delete(self, delivery_id: str, batch: Batch | None = None) -> None:
        """Forget a delivered delivery; with ``batch``, when the batch is written."""
        (batch or self.conn).delete(self.key(delivery_id))

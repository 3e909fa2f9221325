"""Open event streams, counted across API processes: ``<prefix>:streams:client:<address>`` and
``<prefix>:streams:game:<id>``, on the queue connection, sorted sets slot id -> lease end (ms, Redis's
clock); an entry past its lease is free, and each key expires with its last lease."""

from __future__ import annotations

import redis

from api.store.connections import translating
from api.store.slots import TAKE

class StreamSlots:
    def __init__(self, conn: redis.Redis, prefix: str) -> None:
        self.conn = conn
        self.prefix = prefix
        self._take = conn.register_script(TAKE)

    def keys(self, client: str, game_id: str) -> list[str]:
        return [f"{self.prefix}:streams:client:{client}", f"{self.prefix}:streams:game:{game_id}"]

    @translating
    def take(self, client: str, game_id: str, slot: str, caps: tuple[int, int], lease_ms: int) -> int:
        """Hold ``slot`` for ``lease_ms`` in the client's and the game's sets unless one is full: 0 when taken,
        else 1 (the client's cap) or 2 (the game's). One script, so concurrent takes never overshoot."""
        return int(self._take(keys=self.keys(client, game_id), args=[slot, lease_ms, *caps]))

    @translating
    def renew(self, client: str, game_id: str, slot: str, lease_ms: int) -> None:
        self._take(keys=self.keys(client, game_id), args=[slot, lease_ms, 0, 0])

    @translating
    def release(self, client: str, game_id: str, slot: str) -> None:
        with self.conn.pipeline(transaction=False) as pipe:
            for key in self.keys(client, game_id):
                pipe.zrem(key, slot)
            pipe.execute()

"""Open event streams, counted across API processes: ``<prefix>:streams:client:<address>`` and
``<prefix>:streams:game:<id>``, on the queue connection, sorted sets slot id -> lease end (ms, Redis's
clock); an entry past its lease is free, and each key expires with its last lease."""

from __future__ import annotations

import redis

from api.store.connections import translating

# KEYS: the client's and the game's open streams; ARGV: slot, lease (ms), the client's and the game's caps
# (0 and 0: a renewal, never refused). Leases are on Redis's clock, the one clock every API process shares.
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local caps = {tonumber(ARGV[3]), tonumber(ARGV[4])}
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if caps[i] > 0 and redis.call('ZCARD', key) >= caps[i] then return i end
end
local lease = tonumber(ARGV[2])
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + lease, ARGV[1])
  redis.call('PEXPIRE', key, lease)
end
return 0
"""


class StreamSlots:
    def __init__(self, conn: redis.Redis, prefix: str) -> None:
        self.conn = conn
        self.prefix = prefix
        self._take = conn.register_script(_TAKE)

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

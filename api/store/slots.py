"""Leased slots, capped per owner: sorted sets slot id -> lease end (ms, Redis's clock) on the queue
connection. An entry past its lease is free and each key expires with its longest lease, so a slot whose
holder vanished (a crashed process) frees itself; a take with no cap renews a slot.

Used for open event streams (``streams.py``) and for what a client holds at once (:class:`ClientSlots`):
its games waiting or playing, its simulations queued or running.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

import redis

from api.store.connections import translating

# KEYS: the sets; ARGV: slot, lease (ms), then one cap per key (0: never refused, e.g. a renewal). Returns 0
# when taken, else the (1-based) index of the first full set. One script, so concurrent takes never overshoot.
# Leases are on Redis's clock, the one clock every process shares.
TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  local cap = tonumber(ARGV[2 + i])
  if cap > 0 and redis.call('ZCARD', key) >= cap then return i end
end
local lease = tonumber(ARGV[2])
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + lease, ARGV[1])
  if redis.call('PTTL', key) < lease then redis.call('PEXPIRE', key, lease) end
end
return 0
"""


# An ended game's slot writes in one round trip. KEYS: ARGV[3] slot sets to release ARGV[1] from, a due set and its
# attempt hash to clear it from, then the set that holds it for ARGV[2] ms as TAKE does with no cap ('' when
# none). On a full Redis it runs whole: its first write (ZREM) is one a full Redis allows, and a script is not
# stopped after it has written; the hold adds one small entry where the removals free as much or more.
ENDED = """
local n = tonumber(ARGV[3])
for i = 1, n do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('ZREM', KEYS[n + 1], ARGV[1])
redis.call('HDEL', KEYS[n + 2], ARGV[1])
local held = KEYS[n + 3]
if held ~= '' then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local lease = tonumber(ARGV[2])
  redis.call('ZREMRANGEBYSCORE', held, '-inf', now)
  redis.call('ZADD', held, now + lease, ARGV[1])
  if redis.call('PTTL', held) < lease then redis.call('PEXPIRE', held, lease) end
end
return 0
"""


class ClientSlots:
    """``<prefix>:<kind>:client:<client>``: what one client holds at once (``games``: its games waiting or
    playing; ``sims``: its simulations queued or running), each entry leased until it is released."""

    def __init__(self, conn: redis.Redis, prefix: str, kind: str) -> None:
        self.conn = conn
        self.prefix = prefix
        self.kind = kind
        self._take = conn.register_script(TAKE)

    def key(self, client: str) -> str:
        return f"{self.prefix}:{self.kind}:client:{client}"

    @translating
    def take(self, client: str, slot: str, cap: int, lease_ms: int) -> bool:
        """Hold ``slot`` for ``lease_ms`` unless the client already holds ``cap`` (0: no cap)."""
        return int(self._take(keys=[self.key(client)], args=[slot, lease_ms, cap])) == 0

    @translating
    def count(self, client: str) -> int:
        """How many slots ``client`` holds (those past their lease included until the next take drops them)."""
        return int(self.conn.zcard(self.key(client)))

    @translating
    def held(self, client: str) -> list[str]:
        return [m.decode() for m in cast("list[bytes]", self.conn.zrange(self.key(client), 0, -1))]

    @translating
    def release(self, client: str, *slots: str) -> None:
        if slots:
            self.conn.zrem(self.key(client), *slots)

    @translating
    def release_many(self, held: Mapping[str, Sequence[str]]) -> None:
        """Release the slots of several clients (client -> its slots) in one round trip."""
        pipe = self.conn.pipeline(transaction=False)
        for client, slots in held.items():
            if slots:
                pipe.zrem(self.key(client), *slots)
        if len(pipe):
            pipe.execute()

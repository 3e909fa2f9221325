"""Rate-limit counters: ``<prefix>:rl:<client>``, on the queue connection so a count holds across API
processes."""

from __future__ import annotations

import redis

from api.store.connections import translating

# KEYS: a client's rate-limit counter.  ARGV: window (ms), requests to count (an API process may take a
# few at once).  A fixed window that starts at its first request.
_HIT = """
local n = redis.call('INCRBY', KEYS[1], ARGV[2] or 1)
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
"""


class RateLimits:
    def __init__(self, conn: redis.Redis, prefix: str) -> None:
        self.prefix = prefix
        self._hit = conn.register_script(_HIT)

    def key(self, client: str) -> str:
        return f"{self.prefix}:rl:{client}"

    @translating
    def hit(self, client: str, window_ms: int, n: int = 1) -> tuple[int, int]:
        """Count ``n`` requests of ``client`` in its fixed window: (requests in this window so far,
        milliseconds until the window resets)."""
        count, ttl = self._hit(keys=[self.key(client)], args=[window_ms, n])
        return int(count), int(ttl)

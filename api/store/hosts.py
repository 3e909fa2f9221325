"""Webhook hosts in back-off: ``<prefix>:hooks:host:<host>`` (consecutive failures, kept a day) and
``<prefix>:hooks:down:<host>`` (present while the host is backed off); and hosts that answered lately,
``<prefix>:hooks:ok:<host>`` (kept a week: they get the full timeout, others the first-contact one). On the
queue connection so every webhooks worker sees them."""

from __future__ import annotations

import dataclasses

import redis

from api.store.connections import translating

DAY_MS = 24 * 3600 * 1000
KNOWN_SECONDS = 7 * 24 * 3600

# KEYS: the failure counter, the back-off marker.  ARGV: the back-off steps in ms (after failure 1, 2, ...;
# the last repeats).  Returns the back-off now in force, ms.
_FAILED = """
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], %d)
local delay = tonumber(ARGV[math.min(n, #ARGV)])
if delay and delay > 0 then
  redis.call('SET', KEYS[2], n, 'PX', delay)
  return delay
end
return 0
""" % DAY_MS


@dataclasses.dataclass(frozen=True)
class HostState:
    backoff_left: float  # seconds it stays backed off (0: call it)
    known: bool  # it answered within the last week
    fresh: bool  # it answered within the last day, and has not failed since: its next answer records nothing


class WebhookHosts:
    def __init__(self, conn: redis.Redis, prefix: str) -> None:
        self.conn = conn
        self.prefix = prefix
        self._failed = conn.register_script(_FAILED)

    def failures_key(self, host: str) -> str:
        return f"{self.prefix}:hooks:host:{host}"

    def down_key(self, host: str) -> str:
        return f"{self.prefix}:hooks:down:{host}"

    @translating
    def backoff_left(self, host: str) -> float:
        """Seconds ``host`` stays backed off (0: call it)."""
        return max(0, int(self.conn.pttl(self.down_key(host)))) / 1000

    @translating
    def failed(self, host: str, steps: tuple[float, ...]) -> float:
        """Count a failure of ``host`` (it did not answer) and back it off by the step for its consecutive
        failures: the seconds it is now backed off."""
        if not steps:
            return 0.0
        args = [max(1, int(step * 1000)) for step in steps]
        return int(self._failed(keys=[self.failures_key(host), self.down_key(host)], args=args)) / 1000

    def known_key(self, host: str) -> str:
        return f"{self.prefix}:hooks:ok:{host}"

    @translating
    def state(self, host: str) -> HostState:
        """What a delivery to ``host`` needs to know before it calls it, in one round trip."""
        pipe = self.conn.pipeline(transaction=False)
        pipe.pttl(self.down_key(host))
        pipe.pttl(self.known_key(host))
        pipe.exists(self.failures_key(host))
        down_ms, known_ms, failing = pipe.execute()
        fresh = int(known_ms) > KNOWN_SECONDS * 1000 - DAY_MS and not failing
        return HostState(max(0, int(down_ms)) / 1000, int(known_ms) != -2, fresh)

    @translating
    def answered(self, host: str) -> None:
        """``host`` answered: no more back-off, and it is known."""
        pipe = self.conn.pipeline(transaction=False)
        pipe.delete(self.failures_key(host), self.down_key(host))
        pipe.set(self.known_key(host), 1, ex=KNOWN_SECONDS)
        pipe.execute()

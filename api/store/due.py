"""Due sets: what must happen by when, kept in Redis so that a lost job or a restart loses nothing.

One type, used for each kind of due work (on the queue connection): computer players' turns
(``<prefix>:bots:due``, member the game id), turn deadlines (``<prefix>:turns:due``, the game id), live games
due to be ended if still idle (``<prefix>:idle:due``, the game id), webhook deliveries (``<prefix>:hooks:due``,
``<game id>:<version>``), apps' lifecycle deliveries (``<prefix>:apphooks:due``, the delivery id
``msg_<game id>_<version>_<event>``), apps' turn reminders (``<prefix>:reminders:due``, ``<game id>:<version>``)
rated games to count (``<prefix>:ratings:due``) and finished games to archive
(``<prefix>:archive:due``, the game id; taken by batches with :meth:`DueSet.lease`). Each is a sorted set member -> due time, with a hash
``<prefix>:<name>:attempt`` member -> the attempt the sweep is at, so that each re-enqueue gets its own job id.
"""

from __future__ import annotations

import time
from typing import cast

import redis

from api.store.connections import scored, translating

# KEYS: due set, attempt hash.  ARGV: member, score it had when read.  Removes only an unchanged entry.
_CLEAR_IF = """
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s and tonumber(s) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
return 0
"""


# KEYS: due set.  ARGV: now, how many, lease end.  The entries due by now (at most that many), each re-marked
# at the lease's end: a batch taken by one job, which another job takes only once the lease has run out.
_LEASE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for i = 1, #due, 2 do
  redis.call('ZADD', KEYS[1], ARGV[3], due[i])
  out[#out + 1] = due[i]
end
return out
"""


class DueSet:
    def __init__(self, conn: redis.Redis, prefix: str, name: str) -> None:
        self.conn = conn
        self.due_key = f"{prefix}:{name}:due"
        self.attempt_key = f"{prefix}:{name}:attempt"
        self._clear_if = conn.register_script(_CLEAR_IF)
        self._lease = conn.register_script(_LEASE)

    @translating
    def mark(self, member: str, due_at: float, attempt: int | None = None, only_new: bool = False) -> None:
        """``member`` is due at ``due_at`` (and, when given, at ``attempt`` deliveries begun); with ``only_new``,
        an entry already there keeps its time and attempt."""
        if attempt is None:
            self.conn.zadd(self.due_key, {member: due_at}, nx=only_new)
            return
        pipe = self.conn.pipeline(transaction=True)
        pipe.zadd(self.due_key, {member: due_at}, nx=only_new)
        if only_new:
            pipe.hsetnx(self.attempt_key, member, attempt)
        else:
            pipe.hset(self.attempt_key, member, attempt)
        pipe.execute()

    @translating
    def due_at(self, member: str) -> float | None:
        return self.conn.zscore(self.due_key, member)

    @translating
    def attempt(self, member: str) -> int | None:
        raw = cast("bytes | None", self.conn.hget(self.attempt_key, member))
        return None if raw is None else int(raw)

    @translating
    def overdue(self, now: float | None = None, limit: int = 500) -> list[tuple[str, float]]:
        """(member, due time) of the entries due by ``now``, soonest first."""
        now = time.time() if now is None else now
        return scored(self.conn.zrangebyscore(self.due_key, "-inf", now, start=0, num=limit, withscores=True))

    @translating
    def clear(self, member: str) -> None:
        pipe = self.conn.pipeline(transaction=True)
        pipe.zrem(self.due_key, member)
        pipe.hdel(self.attempt_key, member)
        pipe.execute()

    @translating
    def clear_if(self, member: str, due_at: float) -> bool:
        """Remove the entry only if nobody re-marked it since it was read as due at ``due_at``."""
        return bool(self._clear_if(keys=[self.due_key, self.attempt_key], args=[member, repr(due_at)]))

    @translating
    def next_attempt(self, member: str, version: int, first: int) -> int:
        """``first``, ``first + 1``, ... for the sweep's jobs of one game version (distinct job ids)."""
        raw = cast("bytes | None", self.conn.hget(self.attempt_key, member))
        attempt = first
        if raw is not None:
            v, _, a = raw.decode().partition(":")
            if v == str(version):
                attempt = int(a) + 1
        self.conn.hset(self.attempt_key, member, f"{version}:{attempt}")
        return attempt

    @translating
    def lease(self, limit: int, seconds: float, now: float | None = None) -> list[str]:
        """Take up to ``limit`` entries due by ``now``, each due again in ``seconds`` (unless cleared first)."""
        now = time.time() if now is None else now
        taken = cast("list[bytes]", self._lease(keys=[self.due_key], args=[repr(now), limit, repr(now + seconds)]))
        return [m.decode() for m in taken]

    @translating
    def mark_many(self, members: list[str], due_at: float) -> None:
        if members:
            self.conn.zadd(self.due_key, dict.fromkeys(members, due_at))

    @translating
    def pending(self, members: list[str]) -> set[str]:
        """Which of ``members`` have an entry (due or not)."""
        if not members:
            return set()
        scores = self.conn.zmscore(self.due_key, members)
        return {m for m, score in zip(members, scores) if score is not None}

    @translating
    def clear_many(self, members: list[str]) -> None:
        if members:
            pipe = self.conn.pipeline(transaction=True)
            pipe.zrem(self.due_key, *members)
            pipe.hdel(self.attempt_key, *members)
            pipe.execute()

    @translating
    def count_due(self, now: float | None = None) -> int:
        return int(self.conn.zcount(self.due_key, "-inf", time.time() if now is None else now))

    @translating
    def size(self) -> int:
        return int(self.conn.zcard(self.due_key))

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
from collections.abc import Callable
from typing import cast

import redis

from api.store.connections import scored, translating

Batch = redis.client.Pipeline  # commands written together in one round trip, in one transaction (Store.batch)

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


# KEYS: due set.  ARGV: the time the entries must still be due at, their new time, then the members.  Moves
# only the entries nobody re-marked since (a commit that marked a game's next deadline keeps it).
_EXTEND_IF = """
local moved = 0
for i = 3, #ARGV do
  local s = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if s and tonumber(s) == tonumber(ARGV[1]) then
    redis.call('ZADD', KEYS[1], ARGV[2], ARGV[i])
    moved = moved + 1
  end
end
return moved
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


# KEYS: due set, wake list.  ARGV: due time, then the members.  Marks the entries; when they are now the soonest
# of the set, leaves one wake-up in the list (a timer blocked on it looks again at once).
_MARK_WAKING = """
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[i])
end
local soonest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if tonumber(soonest[2]) >= tonumber(ARGV[1]) then
  redis.call('LPUSH', KEYS[2], '1')
  redis.call('LTRIM', KEYS[2], 0, 0)
end
"""

# KEYS: attempt hash.  ARGV: the first attempt, then member and version pairs.  Each member's next attempt at
# its version (``first`` at a version not seen before), recorded and returned in order.
_NEXT_ATTEMPTS = """
local out = {}
for i = 2, #ARGV, 2 do
  local raw = redis.call('HGET', KEYS[1], ARGV[i])
  local attempt = tonumber(ARGV[1])
  if raw then
    local v, a = string.match(raw, '^([^:]*):(%d+)$')
    if v == ARGV[i + 1] then attempt = tonumber(a) + 1 end
  end
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1] .. ':' .. attempt)
  out[#out + 1] = attempt
end
return out
"""


class DueTimer:
    """``<prefix>:due:wake``: a list of at most one element, pushed when a timed due set (turn deadlines,
    reminders) gets a new soonest entry. A sweep waiting for the soonest entry it knew blocks on it, so a
    nearer one wakes it at once, on whichever machine it runs."""

    def __init__(self, blocking: Callable[[], redis.Redis], prefix: str) -> None:
        self.blocking = blocking  # a read timeout above the longest wait
        self.key = f"{prefix}:due:wake"

    @translating
    def wait(self, seconds: float) -> bool:
        """Block until woken or ``seconds`` have passed (at least a millisecond); True when woken."""
        return self.blocking().blpop([self.key], timeout=max(0.001, round(seconds, 3))) is not None


class DueSet:
    def __init__(self, conn: redis.Redis, prefix: str, name: str, wake: DueTimer | None = None) -> None:
        self.conn = conn
        self.due_key = f"{prefix}:{name}:due"
        self.attempt_key = f"{prefix}:{name}:attempt"
        self.wake = wake
        self._clear_if = conn.register_script(_CLEAR_IF)
        self._extend_if = conn.register_script(_EXTEND_IF)
        self._lease = conn.register_script(_LEASE)
        self._mark_waking = conn.register_script(_MARK_WAKING)
        self._next_attempts = conn.register_script(_NEXT_ATTEMPTS)

    @translating
    def mark(
        self, member: str, due_at: float, attempt: int | None = None, only_new: bool = False, batch: Batch | None = None
    ) -> None:
        """``member`` is due at ``due_at`` (and, when given, at ``attempt`` deliveries begun); with ``only_new``,
        an entry already there keeps its time and attempt. A set with a timer wakes it for a new soonest entry.
        With ``batch`` (:meth:`api.store.Store.batch`), written when the batch is, with the rest of it."""
        if attempt is None and self.wake is not None and not only_new:
            self._mark_waking(keys=[self.due_key, self.wake.key], args=[repr(due_at), member], client=batch)
            return
        if attempt is None:
            (batch or self.conn).zadd(self.due_key, {member: due_at}, nx=only_new)
            return
        pipe = batch or self.conn.pipeline(transaction=True)
        pipe.zadd(self.due_key, {member: due_at}, nx=only_new)
        if only_new:
            pipe.hsetnx(self.attempt_key, member, attempt)
        else:
            pipe.hset(self.attempt_key, member, attempt)
        if batch is None:
            pipe.execute()

    def clear_many_if(self, members: list[str], due_at: float) -> None:
        """:meth:`clear_if` of each of ``members`` (each unless re-marked since), in one round trip."""
        self.clear_each_if([(member, due_at) for member in members])

    @translating
    def clear_each_if(self, entries: list[tuple[str, float]]) -> None:
        """:meth:`clear_if` of each (member, due time it was read at), in one round trip."""
        if not entries:
            return
        pipe = self.conn.pipeline(transaction=False)
        for member, due_at in entries:
            self._clear_if(keys=[self.due_key, self.attempt_key], args=[member, repr(due_at)], client=pipe)
        pipe.execute()

    @translating
    def due_at(self, member: str) -> float | None:
        return self.conn.zscore(self.due_key, member)

    @translating
    def attempt(self, member: str) -> int | None:
        raw = cast("bytes | None", self.conn.hget(self.attempt_key, member))
        return None if raw is None else int(raw)

    @translating
    def attempts(self, members: list[str]) -> list[int | None]:
        """:meth:`attempt` of each of ``members``, in one round trip."""
        if not members:
            return []
        raw = cast("list[bytes | None]", self.conn.hmget(self.attempt_key, members))
        return [None if r is None else int(r) for r in raw]

    @translating
    def overdue(self, now: float | None = None, limit: int = 500) -> list[tuple[str, float]]:
        """(member, due time) of the entries due by ``now``, soonest first."""
        now = time.time() if now is None else now
        return scored(self.conn.zrangebyscore(self.due_key, "-inf", now, start=0, num=limit, withscores=True))

    @translating
    def clear(self, member: str, batch: Batch | None = None) -> None:
        """Remove ``member``'s entry; with ``batch``, when the batch is written."""
        pipe = batch or self.conn.pipeline(transaction=True)
        pipe.zrem(self.due_key, member)
        pipe.hdel(self.attempt_key, member)
        if batch is None:
            pipe.execute()

    @translating
    def clear_if(self, member: str, due_at: float) -> bool:
        """Remove the entry only if nobody re-marked it since it was read as due at ``due_at``."""
        return bool(self._clear_if(keys=[self.due_key, self.attempt_key], args=[member, repr(due_at)]))

    @translating
    def extend_if(self, members: list[str], due_at: float, until: float) -> int:
        """Each of ``members`` still due at ``due_at`` (a lease's end) due at ``until`` instead: how many moved."""
        if not members:
            return 0
        return int(cast("int", self._extend_if(keys=[self.due_key], args=[repr(due_at), repr(until), *members])))

    def next_attempt(self, member: str, version: int, first: int) -> int:
        """``first``, ``first + 1``, ... for the sweep's jobs of one game version (distinct job ids)."""
        return self.next_attempts([(member, version)], first)[0]

    @translating
    def next_attempts(self, versions: list[tuple[str, int]], first: int) -> list[int]:
        """:meth:`next_attempt` for many (member, version) pairs, in one script."""
        if not versions:
            return []
        args: list[str | int] = [first]
        for member, version in versions:
            args += [member, version]
        return [int(a) for a in cast("list[int]", self._next_attempts(keys=[self.attempt_key], args=args))]

    @translating
    def done(self, step: str) -> bool:
        """Whether a one-off ``step`` over this set (a migration) has been completed."""
        return bool(self.conn.exists(f"{self.due_key}:done:{step}"))

    @translating
    def complete(self, step: str) -> None:
        self.conn.set(f"{self.due_key}:done:{step}", 1)

    @translating
    def soonest(self) -> float | None:
        """The due time of the soonest entry (None: the set is empty)."""
        first = scored(self.conn.zrange(self.due_key, 0, 0, withscores=True))
        return first[0][1] if first else None

    @translating
    def lease(self, limit: int, seconds: float, now: float | None = None) -> list[str]:
        """Take up to ``limit`` entries due by ``now``, each due again in ``seconds`` (unless cleared first)."""
        now = time.time() if now is None else now
        taken = cast("list[bytes]", self._lease(keys=[self.due_key], args=[repr(now), limit, repr(now + seconds)]))
        return [m.decode() for m in taken]

    @translating
    def mark_many(self, members: list[str], due_at: float) -> None:
        """Each of ``members`` due at ``due_at``; a set with a timer wakes it for a new soonest entry."""
        if members and self.wake is not None:
            self._mark_waking(keys=[self.due_key, self.wake.key], args=[repr(due_at), *members])
        elif members:
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

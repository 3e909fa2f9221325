"""Matchmaking tickets, on the queue connection (one plain Redis, never a cluster: the scripts build keys
from the prefix), beside the queues and not on the games' slots:

- ``<prefix>:mm:t:<id>``: a hash, the ticket: ``spec`` (its request and who holds it, JSON), ``token_hash``,
  ``status`` (``waiting``, ``claimed`` while its game is being made, ``matched``, ``cancelled``, ``expired``),
  and once claimed ``match``; once matched ``game_id``, ``seat``, ``token`` (the seat's, for its holder);
- ``<prefix>:mm:pool:<pool>``: a hash ticket id -> what the matcher needs of it (JSON). A ticket is waiting
  exactly while it is in its pool: every change of status takes it out in the same script, which is what
  makes a ticket matched once, or cancelled, never both;
- ``<prefix>:mm:pools``: the pools with waiting tickets (the sweep passes over them);
- ``<prefix>:mm:holder:<holder>``: the open tickets of one holder (its cap);
- ``<prefix>:mm:read``: a sorted set ticket id -> when it was last read (a waiting ticket unread for
  ``ticket_idle`` seconds expires);
- ``<prefix>:mm:w:<id>``: a stream with one entry once the ticket's wait is over (matched, cancelled, expired),
  which long polls block on;
- ``<prefix>:mm:m:<match id>``: a match claimed and not yet finished (JSON: the game id reserved, its tickets
  by seat, the seats' tokens), and ``<prefix>:mm:pending``: match id -> claimed time, which the sweep finishes
  when a matcher died between claiming and finishing;
- ``<prefix>:mm:party:<code>``: the ticket that joined a party (a party has two partners);
- ``<prefix>:mm:lock:<pool>`` and ``<prefix>:mm:again:<pool>``: one matcher pass at a time per pool; a pass
  asked for meanwhile is run by the holder of the lock after its own.
"""

from __future__ import annotations

from typing import Any, cast

import orjson
import redis

from api.store.connections import scored, translating

# ARGV: prefix, id, pool, holder, cap, now, ttl, spec, token hash, seeker.  Refuses (0) when the holder has
# ``cap`` open tickets (closed ones found in its set are dropped first).
_OPEN = """
local p, id, pool, holder = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local hk = p .. ':mm:holder:' .. holder
for _, other in ipairs(redis.call('SMEMBERS', hk)) do
  local st = redis.call('HGET', p .. ':mm:t:' .. other, 'status')
  if st ~= 'waiting' and st ~= 'claimed' then redis.call('SREM', hk, other) end
end
if redis.call('SCARD', hk) >= tonumber(ARGV[5]) then return 0 end
local tk = p .. ':mm:t:' .. id
redis.call('HSET', tk, 'spec', ARGV[8], 'token_hash', ARGV[9], 'status', 'waiting')
redis.call('EXPIRE', tk, ARGV[7])
redis.call('HSET', p .. ':mm:pool:' .. pool, id, ARGV[10])
redis.call('SADD', p .. ':mm:pools', pool)
redis.call('SADD', hk, id)
redis.call('EXPIRE', hk, ARGV[7])
redis.call('ZADD', p .. ':mm:read', ARGV[6], id)
return 1
"""

# ARGV: prefix, pool, match id, match JSON, now, then the ticket ids.  Claims every ticket for the match, or
# none (0) when one of them is no longer waiting.
_CLAIM = """
local p, pool, mid = ARGV[1], ARGV[2], ARGV[3]
local pk = p .. ':mm:pool:' .. pool
for i = 6, #ARGV do
  if redis.call('HEXISTS', pk, ARGV[i]) == 0 then return 0 end
end
for i = 6, #ARGV do
  redis.call('HDEL', pk, ARGV[i])
  redis.call('HSET', p .. ':mm:t:' .. ARGV[i], 'status', 'claimed', 'match', mid)
  redis.call('ZREM', p .. ':mm:read', ARGV[i])
end
if redis.call('HLEN', pk) == 0 then redis.call('SREM', p .. ':mm:pools', pool) end
redis.call('SET', p .. ':mm:m:' .. mid, ARGV[4])
redis.call('ZADD', p .. ':mm:pending', ARGV[5], mid)
return 1
"""

# ARGV: prefix, id, pool, status, ttl.  A waiting ticket's wait ends (cancelled, expired): 1, else 0.
_CLOSE = """
local p, id, pool = ARGV[1], ARGV[2], ARGV[3]
local pk = p .. ':mm:pool:' .. pool
if redis.call('HDEL', pk, id) == 0 then return 0 end
if redis.call('HLEN', pk) == 0 then redis.call('SREM', p .. ':mm:pools', pool) end
local tk = p .. ':mm:t:' .. id
redis.call('HSET', tk, 'status', ARGV[4])
redis.call('EXPIRE', tk, ARGV[5])
redis.call('ZREM', p .. ':mm:read', id)
redis.call('XADD', p .. ':mm:w:' .. id, '*', 'status', ARGV[4])
redis.call('EXPIRE', p .. ':mm:w:' .. id, ARGV[5])
return 1
"""

# ARGV: prefix, match id, ttl, status, then (ticket id, game id, seat, token) per ticket.  A claimed match is
# settled: its game exists (``matched``: each ticket gets its game, seat and token; again, harmlessly, when the
# sweep finishes a match twice), or cannot be made (``cancelled``: the game fields are empty).
_SETTLE = """
local p, mid, st = ARGV[1], ARGV[2], ARGV[4]
for i = 5, #ARGV, 4 do
  local tk = p .. ':mm:t:' .. ARGV[i]
  if redis.call('HGET', tk, 'status') == 'claimed' then
    redis.call('HSET', tk, 'status', st)
    if st == 'matched' then
      redis.call('HSET', tk, 'game_id', ARGV[i + 1], 'seat', ARGV[i + 2], 'token', ARGV[i + 3])
    end
    redis.call('EXPIRE', tk, ARGV[3])
    redis.call('XADD', p .. ':mm:w:' .. ARGV[i], '*', 'status', st)
    redis.call('EXPIRE', p .. ':mm:w:' .. ARGV[i], ARGV[3])
  end
end
redis.call('ZREM', p .. ':mm:pending', mid)
redis.call('EXPIRE', p .. ':mm:m:' .. mid, ARGV[3])
return 1
"""

# ARGV: prefix, pool, owner, ms.  Take the pool's matcher lock (1); when another pass holds it, ask it for one
# more pass (0). One script, so that a pass asked for is never lost between a refused lock and the request.
_LOCK = """
local lk, ak = ARGV[1] .. ':mm:lock:' .. ARGV[2], ARGV[1] .. ':mm:again:' .. ARGV[2]
if redis.call('SET', lk, ARGV[3], 'NX', 'PX', ARGV[4]) then return 1 end
redis.call('SET', ak, 1, 'PX', ARGV[4])
return 0
"""

# ARGV: prefix, pool, owner.  Release the lock if still ours; 1 when a pass was asked for meanwhile.
_UNLOCK = """
local lk, ak = ARGV[1] .. ':mm:lock:' .. ARGV[2], ARGV[1] .. ':mm:again:' .. ARGV[2]
if redis.call('GET', lk) == ARGV[3] then redis.call('DEL', lk) end
if redis.call('DEL', ak) == 1 then return 1 end
return 0
"""


def _text(mapping: dict[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in mapping.items()}


class TicketStore:
    def __init__(self, conn: redis.Redis, blocking: Any, prefix: str) -> None:
        self.conn = conn
        self.blocking = blocking  # a callable: the connection for blocking reads
        self.prefix = prefix
        self._open = conn.register_script(_OPEN)
        self._claim = conn.register_script(_CLAIM)
        self._close = conn.register_script(_CLOSE)
        self._settle = conn.register_script(_SETTLE)
        self._lock = conn.register_script(_LOCK)
        self._unlock = conn.register_script(_UNLOCK)

    def _key(self, *parts: str) -> str:
        return ":".join((self.prefix, "mm", *parts))

    @translating
    def open(
        self, ticket_id: str, pool: str, holder: str, cap: int, now: float, ttl: int, spec: dict[str, Any], token_hash: str,
        seeker: dict[str, Any],
    ) -> bool:  # fmt: skip
        """Store a waiting ticket in its pool; False when its holder has ``cap`` open tickets."""
        args: list[str | int | float | bytes] = [
            self.prefix, ticket_id, pool, holder, cap, now, ttl, orjson.dumps(spec), token_hash, orjson.dumps(seeker),
        ]  # fmt: skip
        return bool(self._open(keys=[], args=args))

    @translating
    def join_party(self, code: str, ticket_id: str, ttl: int) -> bool:
        """The second partner joins the party ``code``; False when it has one already."""
        return bool(self.conn.set(self._key("party", code), ticket_id, nx=True, ex=ttl))

    @translating
    def get(self, ticket_id: str) -> dict[str, str] | None:
        found = _text(cast("dict[bytes, bytes]", self.conn.hgetall(self._key("t", ticket_id))))
        return found or None

    @translating
    def touch(self, ticket_id: str, now: float) -> None:
        """The ticket was read: it stays waiting for another ``ticket_idle`` (only while it waits)."""
        self.conn.zadd(self._key("read"), {ticket_id: now}, xx=True)

    @translating
    def unread_since(self, before: float, limit: int = 500) -> list[str]:
        rows = scored(self.conn.zrangebyscore(self._key("read"), "-inf", before, start=0, num=limit, withscores=True))
        return [ticket_id for ticket_id, _ in rows]

    @translating
    def close(self, ticket_id: str, pool: str, status: str, ttl: int) -> bool:
        """End a waiting ticket's wait as ``status``; False when it was not waiting (claimed, matched, closed)."""
        return bool(self._close(keys=[], args=[self.prefix, ticket_id, pool, status, ttl]))

    @translating
    def pools(self) -> list[str]:
        return sorted(m.decode() for m in cast("set[bytes]", self.conn.smembers(self._key("pools"))))

    @translating
    def waiting(self, pool: str) -> dict[str, dict[str, Any]]:
        """The pool's waiting tickets: id -> what the matcher needs."""
        raw = cast("dict[bytes, bytes]", self.conn.hgetall(self._key("pool", pool)))
        return {k.decode(): orjson.loads(v) for k, v in raw.items()}

    @translating
    def claim(self, pool: str, match_id: str, match: dict[str, Any], now: float, tickets: list[str]) -> bool:
        """Claim ``tickets`` for a match at once, or none (False: one of them was matched or closed meanwhile)."""
        return bool(self._claim(keys=[], args=[self.prefix, pool, match_id, orjson.dumps(match), now, *tickets]))

    @translating
    def match(self, match_id: str) -> dict[str, Any] | None:
        raw = cast("bytes | None", self.conn.get(self._key("m", match_id)))
        return None if raw is None else cast("dict[str, Any]", orjson.loads(raw))

    @translating
    def pending(self, before: float, limit: int = 100) -> list[str]:
        """Matches claimed before ``before`` and not finished."""
        rows = scored(self.conn.zrangebyscore(self._key("pending"), "-inf", before, start=0, num=limit, withscores=True))
        return [match_id for match_id, _ in rows]

    @translating
    def finish(self, match_id: str, ttl: int, seated: list[tuple[str, str, int, str]]) -> None:
        """The match's game exists: each (ticket, game id, seat, seat token) is matched."""
        self._settle_match(match_id, ttl, "matched", seated)

    @translating
    def drop(self, match_id: str, ttl: int, tickets: list[str]) -> None:
        """The match's game cannot be made: its tickets are cancelled."""
        self._settle_match(match_id, ttl, "cancelled", [(t, "", 0, "") for t in tickets])

    def _settle_match(self, match_id: str, ttl: int, status: str, seated: list[tuple[str, str, int, str]]) -> None:
        args: list[str | int | float | bytes] = [self.prefix, match_id, ttl, status]
        for ticket_id, game_id, seat, token in seated:
            args.extend((ticket_id, game_id, seat, token))
        self._settle(keys=[], args=args)

    @translating
    def wait_over(self, ticket_id: str, block_ms: int) -> None:
        """Return once the ticket's wait is over, or after ``block_ms`` (a blocking XREAD: nothing polled)."""
        self.blocking().xread({self._key("w", ticket_id): "0-0"}, count=1, block=block_ms)

    @translating
    def lock(self, pool: str, owner: str, ms: int) -> bool:
        """Take the pool's matcher lock for ``ms``; when another pass holds it, ask it for one more pass."""
        return bool(self._lock(keys=[], args=[self.prefix, pool, owner, ms]))

    @translating
    def unlock(self, pool: str, owner: str) -> bool:
        """Release the lock; True when a pass was asked for meanwhile (the caller runs it)."""
        return bool(self._unlock(keys=[], args=[self.prefix, pool, owner]))

"""Challenges, on the queue connection (one plain Redis, as the tickets and rematch offers are):

- ``<prefix>:ch:{<id>}``: a hash, the challenge: ``doc`` (its terms, challenger and addressee, times, the
  challenger's token hash, the game id and seat tokens reserved when it was made: JSON, never changed),
  ``status`` (``open``, ``accepting`` while its game is being made, ``accepted``, ``declined``,
  ``cancelled``, ``expired``; an ``open`` one past its ``expires_at`` is expired whatever the field says),
  ``at`` (when it last changed), ``reason`` (why a challenge whose game could not be made was cancelled). Its expiry is the challenge's
  own plus :data:`KEPT_S`, so an answered or expired challenge is readable for a while, then gone. The
  ``{<id>}`` hash tag keeps a challenge's key in one slot whatever the connection;
- ``<prefix>:ch:{<id>}:w``: a stream with one entry once the challenge is answered (accepted, declined,
  cancelled), which long polls block on (an expiry needs none: a poll waits at most until it);
- ``<prefix>:ch:by:<challenger>``: a sorted set challenge id -> expires at: the challenger's open challenges
  (its cap); an entry leaves it when its challenge is answered or cancelled, or once past its expiry.

Every change of status is one script that moves an ``open`` challenge, not yet expired, and nothing else:
of an accept, a decline and a cancel racing, exactly one finds it open.
"""

from __future__ import annotations

from typing import Any, cast

import orjson
import redis

from api.store.connections import translating

KEPT_S = 3600  # how long a challenge is readable after it expired or was answered

# KEYS: the challenge, the challenger's open set; ARGV: id, now, expires at, cap, doc, ttl (s).  0 when the
# challenger holds ``cap`` open challenges (those past their expiry dropped first), else 1.
_OPEN = """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[1], 'doc', ARGV[5], 'status', 'open')
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[6])
return 1
"""

# KEYS: the challenge, the challenger's open set, its answer's stream; ARGV: id, now, expires at, from, to.
# Moves the challenge from status ``from`` to ``to`` (an ``open`` one only while not expired): {status now, 1};
# else {its status (``expired`` for an open one past its time), 0}. A challenge no longer open leaves the
# challenger's set; an answer (not the ``accepting`` on the way to ``accepted``) wakes its long polls.
_MOVE = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'gone', 0} end
if status == 'open' and tonumber(ARGV[2]) >= tonumber(ARGV[3]) then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {'expired', 0}
end
if status ~= ARGV[4] then return {status, 0} end
redis.call('HSET', KEYS[1], 'status', ARGV[5], 'at', ARGV[2])
if ARGV[5] ~= 'open' then redis.call('ZREM', KEYS[2], ARGV[1]) end
if ARGV[5] ~= 'open' and ARGV[5] ~= 'accepting' then
  redis.call('XADD', KEYS[3], '*', 'status', ARGV[5])
  redis.call('EXPIRE', KEYS[3], redis.call('TTL', KEYS[1]))
end
return {ARGV[5], 1}
"""


class ChallengeStore:
    def __init__(self, conn: redis.Redis, blocking: Any, prefix: str) -> None:
        self.conn = conn
        self.blocking = blocking  # a callable: the connection for blocking reads
        self.prefix = prefix
        self._open = conn.register_script(_OPEN)
        self._move = conn.register_script(_MOVE)

    def key(self, challenge_id: str) -> str:
        return f"{self.prefix}:ch:{{{challenge_id}}}"

    def answer_key(self, challenge_id: str) -> str:
        return f"{self.prefix}:ch:{{{challenge_id}}}:w"

    def open_key(self, challenger: str) -> str:
        return f"{self.prefix}:ch:by:{challenger}"

    @translating
    def open(self, challenge_id: str, challenger: str, cap: int, now: float, doc: dict[str, Any]) -> bool:
        """Store an open challenge; False when ``challenger`` holds ``cap`` open ones already."""
        expires_at = float(doc["expires_at"])
        ttl = max(1, int(expires_at - now) + KEPT_S)
        keys = [self.key(challenge_id), self.open_key(challenger)]
        return bool(self._open(keys=keys, args=[challenge_id, now, expires_at, cap, orjson.dumps(doc), ttl]))

    @translating
    def get(self, challenge_id: str) -> tuple[dict[str, Any], dict[str, str]] | None:
        """(its doc, its fields: ``status``, and ``at`` and ``reason`` when set), or None."""
        raw = cast("dict[bytes, bytes]", self.conn.hgetall(self.key(challenge_id)))
        if not raw:
            return None
        return orjson.loads(raw.pop(b"doc")), {k.decode(): v.decode() for k, v in raw.items()}

    @translating
    def move(self, challenge_id: str, challenger: str, now: float, expires_at: float, old: str, new: str) -> tuple[str, bool]:
        """Move the challenge from ``old`` to ``new`` if it is in ``old`` (and, when open, not expired): (its
        status now, whether this call moved it)."""
        keys = [self.key(challenge_id), self.open_key(challenger), self.answer_key(challenge_id)]
        status, moved = cast("list[Any]", self._move(keys=keys, args=[challenge_id, now, expires_at, old, new]))
        return (status.decode() if isinstance(status, bytes) else str(status)), bool(moved)

    @translating
    def give_up(self, challenge_id: str, challenger: str, now: float, reason: str) -> None:
        """An accepted challenge whose game cannot be made is cancelled, saying why."""
        keys = [self.key(challenge_id), self.open_key(challenger), self.answer_key(challenge_id)]
        if cast("list[Any]", self._move(keys=keys, args=[challenge_id, now, now, "accepting", "cancelled"]))[1]:
            self.conn.hset(self.key(challenge_id), "reason", reason)

    @translating
    def wait_answered(self, challenge_id: str, block_ms: int) -> None:
        """Return once the challenge is answered, or after ``block_ms`` (a blocking XREAD: nothing polled)."""
        self.blocking().xread({self.answer_key(challenge_id): "0-0"}, count=1, block=block_ms)

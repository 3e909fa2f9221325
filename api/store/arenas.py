"""Arenas, on the queue connection:

- ``<prefix>:arena:<id>``: hash: ``spec`` (JSON), ``games`` (how many it plays), ``owner`` (who created it:
  ``app:<id>`` or ``bot:<name>``), ``status`` (``running``, ``finished``, ``cancelled``, ``failed`` with an
  ``error``), ``created_at`` and ``finished_at`` (Redis' clock), ``g:<i>`` the id of its game ``i`` once
  created, ``r:<i>`` that game's result once counted, ``done`` how many are counted;
- ``<prefix>:arenas:running``: set of the arenas not over (the sweep moves each on);
- ``<prefix>:arenas:owner:<owner>``: sorted set arena -> creation time: an owner's arenas, newest last;
- ``<prefix>:arenas:owner:<owner>:open``: set of the owner's arenas still running (capped per owner);
- ``<prefix>:arena:<id>:playing``: sorted set ``<arena>:<i>`` -> lease end (ms, Redis' clock): the arena's
  games in play, capped per arena. Every game of an arena seats every one of its bots, so this is also each
  bot's count of games at once in this arena; another arena never waits for it. A game takes its slot when
  it is created and gives it back when its result is counted; a slot whose game was lost frees itself when
  its lease (the idle game's expiry) ends.
"""

from __future__ import annotations

from typing import Any, cast

import redis

from api.store.connections import translating

_NOW = "local t = redis.call('TIME'); local now = t[1] .. '.' .. string.format('%06d', t[2])\n"

# KEYS: record, running set, the owner's arenas, the owner's open arenas.  ARGV: ttl, id, cap, the arena
# records' key prefix, then field/value pairs. 1 when created; 0 when the owner has ``cap`` arenas running
# (those whose record expired are dropped first: their ids come from the set, so the keys are built here).
_CREATE = _NOW + """
for _, open in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  if redis.call('EXISTS', ARGV[4] .. open) == 0 then redis.call('SREM', KEYS[4], open) end
end
if redis.call('SCARD', KEYS[4]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], 'created_at', now, 'status', 'running', 'done', 0, unpack(ARGV, 5))
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], now, ARGV[2])
redis.call('EXPIRE', KEYS[3], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[2])
redis.call('EXPIRE', KEYS[4], ARGV[1])
return 1
"""

# KEYS: record, the arena's playing set.  ARGV: slot, lease (ms), cap, game index.  1 when taken (or held
# already), 0 when the arena has ``cap`` games in play, 2 when the game's result is counted already (nothing
# taken: a slot given back must not be taken again by a step that ran late).
_TAKE = """
if redis.call('HEXISTS', KEYS[1], 'r:' .. ARGV[4]) == 1 then return 2 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
"""

# KEYS: record, running set, playing set, the owner's open arenas.  ARGV: slot, arena id, error.  A running
# arena whose next game cannot be created stops: ``failed``, with why; that game's slot is given back.
_FAIL = _NOW + """
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('SREM', KEYS[2], ARGV[2])
redis.call('SREM', KEYS[4], ARGV[2])
if redis.call('HGET', KEYS[1], 'status') == 'running' then
  redis.call('HSET', KEYS[1], 'status', 'failed', 'finished_at', now, 'error', ARGV[3])
end
"""

# KEYS: record, running set, playing set, the owner's open arenas.  ARGV: game index, result, ttl, slot,
# arena id.  Counts a game's result once and gives its slot back; the last result finishes a running arena.
# Returns 1 (counted), 0 (counted before), -1 (no such arena).
_ENDED = _NOW + """
redis.call('ZREM', KEYS[3], ARGV[4])
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HSETNX', KEYS[1], 'r:' .. ARGV[1], ARGV[2]) == 0 then return 0 end
local done = redis.call('HINCRBY', KEYS[1], 'done', 1)
if done >= tonumber(redis.call('HGET', KEYS[1], 'games')) and redis.call('HGET', KEYS[1], 'status') == 'running' then
  redis.call('HSET', KEYS[1], 'status', 'finished', 'finished_at', now)
  redis.call('SREM', KEYS[2], ARGV[5])
  redis.call('SREM', KEYS[4], ARGV[5])
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""

# KEYS: record, running set, the owner's open arenas.  ARGV: arena id.  A running arena starts no more games:
# ``cancelled`` (its games in play end and count). 1 (cancelled), 0 (it was over already).
_CANCEL = _NOW + """
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'finished_at', now)
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
return 1
"""


FULL, TAKEN, COUNTED = 0, 1, 2  # what take_slots found


class ArenaStore:
    def __init__(self, conn: redis.Redis, prefix: str, ttl: int) -> None:
        self.conn = conn
        self.prefix = prefix
        self.ttl = ttl
        self._create = conn.register_script(_CREATE)
        self._take = conn.register_script(_TAKE)
        self._ended = conn.register_script(_ENDED)
        self._fail = conn.register_script(_FAIL)
        self._cancel = conn.register_script(_CANCEL)

    def key(self, arena_id: str) -> str:
        return f"{self.prefix}:arena:{arena_id}"

    @property
    def running_key(self) -> str:
        return f"{self.prefix}:arenas:running"

    def playing_key(self, arena_id: str) -> str:
        return f"{self.prefix}:arena:{arena_id}:playing"

    def owner_key(self, owner: str) -> str:
        return f"{self.prefix}:arenas:owner:{owner}"

    def open_key(self, owner: str) -> str:
        return f"{self.owner_key(owner)}:open"

    @staticmethod
    def slot(arena_id: str, index: int) -> str:
        return f"{arena_id}:{index}"

    @translating
    def create(self, arena_id: str, owner: str, cap: int, fields: dict[str, Any]) -> bool:
        """A new arena of ``owner``, ``running``, with ``created_at`` from Redis' clock; False (nothing written)
        when the owner has ``cap`` arenas running."""
        flat: list[Any] = ["owner", owner]
        for k, v in fields.items():
            flat.extend((k, v))
        keys = [self.key(arena_id), self.running_key, self.owner_key(owner), self.open_key(owner)]
        return bool(self._create(keys=keys, args=[self.ttl, arena_id, cap, self.key(""), *flat]))

    @translating
    def load(self, arena_id: str) -> tuple[dict[str, str], float] | None:
        """(the record's fields, Redis' clock now), or None."""
        pipe = self.conn.pipeline(transaction=False)
        pipe.hgetall(self.key(arena_id))
        pipe.time()
        raw, (sec, usec) = pipe.execute()
        if not raw:
            return None
        return {k.decode(): v.decode() for k, v in raw.items()}, sec + usec / 1e6

    @translating
    def owned(self, owner: str, before: tuple[float, str] | None, limit: int) -> list[tuple[str, float]]:
        """A page of ``owner``'s arenas, newest first, older than ``before`` (creation time, id): (id, time)."""
        high: str = "+inf" if before is None else f"({before[0]}"
        rows = cast(
            "list[tuple[bytes, float]]",
            self.conn.zrevrangebyscore(self.owner_key(owner), high, "-inf", start=0, num=limit + 1, withscores=True),
        )
        out = [(m.decode(), score) for m, score in rows]
        if before is not None:  # one score may hold several arenas: those up to the cursor's id were shown
            same = cast("list[bytes]", self.conn.zrangebyscore(self.owner_key(owner), before[0], before[0]))
            out = [(m.decode(), before[0]) for m in reversed(same) if m.decode() < before[1]] + out
        return out[:limit]

    @translating
    def running(self) -> list[str]:
        return sorted(m.decode() for m in cast("set[bytes]", self.conn.smembers(self.running_key)))

    @translating
    def is_running(self, arena_id: str) -> bool:
        return bool(self.conn.sismember(self.running_key, arena_id))

    @translating
    def forget(self, arena_id: str) -> None:
        """Drop an arena whose record has expired from the running set."""
        self.conn.srem(self.running_key, arena_id)

    @translating
    def take_slot(self, arena_id: str, index: int, cap: int, lease_ms: int) -> int:
        """Hold game ``index``'s slot among the arena's games in play: TAKEN, or FULL when ``cap`` other games
        are in play, or COUNTED when the game has ended already (nothing taken)."""
        keys = [self.key(arena_id), self.playing_key(arena_id)]
        return int(self._take(keys=keys, args=[self.slot(arena_id, index), lease_ms, cap, index]))

    def _ending_keys(self, arena_id: str, owner: str) -> list[str]:
        return [self.key(arena_id), self.running_key, self.playing_key(arena_id), self.open_key(owner)]

    @translating
    def fail(self, arena_id: str, owner: str, index: int, error: str) -> None:
        """Stop a running arena (``failed``, with ``error``), giving back game ``index``'s slot."""
        self._fail(keys=self._ending_keys(arena_id, owner), args=[self.slot(arena_id, index), arena_id, error])

    @translating
    def cancel(self, arena_id: str, owner: str) -> bool:
        """Stop a running arena (``cancelled``); False when it was over already."""
        keys = [self.key(arena_id), self.running_key, self.open_key(owner)]
        return bool(self._cancel(keys=keys, args=[arena_id]))

    @translating
    def started(self, arena_id: str, index: int, game_id: str) -> None:
        self.conn.hset(self.key(arena_id), f"g:{index}", game_id)

    @translating
    def ended(self, arena_id: str, owner: str, index: int, result: str) -> int:
        """Count game ``index``'s result once (1; 0 when counted before, -1 when the arena is gone) and give
        back its slot."""
        args: list[str | int] = [index, result, self.ttl, self.slot(arena_id, index), arena_id]
        return int(self._ended(keys=self._ending_keys(arena_id, owner), args=args))

"""Arenas, on the queue connection:

- ``<prefix>:arena:<id>``: hash: ``spec`` (JSON), ``games`` (how many it plays), ``status`` (``running``,
  ``finished``, ``failed`` with an ``error``), ``created_at`` and ``finished_at`` (Redis' clock), ``g:<i>`` the id of its game ``i`` once
  created, ``r:<i>`` that game's result once counted, ``done`` how many are counted;
- ``<prefix>:arenas:running``: set of the arenas not finished (the sweep moves each on);
- ``<prefix>:arena:bot:<name>``: sorted set ``<arena>:<i>`` -> lease end (ms, Redis' clock): the arena games
  a bot plays at once, capped (``DOMINO_ARENA_GAMES_PER_BOT``) across every arena. A game takes its slot in
  every one of its bots' sets in one script, and gives them back when its result is counted; a slot whose
  game was lost frees itself when its lease (the idle game's expiry) ends.
"""

from __future__ import annotations

from typing import Any, cast

import redis

from api.store.connections import translating

_NOW = "local t = redis.call('TIME'); local now = t[1] .. '.' .. string.format('%06d', t[2])\n"

# KEYS: record, running set.  ARGV: ttl, id, then field/value pairs.
_CREATE = _NOW + """
redis.call('HSET', KEYS[1], 'created_at', now, 'status', 'running', 'done', 0, unpack(ARGV, 3))
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
"""

# KEYS: record, then the game's bots' sets.  ARGV: slot, lease (ms), cap, game index.  1 when taken (or held
# already), 0 when a bot has no slot free, 2 when the game's result is counted already (nothing taken: a slot
# given back must not be taken again by a step that ran late).
_TAKE = """
if redis.call('HEXISTS', KEYS[1], 'r:' .. ARGV[4]) == 1 then return 2 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cap = tonumber(ARGV[3])
for i = 2, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
  if not redis.call('ZSCORE', KEYS[i], ARGV[1]) and redis.call('ZCARD', KEYS[i]) >= cap then return 0 end
end
for i = 2, #KEYS do
  redis.call('ZADD', KEYS[i], now + tonumber(ARGV[2]), ARGV[1])
  redis.call('PEXPIRE', KEYS[i], ARGV[2])
end
return 1
"""

# KEYS: record, running set, then the game's bots' sets.  ARGV: slot, arena id, error.  A running arena whose
# next game cannot be created stops: ``failed``, with why; that game's slots are given back.
_FAIL = _NOW + """
for i = 3, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('SREM', KEYS[2], ARGV[2])
if redis.call('HGET', KEYS[1], 'status') == 'running' then
  redis.call('HSET', KEYS[1], 'status', 'failed', 'finished_at', now, 'error', ARGV[3])
end
"""

# KEYS: record, running set, then the game's bots' sets.  ARGV: game index, result, ttl, slot, arena id.
# Counts a game's result once and gives its slots back; the last result finishes the arena.
# Returns 1 (counted), 0 (counted before), -1 (no such arena).
_ENDED = _NOW + """
for i = 3, #KEYS do redis.call('ZREM', KEYS[i], ARGV[4]) end
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HSETNX', KEYS[1], 'r:' .. ARGV[1], ARGV[2]) == 0 then return 0 end
local done = redis.call('HINCRBY', KEYS[1], 'done', 1)
if done >= tonumber(redis.call('HGET', KEYS[1], 'games')) then
  redis.call('HSET', KEYS[1], 'status', 'finished', 'finished_at', now)
  redis.call('SREM', KEYS[2], ARGV[5])
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
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

    def key(self, arena_id: str) -> str:
        return f"{self.prefix}:arena:{arena_id}"

    @property
    def running_key(self) -> str:
        return f"{self.prefix}:arenas:running"

    def bot_key(self, bot: str) -> str:
        return f"{self.prefix}:arena:bot:{bot}"

    @staticmethod
    def slot(arena_id: str, index: int) -> str:
        return f"{arena_id}:{index}"

    @translating
    def create(self, arena_id: str, fields: dict[str, Any]) -> None:
        """A new arena, ``running``, with ``created_at`` from Redis' clock."""
        flat: list[Any] = []
        for k, v in fields.items():
            flat.extend((k, v))
        self._create(keys=[self.key(arena_id), self.running_key], args=[self.ttl, arena_id, *flat])

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
    def running(self) -> list[str]:
        return sorted(m.decode() for m in cast("set[bytes]", self.conn.smembers(self.running_key)))

    @translating
    def forget(self, arena_id: str) -> None:
        """Drop an arena whose record has expired from the running set."""
        self.conn.srem(self.running_key, arena_id)

    @translating
    def take_slots(self, arena_id: str, index: int, bots: list[str], cap: int, lease_ms: int) -> int:
        """Hold game ``index``'s slot in every bot's set at once: TAKEN, or FULL when one of them already holds
        ``cap`` other games, or COUNTED when the game has ended already (nothing taken)."""
        keys = [self.key(arena_id), *(self.bot_key(b) for b in sorted(set(bots)))]
        return int(self._take(keys=keys, args=[self.slot(arena_id, index), lease_ms, cap, index]))

    @translating
    def fail(self, arena_id: str, index: int, bots: list[str], error: str) -> None:
        """Stop a running arena (``failed``, with ``error``), giving back game ``index``'s slots."""
        keys = [self.key(arena_id), self.running_key, *(self.bot_key(b) for b in sorted(set(bots)))]
        self._fail(keys=keys, args=[self.slot(arena_id, index), arena_id, error])

    @translating
    def started(self, arena_id: str, index: int, game_id: str) -> None:
        self.conn.hset(self.key(arena_id), f"g:{index}", game_id)

    @translating
    def ended(self, arena_id: str, index: int, bots: list[str], result: str) -> int:
        """Count game ``index``'s result once (1; 0 when counted before, -1 when the arena is gone) and give
        back its bots' slots."""
        keys = [self.key(arena_id), self.running_key, *(self.bot_key(b) for b in sorted(set(bots)))]
        args: list[str | int] = [index, result, self.ttl, self.slot(arena_id, index), arena_id]
        return int(self._ended(keys=keys, args=args))

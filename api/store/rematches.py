"""Rematch offers, on the queue connection (one plain Redis): ``<prefix>:rematch:<game id>``, a hash of the
offer made after a game ended: ``status`` (``open``, ``creating`` once every seat accepted, ``created``,
``declined``, ``expired``), ``expires_at``, ``needed`` (the seats that must accept, JSON), ``next`` (the new
game's id, reserved when the offer is made), ``tokens`` (the new seats' tokens, reserved too, JSON), and
``a:<seat>`` per seat that accepted. Kept a day. One offer per finished game: the first call makes it, and
the script that counts the acceptances is the only one that moves it to ``creating``, once.
"""

from __future__ import annotations

from typing import Any, cast

import orjson
import redis

from api.store.connections import translating

KEPT_S = 24 * 3600

# ARGV: prefix, game, seat, now, expires at, needed (JSON list), next id, tokens (JSON), ttl.
# Returns {status, outcome}: outcome `complete` (this acceptance was the last: status now `creating`),
# `waiting`, `again` (the seat had accepted), or `closed` (not open: see status).
_ACCEPT = """
local k = ARGV[1] .. ':rematch:' .. ARGV[2]
if redis.call('EXISTS', k) == 0 then
  redis.call('HSET', k, 'status', 'open', 'expires_at', ARGV[5], 'needed', ARGV[6], 'next', ARGV[7], 'tokens', ARGV[8])
  redis.call('EXPIRE', k, ARGV[9])
end
local status = redis.call('HGET', k, 'status')
if status == 'open' and tonumber(ARGV[4]) > tonumber(redis.call('HGET', k, 'expires_at')) then
  redis.call('HSET', k, 'status', 'expired')
  status = 'expired'
end
if status ~= 'open' then return {status, 'closed'} end
if redis.call('HSETNX', k, 'a:' .. ARGV[3], 1) == 0 then return {status, 'again'} end
for _, seat in ipairs(cjson.decode(redis.call('HGET', k, 'needed'))) do
  if redis.call('HEXISTS', k, 'a:' .. seat) == 0 then return {status, 'waiting'} end
end
redis.call('HSET', k, 'status', 'creating')
return {'creating', 'complete'}
"""

# ARGV: prefix, game, now, to.  An open offer that has not expired becomes ``to`` (declined); 1, else 0.
_CLOSE = """
local k = ARGV[1] .. ':rematch:' .. ARGV[2]
if redis.call('HGET', k, 'status') ~= 'open' then return 0 end
if tonumber(ARGV[3]) > tonumber(redis.call('HGET', k, 'expires_at')) then
  redis.call('HSET', k, 'status', 'expired')
  return 0
end
redis.call('HSET', k, 'status', ARGV[4])
return 1
"""


class RematchStore:
    def __init__(self, conn: redis.Redis, prefix: str) -> None:
        self.conn = conn
        self.prefix = prefix
        self._accept = conn.register_script(_ACCEPT)
        self._close = conn.register_script(_CLOSE)

    def key(self, game_id: str) -> str:
        return f"{self.prefix}:rematch:{game_id}"

    @translating
    def accept(
        self, game_id: str, seat: int, now: float, expires_at: float, needed: list[int], next_id: str, tokens: list[str | None]
    ) -> tuple[str, str]:
        """``seat`` accepts the offer of ``game_id``, made now if there is none (with these terms): (status, outcome)."""
        args: list[str | int | float | bytes] = [
            self.prefix, game_id, seat, now, expires_at, orjson.dumps(needed), next_id, orjson.dumps(tokens), KEPT_S,
        ]  # fmt: skip
        status, outcome = cast("list[bytes]", self._accept(keys=[], args=args))
        return status.decode(), outcome.decode()

    @translating
    def decline(self, game_id: str, now: float) -> bool:
        return bool(self._close(keys=[], args=[self.prefix, game_id, now, "declined"]))

    @translating
    def created(self, game_id: str) -> None:
        self.conn.hset(self.key(game_id), "status", "created")

    @translating
    def get(self, game_id: str) -> dict[str, Any] | None:
        raw = {k.decode(): v.decode() for k, v in cast("dict[bytes, bytes]", self.conn.hgetall(self.key(game_id))).items()}
        if not raw:
            return None
        return {
            "status": raw["status"],
            "expires_at": float(raw["expires_at"]),
            "needed": orjson.loads(raw["needed"]),
            "next": raw["next"],
            "tokens": orjson.loads(raw["tokens"]),
            "accepted": sorted(int(k[2:]) for k in raw if k.startswith("a:")),
        }

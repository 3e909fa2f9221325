"""Analyses of finished games while they are queued or running, on the queue connection (docs/analysis.md):

- ``<prefix>:an:<game id>``: a hash: ``status`` (queued, running, done, failed), ``client`` (who asked: it holds
  one of its analysis slots until the end), ``nodes``, ``total`` (moves with a choice, once a run has counted
  them), ``done`` (moves analysed so far), ``created_at``/``started_at``/``finished_at`` (Redis' clock),
  ``error``;
- ``<prefix>:an:<game id>:moves``: a list, the moves analysed so far as JSON, in the game's order: a run that
  stops (its worker stopped) resumes after the last one;
- ``<prefix>:an:<game id>:w``: a stream with one entry once the analysis is over (done or failed), which a
  long poll waits on.

Every key expires ``ttl`` after its last write; a finished analysis lives on in the archive.

Fair-play screens (api/service/fairplay.py) are jobs of the same shape: the same keys under ``<prefix>:fp:<screen
id>``, the list holding the positions read so far.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import redis

from api.store.connections import translating

_NOW = "local t = redis.call('TIME'); local now = t[1] .. '.' .. string.format('%06d', t[2])\n"

# KEYS: record, moves, wait.  ARGV: ttl, then field/value pairs.  A new analysis ('' returned), unless one is
# queued, running or done (its status returned); a failed one is started again.
_CREATE = _NOW + """
local st = redis.call('HGET', KEYS[1], 'status')
if st and st ~= 'failed' then return st end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'status', 'queued', 'done', 0, 'created_at', now, unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
return ''
"""

# KEYS: record, moves.  ARGV: ttl, index of the first move given, total, then the moves (JSON).  Appends the
# moves when the list holds exactly ``index`` (a run that resumed elsewhere has gone on: nothing added).
# Returns the list's length, or -1 when the analysis is not queued or running.
_PROGRESS = _NOW + """
local st = redis.call('HGET', KEYS[1], 'status')
if st ~= 'queued' and st ~= 'running' then return -1 end
local n = redis.call('LLEN', KEYS[2])
if n ~= tonumber(ARGV[2]) then return n end
if #ARGV > 3 then n = redis.call('RPUSH', KEYS[2], unpack(ARGV, 4)) end
redis.call('HSET', KEYS[1], 'status', 'running', 'done', n, 'total', ARGV[3])
redis.call('HSETNX', KEYS[1], 'started_at', now)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[1]))
return n
"""

# KEYS: record, moves, wait.  ARGV: ttl, status (done | failed), error.  Ends a queued or running analysis;
# returns the status it had ('' if none).
_END = _NOW + """
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return '' end
if st == 'queued' or st == 'running' then
  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'finished_at', now)
  if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'error', ARGV[3]) end
  if ARGV[2] == 'done' then redis.call('DEL', KEYS[2]) end
  redis.call('XADD', KEYS[3], '*', 'status', ARGV[2])
  redis.call('EXPIRE', KEYS[3], tonumber(ARGV[1]))
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
end
return st
"""


class AnalysisStore:
    def __init__(self, conn: redis.Redis, blocking: Callable[[], redis.Redis], prefix: str, ttl: int, kind: str = "an") -> None:
        self.conn = conn
        self.kind = kind
        self.blocking = blocking
        self.prefix = prefix
        self.ttl = ttl
        self._create = conn.register_script(_CREATE)
        self._progress = conn.register_script(_PROGRESS)
        self._end = conn.register_script(_END)

    def _keys(self, game_id: str) -> list[str]:
        key = f"{self.prefix}:{self.kind}:{game_id}"
        return [key, f"{key}:moves", f"{key}:w"]

    @translating
    def create(self, game_id: str, fields: dict[str, Any]) -> str | None:
        """Queue a new analysis of ``game_id`` with ``fields`` (``client``, ``nodes``), unless one is queued,
        running or done: None when created, else the status of the one there."""
        args: list[Any] = [self.ttl]
        for k, v in fields.items():
            args.extend((k, v))
        found = self._create(keys=self._keys(game_id), args=args).decode()
        return found or None

    @translating
    def load(self, game_id: str) -> dict[str, str] | None:
        raw = cast("dict[bytes, bytes]", self.conn.hgetall(self._keys(game_id)[0]))
        return {k.decode(): v.decode() for k, v in raw.items()} if raw else None

    @translating
    def moves(self, game_id: str) -> list[str]:
        """The moves analysed so far (JSON), in the game's order."""
        return [m.decode() for m in cast("list[bytes]", self.conn.lrange(self._keys(game_id)[1], 0, -1))]

    @translating
    def progress(self, game_id: str, index: int, total: int, moves: list[str]) -> int:
        """Add ``moves`` (JSON) as the analysed moves from ``index`` on, of ``total``: the count kept now (not
        ``index + len(moves)`` when another run got there first), or -1 when the analysis is over."""
        return int(self._progress(keys=self._keys(game_id)[:2], args=[self.ttl, index, total, *moves]))

    @translating
    def end(self, game_id: str, status: str, error: str = "") -> str | None:
        """Mark a queued or running analysis ``done`` (its moves are in the archive now) or ``failed``; returns
        the status it had (None: no such analysis)."""
        found = self._end(keys=self._keys(game_id), args=[self.ttl, status, error[:500]]).decode()
        return found or None

    @translating
    def wait_over(self, game_id: str, block_ms: int) -> None:
        """Return once the analysis is over, or after ``block_ms`` (a blocking XREAD: nothing polled)."""
        self.blocking().xread({self._keys(game_id)[2]: "0-0"}, count=1, block=block_ms)

"""Simulation records, on the queue connection: ``<prefix>:sim:<id>`` (hash: status, spec, timestamps from
Redis' clock, counts ``c:*``, the owner's token hash and the creating client), ``<prefix>:sim:<id>:chunks``
(set of the chunk indexes already counted) and one index per client ``<prefix>:sims:index:<client>`` (sorted
set id -> created_at, the index ``GET /v1/simulations`` pages through for that client; its entries go when
their records expire). Every write that refreshes a record's expiry refreshes its index's too, so the index
outlives every record.
"""

from __future__ import annotations

from typing import Any, cast

import redis

from api.store.connections import scored, translating

_NOW = "local t = redis.call('TIME'); local now = t[1] .. '.' .. string.format('%06d', t[2])\n"

# KEYS: record, index.  ARGV: ttl, id, then field/value pairs.  Returns up to 100 index entries created more
# than ttl ago: their records are gone unless a chunk counted since refreshed them (the caller checks).
_CREATE = _NOW + """
local ttl = tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'created_at', now, unpack(ARGV, 3))
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], now, ARGV[2])
redis.call('EXPIRE', KEYS[2], ttl)
return redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. (tonumber(t[1]) - ttl), 'LIMIT', 0, 100)
"""

# KEYS: record, chunk set.  ARGV: chunk.  Returns the status found ('done' if counted, 'gone' if none).
_START = _NOW + """
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return 'gone' end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 'done' end
if st == 'queued' then
  redis.call('HSET', KEYS[1], 'status', 'running')
  redis.call('HSETNX', KEYS[1], 'started_at', now)
end
return st
"""

# KEYS: record, chunk set, index.  ARGV: chunk, ttl, then count/increment pairs.  Adds a chunk's counts once.
_ADD = _NOW + """
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return -2 end
if st == 'cancelled' or st == 'failed' then return -1 end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
for i = 3, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('HSETNX', KEYS[1], 'started_at', now)
local done = redis.call('HINCRBY', KEYS[1], 'chunks_done', 1)
if done >= tonumber(redis.call('HGET', KEYS[1], 'chunks')) then
  redis.call('HSET', KEYS[1], 'status', 'finished', 'finished_at', now)
elseif st == 'queued' then
  redis.call('HSET', KEYS[1], 'status', 'running')
end
local ttl = tonumber(ARGV[2])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('EXPIRE', KEYS[3], ttl)
return 1
"""

# KEYS: record.  ARGV: new status (cancelled | failed), error.  Returns the status found ('' if none).
_END = _NOW + """
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return '' end
if st == 'queued' or st == 'running' then
  redis.call('HSET', KEYS[1], 'status', ARGV[1], 'finished_at', now)
  if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'error', ARGV[2]) end
end
return st
"""


def _flat(fields: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for k, v in fields.items():
        out.extend((k, v))
    return out


def _decoded(raw: dict[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in raw.items()}


class SimulationStore:
    def __init__(self, conn: redis.Redis, prefix: str, ttl: int) -> None:
        self.conn = conn
        self.prefix = prefix
        self.ttl = ttl
        self._create = conn.register_script(_CREATE)
        self._start = conn.register_script(_START)
        self._add = conn.register_script(_ADD)
        self._end = conn.register_script(_END)

    def key(self, sim_id: str) -> str:
        return f"{self.prefix}:sim:{sim_id}"

    def chunks_key(self, sim_id: str) -> str:
        return f"{self.prefix}:sim:{sim_id}:chunks"

    def index_key(self, client: str) -> str:
        return f"{self.prefix}:sims:index:{client}"

    @translating
    def create(self, sim_id: str, client: str, fields: dict[str, Any]) -> None:
        """Write a new record (``status`` queued, its spec, zero counts, ``client``) with ``created_at`` from
        Redis' clock, so workers on other machines share one clock, and add it to the client's index; index
        entries older than the records' expiry whose records are gone are dropped here."""
        index = self.index_key(client)
        args = [self.ttl, sim_id, *_flat({**fields, "client": client})]
        old = self._create(keys=[self.key(sim_id), index], args=args)
        if old:
            ids = [member.decode() for member in old]
            pipe = self.conn.pipeline(transaction=False)
            for old_id in ids:
                pipe.exists(self.key(old_id))
            self.forget(client, *(old_id for old_id, alive in zip(ids, pipe.execute()) if not alive))

    @translating
    def index_page(self, client: str, before: tuple[float, str] | None, limit: int) -> list[tuple[str, float]]:
        """Up to ``limit`` of ``client``'s index entries (id, created_at), newest first, from the one after
        the entry ``before`` = (created_at, id) (None: from the newest). Entries of one instant come by id,
        descending, as ZREVRANGE orders them, so a cursor between two of them neither repeats nor skips one."""
        key = self.index_key(client)
        if before is None:
            return scored(self.conn.zrevrangebyscore(key, "+inf", "-inf", start=0, num=limit, withscores=True))
        created_at, sim_id = before
        pipe = self.conn.pipeline(transaction=False)
        pipe.zrevrangebyscore(key, repr(created_at), repr(created_at))  # the cursor's instant: one entry, rarely more
        pipe.zrevrangebyscore(key, f"({created_at!r}", "-inf", start=0, num=limit, withscores=True)
        ties, older = pipe.execute()
        page = [(member.decode(), created_at) for member in ties if member.decode() < sim_id]
        page.extend(scored(older))
        return page[:limit]

    @translating
    def load_many(self, sim_ids: list[str]) -> tuple[list[dict[str, str] | None], float]:
        """(each record's fields or None where it is gone, Redis' clock now), in one round trip."""
        pipe = self.conn.pipeline(transaction=False)
        for sim_id in sim_ids:
            pipe.hgetall(self.key(sim_id))
        pipe.time()
        *raws, (sec, usec) = pipe.execute()
        return [_decoded(raw) if raw else None for raw in raws], sec + usec / 1e6

    @translating
    def delete(self, sim_id: str, client: str) -> bool:
        """Remove a simulation's record, chunk set and entry in its creator's (``client``'s) index; False when
        there was no record."""
        pipe = self.conn.pipeline(transaction=True)
        pipe.delete(self.key(sim_id))
        pipe.delete(self.chunks_key(sim_id))
        pipe.zrem(self.index_key(client), sim_id)
        return bool(pipe.execute()[0])

    @translating
    def forget(self, client: str, *sim_ids: str) -> None:
        """Drop entries of ``client``'s index (of records that are gone)."""
        if sim_ids:
            self.conn.zrem(self.index_key(client), *sim_ids)

    @translating
    def load(self, sim_id: str) -> tuple[dict[str, str], float] | None:
        """(the record's fields, Redis' clock now), or None."""
        pipe = self.conn.pipeline(transaction=False)
        pipe.hgetall(self.key(sim_id))
        pipe.time()
        raw, (sec, usec) = pipe.execute()
        if not raw:
            return None
        return _decoded(raw), sec + usec / 1e6

    @translating
    def status(self, sim_id: str) -> str | None:
        raw = cast("bytes | None", self.conn.hget(self.key(sim_id), "status"))
        return None if raw is None else raw.decode()

    @translating
    def statuses(self, sim_ids: list[str]) -> list[str | None]:
        """Each one's status (None: gone), in one round trip."""
        pipe = self.conn.pipeline(transaction=False)
        for sim_id in sim_ids:
            pipe.hget(self.key(sim_id), "status")
        return [None if raw is None else raw.decode() for raw in pipe.execute()]

    @translating
    def start_chunk(self, sim_id: str, chunk: int) -> str:
        """Before a chunk runs: ``queued`` becomes ``running``. Returns the status it found, ``done`` when
        this chunk was already counted, ``gone`` when there is no record."""
        return str(self._start(keys=[self.key(sim_id), self.chunks_key(sim_id)], args=[chunk]).decode())

    @translating
    def chunk_counted(self, sim_id: str, chunk: int) -> bool:
        return bool(self.conn.sismember(self.chunks_key(sim_id), str(chunk)))

    @translating
    def add_chunk(self, sim_id: str, client: str, chunk: int, counts: dict[str, int]) -> int:
        """Add one chunk's counts once: 1 added, 0 already counted, -1 the simulation was cancelled or failed
        (nothing added), -2 gone. The last chunk turns the status to ``finished``. ``client``: the creator,
        whose index is kept as long as the record."""
        keys = [self.key(sim_id), self.chunks_key(sim_id), self.index_key(client)]
        return int(self._add(keys=keys, args=[chunk, self.ttl, *_flat(counts)]))

    @translating
    def end(self, sim_id: str, status: str, error: str = "") -> str | None:
        """Cancel or fail a queued or running simulation. Returns the status it had (None: no such record);
        a simulation already over keeps its status."""
        raw = self._end(keys=[self.key(sim_id)], args=[status, error])
        return None if not raw else raw.decode()

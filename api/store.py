"""Redis: the only module that imports redis, builds keys, and makes the connections (RQ's included).

Per game (hash-tagged, so a game lives on one Cluster slot):

- ``<prefix>:{<id>}:state``   hash ``v`` (version), ``doc`` (the game document, JSON) and, while a seat is to
  move, ``t``: the turn notice ``[<stream id>, turn_started event]``, read together with ``events`` (only the
  latest is kept: an old one serves nobody, and a stream costs 4 KiB even for one entry)
- ``<prefix>:{<id>}:events``  stream, ids ``<version>-<n>``, field ``e`` (one event, JSON)
- ``<prefix>:{<id>}:idem``    hash: idempotency fingerprint -> first answer of a move

Cross-game keys live on the queue connection: ``<prefix>:bots:due`` (sorted set game id -> due time),
``<prefix>:bots:attempt`` (hash game id -> "<version>:<attempt>"), ``<prefix>:idem:create:<sha>``, the
simulation records ``<prefix>:sim:<id>`` (hash) with ``<prefix>:sim:<id>:chunks`` (set of counted chunks),
and ``<prefix>:sims`` (sorted set simulation id -> created_at: the index ``GET /v1/simulations`` pages
through; its entries go when their records expire, and it expires with the last of them).

Every Redis ``ConnectionError``/``TimeoutError`` surfaces as :class:`StoreUnavailable` (a fast 503).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ParamSpec, TypeAlias, TypeVar, cast

import orjson
import redis
from redis import Redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from api.config import Settings
from api.store_cluster import UNAVAILABLE, ReplicaWait, connect_cluster, is_cluster

P = ParamSpec("P")
R = TypeVar("R")


class StoreUnavailable(Exception):
    """Redis did not answer in time (or refused): nothing was changed by us."""


@contextlib.contextmanager
def translated() -> Iterator[None]:
    """Translate Redis connection trouble into StoreUnavailable around calls RQ makes on our connections."""
    try:
        yield
    except UNAVAILABLE as exc:
        raise StoreUnavailable(type(exc).__name__) from exc


def _translated(fn: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except UNAVAILABLE as exc:
            raise StoreUnavailable(type(exc).__name__) from exc

    return wrapper


# KEYS: state, events, idem.  ARGV: expected version (-1: must not exist), new version, doc, ttl,
# idem field ("" for none), idem value, a nonce of this call, the idempotency records' ttl (at most the
# game's: a finished game is kept for days, its per-move answers only as long as a retry makes sense), the
# turn notice ("" for none), then the events' payloads.
# Returns {1, new version} on success, {0, current version} on a conflict, {-1, -1} if the game is gone.
# The nonce makes a retry safe: when redis-py retries a call whose first try landed but whose answer was
# lost (a timeout), the retry finds its own nonce and reports success instead of a conflict (which the
# service would answer by validating the same move again on the state that already has it).
_COMMIT = """
local cur = redis.call('HGET', KEYS[1], 'v')
local expected = tonumber(ARGV[1])
if cur and tonumber(cur) == tonumber(ARGV[2]) and redis.call('HGET', KEYS[1], 'n') == ARGV[7] then
  return {1, tonumber(cur)}
end
if expected < 0 then
  if cur then return {0, tonumber(cur)} end
else
  if not cur then return {-1, -1} end
  if tonumber(cur) ~= expected then return {0, tonumber(cur)} end
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'doc', ARGV[3], 'n', ARGV[7])
for i = 10, #ARGV do
  redis.call('XADD', KEYS[2], ARGV[2] .. '-' .. (i - 9), 'e', ARGV[i])
end
if ARGV[9] ~= '' then
  redis.call('HSET', KEYS[1], 't', ARGV[9])
else
  redis.call('HDEL', KEYS[1], 't')
end
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[5], ARGV[6])
end
local ttl = tonumber(ARGV[4])
for i = 1, 2 do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('EXPIRE', KEYS[i], ttl) end
end
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('EXPIRE', KEYS[3], math.min(ttl, tonumber(ARGV[8]))) end
return {1, tonumber(ARGV[2])}
"""

# KEYS: due set, attempt hash.  ARGV: game id, score it had when read.  Removes only an unchanged entry.
_CLEAR_DUE_IF = """
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s and tonumber(s) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
return 0
"""

# Simulation records: ``<prefix>:sim:<id>`` (hash: status, spec, timestamps from Redis' clock, counts ``c:*``),
# ``<prefix>:sim:<id>:chunks`` (set of the chunk indexes already counted) and the index ``<prefix>:sims``.
# Every write that refreshes a record's expiry refreshes the index's too, so the index outlives every record.
_SIM_NOW = "local t = redis.call('TIME'); local now = t[1] .. '.' .. string.format('%06d', t[2])\n"

# KEYS: record, index.  ARGV: ttl, id, then field/value pairs.  Returns up to 100 index entries created more
# than ttl ago: their records are gone unless a chunk counted since refreshed them (the caller checks).
_SIM_CREATE = _SIM_NOW + """
local ttl = tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'created_at', now, unpack(ARGV, 3))
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], now, ARGV[2])
redis.call('EXPIRE', KEYS[2], ttl)
return redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. (tonumber(t[1]) - ttl), 'LIMIT', 0, 100)
"""

# KEYS: record, chunk set.  ARGV: chunk.  Returns the status found ('done' if counted, 'gone' if none).
_SIM_START = _SIM_NOW + """
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
_SIM_ADD = _SIM_NOW + """
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
_SIM_END = _SIM_NOW + """
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return '' end
if st == 'queued' or st == 'running' then
  redis.call('HSET', KEYS[1], 'status', ARGV[1], 'finished_at', now)
  if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'error', ARGV[2]) end
end
return st
"""


# KEYS: a client's rate-limit counter.  ARGV: window (ms), requests to count (an API process may take a
# few at once).  A fixed window that starts at its first request.
_RATE_HIT = """
local n = redis.call('INCRBY', KEYS[1], ARGV[2] or 1)
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
"""


# Replies as our connections give them (none sets decode_responses, so strings come as bytes): redis-py's
# types allow str too and do not follow WITHSCORES; a cast to one of these states what we asked for.
_Entries: TypeAlias = list[tuple[bytes, dict[bytes, bytes]]]  # XRANGE
_Scored: TypeAlias = list[tuple[bytes, float]]  # Z*RANGEBYSCORE ... WITHSCORES


def _flat(fields: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for k, v in fields.items():
        out.extend((k, v))
    return out


def _id_order(stream_id: str) -> tuple[int, int]:
    version, _, n = stream_id.partition("-")
    return int(version), int(n)


def _stream_replies(reply: Any) -> Iterable[tuple[Any, list[Any]]]:
    """XREAD's answer as (key, entries) pairs: a list of pairs in RESP2, a dict in RESP3."""
    if not reply:
        return ()
    return reply.items() if isinstance(reply, dict) else reply


def _with_notice(
    events: list[tuple[str, dict[str, Any]]], notice: bytes | None, after_id: str, count: int | None
) -> list[tuple[str, dict[str, Any]]]:
    """``events`` read after ``after_id``, ended by the turn notice (read just after them) when it is due."""
    if notice is None:
        return events
    notice_id, turn = orjson.loads(notice)
    version = _id_order(notice_id)[0]
    if events:
        # It ends the commit whose events end this read, unless the read was cut at ``count`` (the notice
        # then comes with the read that reaches it), or a newer commit landed between the XREAD and the HGET
        # (its events come with the next read, then its notice).
        due = version == _id_order(events[-1][0])[0] and (count is None or len(events) < count)
    else:  # nothing new but the notice itself: the reader stopped between the events and their notice
        due = version == _id_order(after_id)[0] and _id_order(notice_id) > _id_order(after_id)
    return [*events, (notice_id, turn)] if due else events


class EventFollower:
    """Reads one game's events, as :meth:`Store.read_events` does, on a connection of its own from the
    blocking pool, held until :meth:`close`: an event stream wakes once per commit for as long as a game
    lasts, and this way each wake is one round trip with no pool traffic or retry wrapping in between."""

    def __init__(self, store: Store, game_id: str) -> None:
        self.store = store
        self.game_id = game_id
        self.pool: Any = None
        self.events_key = store.events_key(game_id)
        self.state_key = store.state_key(game_id)
        self.conn: Any = None

    def read(
        self, after_id: str, block_ms: int | None = None, count: int | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        xread: list[Any] = ["XREAD"]
        if count is not None:
            xread += ["COUNT", count]
        if block_ms:
            xread += ["BLOCK", block_ms]
        xread += ["STREAMS", self.events_key, after_id]
        with translated():
            if isinstance(self.store.blocking_connection(), RedisCluster):
                # The game's node answers, through the cluster client: it follows a failover or a resharding
                # of the game's slot between two reads (a connection held to one node would not).
                return self.store.read_events(self.game_id, after_id, block_ms, count)
            if self.conn is None:
                self.pool = cast(Redis, self.store.blocking_connection()).connection_pool
                self.conn = self.pool.get_connection()
            try:
                self.conn.send_packed_command(self.conn.pack_commands([xread, ("HGET", self.state_key, "t")]))
                reply, notice = self.conn.read_response(), self.conn.read_response()
            except BaseException:
                self.conn.disconnect()  # a half-read answer must not reach the next user of the connection
                self.close()
                raise
        events = [
            (entry[0].decode(), orjson.loads(entry[1][1])) for _key, entries in _stream_replies(reply) for entry in entries
        ]
        return _with_notice(events, notice, after_id, count)

    def close(self) -> None:
        if self.conn is not None:
            self.pool.release(self.conn)
            self.conn = None


@dataclasses.dataclass(frozen=True)
class Record:
    version: int
    doc: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class CommitResult:
    ok: bool
    current_version: int | None  # None: the game is gone


class Store:
    """Keys and atomic operations of domino-service. Connections are made lazily (no I/O here)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.prefix = settings.key_prefix
        self.queue_redis = self._connect(settings.effective_queue_url)
        self._games: Redis | RedisCluster | None = None  # found out at first use (see ``redis``)
        self._blocking: Redis | RedisCluster | None = None
        self._connecting = threading.Lock()
        self._replica_wait = ReplicaWait(settings.replica_wait_ms)
        # Scripts are registered on the queue connection (no I/O) and run on whichever holds their keys.
        self._commit = self.queue_redis.register_script(_COMMIT)
        self._clear_due_if = self.queue_redis.register_script(_CLEAR_DUE_IF)
        self._sim_create = self.queue_redis.register_script(_SIM_CREATE)
        self._sim_start = self.queue_redis.register_script(_SIM_START)
        self._sim_add = self.queue_redis.register_script(_SIM_ADD)
        self._sim_end = self.queue_redis.register_script(_SIM_END)
        self._rate_hit = self.queue_redis.register_script(_RATE_HIT)

    @property
    def redis(self) -> Redis | RedisCluster:
        """The game state's connection: a plain Redis, or a cluster client when ``DOMINO_REDIS_URL`` names a
        node of a cluster (asked once, at the first use; a Redis that does not answer is asked again at the
        next). The queue connection is the same plain Redis unless ``DOMINO_QUEUE_URL`` names another."""
        if self._games is None:
            with self._connecting:
                if self._games is None:
                    self._games = self._connect_games()
        return self._games

    def _connect_games(self) -> Redis | RedisCluster:
        s = self.settings
        if not is_cluster(s.redis_url, s.socket_connect_timeout):
            return self.queue_redis if s.effective_queue_url == s.redis_url else self._connect(s.redis_url)
        if s.effective_queue_url == s.redis_url:
            raise RuntimeError("DOMINO_REDIS_URL is a Redis Cluster: DOMINO_QUEUE_URL must name a plain Redis for the queues")
        return connect_cluster(s.redis_url, s, s.socket_timeout)

    @property
    def cluster(self) -> bool:
        return isinstance(self.redis, RedisCluster)

    def _connect(self, url: str) -> Redis:
        s = self.settings
        return redis.Redis.from_url(
            url,
            socket_timeout=s.socket_timeout,
            socket_connect_timeout=s.socket_connect_timeout,
            # Retry a dropped connection (a restarted Redis, a stale pooled socket) once, at once; never a
            # timeout: a Redis that does not answer within socket_timeout gets no second wait, so the 503 comes
            # within a second (DESIGN §3).
            retry=Retry(NoBackoff(), s.redis_retries, supported_errors=(redis.exceptions.ConnectionError,)),
            health_check_interval=30,
        )

    def rq_connection(self) -> Redis:
        """The connection RQ uses (queues, workers, the bot-due set). Bytes, not decoded strings."""
        return self.queue_redis

    def worker_connection(self) -> Redis:
        """A connection for a worker's blocking dequeue: no short read timeout (RQ blocks on BLMOVE)."""
        s = self.settings
        return redis.Redis.from_url(
            s.effective_queue_url,
            socket_connect_timeout=max(s.socket_connect_timeout, 2.0),
            retry=Retry(NoBackoff(), s.redis_retries),
            health_check_interval=30,
        )

    # -- keys -------------------------------------------------------------------------------------------

    def state_key(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:state"

    def events_key(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:events"

    def idem_key(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:idem"

    def game_keys(self, game_id: str) -> list[str]:
        return [self.state_key(game_id), self.events_key(game_id), self.idem_key(game_id)]

    @property
    def due_key(self) -> str:
        return f"{self.prefix}:bots:due"

    @property
    def attempt_key(self) -> str:
        return f"{self.prefix}:bots:attempt"

    def create_idem_key(self, key_hash: str) -> str:
        return f"{self.prefix}:idem:create:{key_hash}"

    # -- games ------------------------------------------------------------------------------------------

    @_translated
    def load(self, game_id: str) -> Record | None:
        version, doc = self.redis.hmget(self.state_key(game_id), ["v", "doc"])
        if version is None or doc is None:
            return None
        return Record(int(version), orjson.loads(doc))

    @_translated
    def version(self, game_id: str) -> int | None:
        v = self.redis.hget(self.state_key(game_id), "v")
        return None if v is None else int(v)

    @_translated
    def commit(
        self,
        game_id: str,
        expected_version: int | None,
        version: int,
        doc: dict[str, Any],
        events: Sequence[dict[str, Any]],
        ttl: int,
        idempotency: tuple[str, bytes] | None = None,
        turn: dict[str, Any] | None = None,
    ) -> CommitResult:
        """Atomically: check the version (``None``: the game must not exist), write the document, append the
        events as ``<version>-<n>`` (then ``turn``, the turn notice, replacing the previous one), record an
        idempotent answer, refresh the expiry of every game key."""
        idem_field, idem_value = idempotency if idempotency else ("", b"")
        args: list[Any] = [
            -1 if expected_version is None else expected_version,
            version,
            orjson.dumps(doc),
            ttl,
            idem_field,
            idem_value,
            secrets.token_hex(8),
            self.settings.idempotency_ttl,
            b"" if turn is None else orjson.dumps([f"{version}-{len(events) + 1}", turn]),
        ]
        args.extend(orjson.dumps(e) for e in events)
        games = self.redis
        status, current = self._commit(keys=self.game_keys(game_id), args=args, client=games)
        if int(status) == 1:
            if isinstance(games, RedisCluster):
                self._replica_wait(games, self.state_key(game_id))
            return CommitResult(True, int(current))
        return CommitResult(False, None if int(status) < 0 else int(current))

    @_translated
    def events(self, game_id: str, after_version: int | None = None) -> list[tuple[str, dict[str, Any]]]:
        start = "-" if after_version is None else f"{after_version + 1}-0"
        out = []
        entries = self.redis.xrange(self.events_key(game_id), min=start, max="+")
        for raw_id, fields in cast(_Entries, entries):
            out.append((raw_id.decode(), orjson.loads(fields[b"e"])))
        return out

    @_translated
    def delete_game(self, game_id: str) -> None:
        self.redis.delete(*self.game_keys(game_id))

    @_translated
    def move_answer(self, game_id: str, field: str) -> bytes | None:
        return cast("bytes | None", self.redis.hget(self.idem_key(game_id), field))

    @_translated
    def create_answer(self, key_hash: str) -> bytes | None:
        return cast("bytes | None", self.queue_redis.get(self.create_idem_key(key_hash)))

    @_translated
    def put_create_answer(self, key_hash: str, blob: bytes) -> bool:
        """Record the first answer of a create; False when another request recorded one first."""
        return bool(self.queue_redis.set(self.create_idem_key(key_hash), blob, nx=True, ex=self.settings.idempotency_ttl))

    # -- computer players' turns ---------------------------------------------------------------------------

    @_translated
    def mark_bot_due(self, game_id: str, due_at: float) -> None:
        self.queue_redis.zadd(self.due_key, {game_id: due_at})

    @_translated
    def clear_bot_due(self, game_id: str) -> None:
        pipe = self.queue_redis.pipeline(transaction=True)
        pipe.zrem(self.due_key, game_id)
        pipe.hdel(self.attempt_key, game_id)
        pipe.execute()

    @_translated
    def clear_bot_due_if(self, game_id: str, score: float) -> bool:
        """Remove the entry only if nobody re-marked it since it was read with ``score``."""
        return bool(self._clear_due_if(keys=[self.due_key, self.attempt_key], args=[game_id, repr(score)]))

    @_translated
    def bot_due(self, game_id: str) -> float | None:
        return self.queue_redis.zscore(self.due_key, game_id)

    @_translated
    def overdue_bots(self, now: float | None = None, limit: int = 500) -> list[tuple[str, float]]:
        now = time.time() if now is None else now
        rows = self.queue_redis.zrangebyscore(self.due_key, "-inf", now, start=0, num=limit, withscores=True)
        return [(member.decode(), float(score)) for member, score in cast(_Scored, rows)]

    @_translated
    def next_bot_attempt(self, game_id: str, version: int) -> int:
        """1, 2, ... for the sweep's re-enqueues of one game version (the API's first enqueue is attempt 0)."""
        raw = cast("bytes | None", self.queue_redis.hget(self.attempt_key, game_id))
        attempt = 1
        if raw is not None:
            v, _, a = raw.decode().partition(":")
            if v == str(version):
                attempt = int(a) + 1
        self.queue_redis.hset(self.attempt_key, game_id, f"{version}:{attempt}")
        return attempt

    # -- events, lobby, turn deadlines, webhooks (issue 5) ----------------------------------------------------
    #
    # Game connection: ``<prefix>:{<id>}:ticket:<sha>`` (a stream ticket -> seat, short TTL).
    # Queue connection: ``<prefix>:lobby`` (sorted set game id -> created_at, listed games with an open seat),
    # ``<prefix>:turns:due`` (sorted set game id -> turn deadline) with ``<prefix>:turns:attempt``, and
    # ``<prefix>:hooks:due`` (sorted set "<game id>:<version>" -> next delivery) with ``<prefix>:hooks:attempt``.

    def blocking_connection(self) -> Redis | RedisCluster:
        """The connection for long polls and streams: its read timeout is above the longest wait, so a
        blocking XREAD is never cut short by the request connections' 0.5 s timeout. On a cluster, a cluster
        client of its own: each read goes to the node that owns the game."""
        if self._blocking is None:
            s = self.settings
            timeout = max(s.max_wait, s.keepalive_interval) + 5.0
            if self.cluster:
                self._blocking = connect_cluster(s.redis_url, s, timeout)
            else:
                self._blocking = redis.Redis.from_url(
                    s.redis_url,
                    socket_timeout=timeout,
                    socket_connect_timeout=s.socket_connect_timeout,
                    retry=Retry(NoBackoff(), s.redis_retries),
                    health_check_interval=30,
                )
        return self._blocking

    @_translated
    def read_events(
        self, game_id: str, after_id: str, block_ms: int | None = None, count: int | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        """Events with stream ids greater than ``after_id``, ended by the turn notice when it is among them;
        with ``block_ms``, wait up to that long for the next commit (XREAD BLOCK on the blocking connection:
        no lock held, nothing polled). A notice already due is no commit: read without ``block_ms`` first."""
        conn = self.blocking_connection() if block_ms else self.redis
        # One round trip: Redis answers the HGET after the XREAD, blocked or not, so the notice read is the
        # one committed with the events read (a commit is atomic).
        pipe = conn.pipeline(transaction=False)
        pipe.xread({self.events_key(game_id): after_id}, count=count, block=block_ms or None)
        pipe.hget(self.state_key(game_id), "t")
        reply, notice = pipe.execute()
        events = [
            (raw_id.decode(), orjson.loads(fields[b"e"])) for _key, entries in _stream_replies(reply) for raw_id, fields in entries
        ]
        return _with_notice(events, notice, after_id, count)

    def follow(self, game_id: str) -> EventFollower:
        """A reader of one game's events for as long as a stream lasts (see :class:`EventFollower`)."""
        return EventFollower(self, game_id)

    def ticket_key(self, game_id: str, ticket_hash: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:ticket:{ticket_hash}"

    @_translated
    def put_ticket(self, game_id: str, ticket_hash: str, seat: int, ttl: int) -> None:
        self.redis.set(self.ticket_key(game_id, ticket_hash), seat, ex=ttl)

    @_translated
    def ticket_seat(self, game_id: str, ticket_hash: str) -> int | None:
        raw = self.redis.get(self.ticket_key(game_id, ticket_hash))
        return None if raw is None else int(raw)

    @property
    def lobby_key(self) -> str:
        return f"{self.prefix}:lobby"

    @_translated
    def lobby_add(self, game_id: str, created_at: float) -> None:
        self.queue_redis.zadd(self.lobby_key, {game_id: created_at})

    @_translated
    def lobby_remove(self, *game_ids: str) -> None:
        if game_ids:
            self.queue_redis.zrem(self.lobby_key, *game_ids)

    @_translated
    def lobby_page(self, before: float | None, limit: int) -> list[tuple[str, float]]:
        """Newest first: games created strictly before ``before`` (None: from the newest)."""
        top = "+inf" if before is None else f"({before!r}"
        rows = self.queue_redis.zrevrangebyscore(self.lobby_key, top, "-inf", start=0, num=limit, withscores=True)
        return [(member.decode(), float(score)) for member, score in cast(_Scored, rows)]

    @property
    def turns_due_key(self) -> str:
        return f"{self.prefix}:turns:due"

    @property
    def turns_attempt_key(self) -> str:
        return f"{self.prefix}:turns:attempt"

    @_translated
    def mark_turn_due(self, game_id: str, deadline: float) -> None:
        self.queue_redis.zadd(self.turns_due_key, {game_id: deadline})

    @_translated
    def turn_due(self, game_id: str) -> float | None:
        return self.queue_redis.zscore(self.turns_due_key, game_id)

    @_translated
    def overdue_turns(self, now: float | None = None, limit: int = 500) -> list[tuple[str, float]]:
        now = time.time() if now is None else now
        rows = self.queue_redis.zrangebyscore(self.turns_due_key, "-inf", now, start=0, num=limit, withscores=True)
        return [(member.decode(), float(score)) for member, score in cast(_Scored, rows)]

    @_translated
    def clear_turn_due_if(self, game_id: str, score: float) -> bool:
        keys = [self.turns_due_key, self.turns_attempt_key]
        return bool(self._clear_due_if(keys=keys, args=[game_id, repr(score)]))

    @_translated
    def next_turn_attempt(self, game_id: str, version: int) -> int:
        """0, 1, ... for the sweep's timeout jobs of one game version (distinct job ids)."""
        raw = cast("bytes | None", self.queue_redis.hget(self.turns_attempt_key, game_id))
        attempt = 0
        if raw is not None:
            v, _, a = raw.decode().partition(":")
            if v == str(version):
                attempt = int(a) + 1
        self.queue_redis.hset(self.turns_attempt_key, game_id, f"{version}:{attempt}")
        return attempt

    @property
    def hooks_due_key(self) -> str:
        return f"{self.prefix}:hooks:due"

    @property
    def hooks_attempt_key(self) -> str:
        return f"{self.prefix}:hooks:attempt"

    @_translated
    def mark_hook_due(self, game_id: str, version: int, due_at: float, attempt: int) -> None:
        """The next delivery of the webhook for ``version`` (``attempt`` counts the deliveries begun)."""
        member = f"{game_id}:{version}"
        pipe = self.queue_redis.pipeline(transaction=True)
        pipe.zadd(self.hooks_due_key, {member: due_at})
        pipe.hset(self.hooks_attempt_key, member, attempt)
        pipe.execute()

    @_translated
    def hook_attempt(self, game_id: str, version: int) -> int | None:
        raw = self.queue_redis.hget(self.hooks_attempt_key, f"{game_id}:{version}")
        return None if raw is None else int(raw)

    @_translated
    def clear_hook(self, game_id: str, version: int) -> None:
        member = f"{game_id}:{version}"
        pipe = self.queue_redis.pipeline(transaction=True)
        pipe.zrem(self.hooks_due_key, member)
        pipe.hdel(self.hooks_attempt_key, member)
        pipe.execute()

    @_translated
    def overdue_hooks(self, now: float | None = None, limit: int = 500) -> list[tuple[str, int, int]]:
        """(game id, version, deliveries begun) of webhooks whose next delivery is due."""
        now = time.time() if now is None else now
        members = self.queue_redis.zrangebyscore(self.hooks_due_key, "-inf", now, start=0, num=limit)
        out = []
        for member in cast("list[bytes]", members):
            game_id, _, version = member.decode().rpartition(":")
            raw = self.queue_redis.hget(self.hooks_attempt_key, member)
            out.append((game_id, int(version), 0 if raw is None else int(raw)))
        return out

    # -- simulations (api/simulations.py) -------------------------------------------------------------------

    def simulation_key(self, sim_id: str) -> str:
        return f"{self.prefix}:sim:{sim_id}"

    def simulation_chunks_key(self, sim_id: str) -> str:
        return f"{self.prefix}:sim:{sim_id}:chunks"

    @property
    def simulations_key(self) -> str:
        return f"{self.prefix}:sims"

    @_translated
    def create_simulation(self, sim_id: str, fields: dict[str, Any]) -> None:
        """Write a new simulation record (``status`` queued, its spec, zero counts) with ``created_at`` from
        Redis' clock, so workers on other machines share one clock, and add it to the index; index entries
        older than the records' expiry whose records are gone are dropped here."""
        keys = [self.simulation_key(sim_id), self.simulations_key]
        old = self._sim_create(keys=keys, args=[self.settings.simulation_ttl, sim_id, *_flat(fields)])
        if old:
            ids = [member.decode() for member in old]
            pipe = self.queue_redis.pipeline(transaction=False)
            for old_id in ids:
                pipe.exists(self.simulation_key(old_id))
            self.forget_simulations(*(old_id for old_id, alive in zip(ids, pipe.execute()) if not alive))

    @_translated
    def simulation_index_page(self, before: tuple[float, str] | None, limit: int) -> list[tuple[str, float]]:
        """Up to ``limit`` index entries (id, created_at), newest first, from the one after the entry
        ``before`` = (created_at, id) (None: from the newest). Entries of one instant come by id, descending,
        as ZREVRANGE orders them, so a cursor between two of them neither repeats nor skips one."""
        key = self.simulations_key
        if before is None:
            newest = self.queue_redis.zrevrangebyscore(key, "+inf", "-inf", start=0, num=limit, withscores=True)
            return [(member.decode(), float(score)) for member, score in cast(_Scored, newest)]
        created_at, sim_id = before
        pipe = self.queue_redis.pipeline(transaction=False)
        pipe.zrevrangebyscore(key, repr(created_at), repr(created_at))  # the cursor's instant: one entry, rarely more
        pipe.zrevrangebyscore(key, f"({created_at!r}", "-inf", start=0, num=limit, withscores=True)
        ties, older = pipe.execute()
        page = [(member.decode(), created_at) for member in ties if member.decode() < sim_id]
        page.extend((member.decode(), float(score)) for member, score in older)
        return page[:limit]

    @_translated
    def load_simulations(self, sim_ids: list[str]) -> tuple[list[dict[str, str] | None], float]:
        """(each record's fields or None where it is gone, Redis' clock now), in one round trip."""
        pipe = self.queue_redis.pipeline(transaction=False)
        for sim_id in sim_ids:
            pipe.hgetall(self.simulation_key(sim_id))
        pipe.time()
        *raws, (sec, usec) = pipe.execute()
        records = [{k.decode(): v.decode() for k, v in raw.items()} if raw else None for raw in raws]
        return records, sec + usec / 1e6

    @_translated
    def forget_simulations(self, *sim_ids: str) -> None:
        """Drop index entries (of records that are gone)."""
        if sim_ids:
            self.queue_redis.zrem(self.simulations_key, *sim_ids)

    @_translated
    def load_simulation(self, sim_id: str) -> tuple[dict[str, str], float] | None:
        """(the record's fields, Redis' clock now), or None."""
        pipe = self.queue_redis.pipeline(transaction=False)
        pipe.hgetall(self.simulation_key(sim_id))
        pipe.time()
        raw, (sec, usec) = pipe.execute()
        if not raw:
            return None
        return {k.decode(): v.decode() for k, v in raw.items()}, sec + usec / 1e6

    @_translated
    def simulation_status(self, sim_id: str) -> str | None:
        raw = cast("bytes | None", self.queue_redis.hget(self.simulation_key(sim_id), "status"))
        return None if raw is None else raw.decode()

    @_translated
    def start_simulation_chunk(self, sim_id: str, chunk: int) -> str:
        """Before a chunk runs: ``queued`` becomes ``running``. Returns the status it found, ``done`` when
        this chunk was already counted, ``gone`` when there is no record."""
        keys = [self.simulation_key(sim_id), self.simulation_chunks_key(sim_id)]
        return str(self._sim_start(keys=keys, args=[chunk]).decode())

    @_translated
    def simulation_chunk_counted(self, sim_id: str, chunk: int) -> bool:
        return bool(self.queue_redis.sismember(self.simulation_chunks_key(sim_id), str(chunk)))

    @_translated
    def add_simulation_chunk(self, sim_id: str, chunk: int, counts: dict[str, int]) -> int:
        """Add one chunk's counts once: 1 added, 0 already counted, -1 the simulation was cancelled or failed
        (nothing added), -2 gone. The last chunk turns the status to ``finished``."""
        keys = [self.simulation_key(sim_id), self.simulation_chunks_key(sim_id), self.simulations_key]
        args: list[Any] = [chunk, self.settings.simulation_ttl, *_flat(counts)]
        return int(self._sim_add(keys=keys, args=args))

    @_translated
    def end_simulation(self, sim_id: str, status: str, error: str = "") -> str | None:
        """Cancel or fail a queued or running simulation. Returns the status it had (None: no such record);
        a simulation already over keeps its status."""
        raw = self._sim_end(keys=[self.simulation_key(sim_id)], args=[status, error])
        return None if not raw else raw.decode()

    # -- rate limits and metrics (issue 8) ------------------------------------------------------------------

    def rate_key(self, client: str) -> str:
        return f"{self.prefix}:rl:{client}"

    @_translated
    def rate_hit(self, client: str, window_ms: int, n: int = 1) -> tuple[int, int]:
        """Count ``n`` requests of ``client`` in its fixed window (on the queue connection, so the count holds
        across API processes): (requests in this window so far, milliseconds until the window resets)."""
        count, ttl = self._rate_hit(keys=[self.rate_key(client)], args=[window_ms, n])
        return int(count), int(ttl)

    @_translated
    def queue_depths(self, queues: Iterable[str]) -> dict[str, int]:
        """Jobs waiting per RQ queue, and the entries of the due sets (bot turns, turn deadlines, webhooks)."""
        names = list(queues)
        pipe = self.queue_redis.pipeline(transaction=False)
        for name in names:
            pipe.llen(f"rq:queue:{name}")
        for key in (self.due_key, self.turns_due_key, self.hooks_due_key):
            pipe.zcard(key)
        counts = pipe.execute()
        out = {name: int(n) for name, n in zip(names, counts)}
        out.update(zip(("bots_due", "turns_due", "hooks_due"), (int(n) for n in counts[len(names):])))
        return out

    # -- health -------------------------------------------------------------------------------------------

    @_translated
    def ping(self) -> dict[str, float]:
        """Round-trip times in ms of the game and the queue connections."""
        out = {}
        t0 = time.perf_counter()
        self.redis.ping()
        out["redis_ms"] = round((time.perf_counter() - t0) * 1000, 3)
        if self.queue_redis is not self.redis:
            t0 = time.perf_counter()
            self.queue_redis.ping()
            out["queue_redis_ms"] = round((time.perf_counter() - t0) * 1000, 3)
        return out


def ping_url(url: str, timeout: float = 0.5) -> bool:
    """True when a Redis answers at ``url`` (used by the launcher and the test fixtures)."""
    try:
        return bool(redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout).ping())
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError):
        return False


def shutdown_url(url: str, save: bool = True) -> None:
    """Ask a Redis we started to save and exit."""
    try:
        redis.Redis.from_url(url, socket_timeout=5).shutdown(save=save, nosave=not save)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError):
        pass

"""Connections to Redis, and the one place where Redis trouble becomes :class:`StoreUnavailable` (a fast 503).

Two Redis URLs: the game state (``DOMINO_REDIS_URL``, a plain Redis or any node of a Cluster, found out at the
first use: see ``api.store.cluster``) and the queues with the cross-game keys (``DOMINO_QUEUE_URL``, one plain
node, the same as the first by default; another one when the first is a cluster).
Three kinds of connection: requests (short timeouts, at most one retry of a dropped connection), blocking
reads for long polls and streams (a read timeout above the longest wait), and a worker's blocking dequeue.
"""

from __future__ import annotations

import functools
import hashlib
import threading
import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, Literal, ParamSpec, TypeAlias, TypeVar, cast

import redis
from redis import Redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.connection import ConnectionPool
from redis.retry import Retry

from api.config import Settings
from api.store.cluster import UNAVAILABLE, connect_cluster, is_cluster
from api.store.wire import RoundTrips

P = ParamSpec("P")
R = TypeVar("R")

# Replies as our connections give them (none sets decode_responses, so strings come as bytes): redis-py's
# types allow str too and do not follow WITHSCORES; a cast to one of these states what we asked for.
Entries: TypeAlias = list[tuple[bytes, dict[bytes, bytes]]]  # XRANGE
Scored: TypeAlias = list[tuple[bytes, float]]  # Z*RANGEBYSCORE ... WITHSCORES


class StoreUnavailable(Exception):
    """Redis did not answer in time (or refused). A command sent before it stopped answering may have run:
    the caller cannot know (a retry is safe with an idempotency key or an expected version)."""


class StoreFull(StoreUnavailable):
    """Redis is at its ``maxmemory`` (policy ``noeviction``) and refuses writes."""


def out_of_memory(exc: BaseException) -> bool:
    """A write refused by a Redis at its ``maxmemory``: StoreFull, or redis-py's error (a refused command is
    an OutOfMemoryError; inside a Lua script it comes back as a script error whose message carries Redis's)."""
    if isinstance(exc, StoreFull):
        return True
    return isinstance(exc, redis.exceptions.ResponseError) and (
        isinstance(exc, redis.exceptions.OutOfMemoryError) or "OOM command not allowed" in str(exc)
    )


class Translated:
    """``with translated():`` turns Redis connection trouble into StoreUnavailable, and a full Redis into
    StoreFull (around calls RQ makes on our connections too). A plain context manager, shared: a generator's
    costs a few calls more on every store call, a move's commit among them."""

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> Literal[False]:
        if isinstance(exc, UNAVAILABLE):
            raise StoreUnavailable(type(exc).__name__) from exc
        if isinstance(exc, redis.exceptions.ResponseError) and out_of_memory(exc):
            raise StoreFull("out of memory") from exc
        return False


TRANSLATED = Translated()


def translated() -> Translated:
    """The context manager of :class:`Translated` (it keeps no state: one serves every call)."""
    return TRANSLATED


def translating(fn: Callable[P, R]) -> Callable[P, R]:
    """A store method whose Redis trouble surfaces as StoreUnavailable."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with TRANSLATED:
            return fn(*args, **kwargs)

    return wrapper


def scored(rows: Any) -> list[tuple[str, float]]:
    """A WITHSCORES reply as (member, score) pairs."""
    return [(member.decode(), float(score)) for member, score in cast(Scored, rows)]


TIES = 16  # entries sharing the cursor's time that a page reads past (ids break the tie)


def newest_before(conn: Any, key: str, before: tuple[float, str] | None, limit: int) -> tuple[list[tuple[str, float]], bool]:
    """A page of the sorted set ``key`` (member: a game id, score: its creation time), newest first by (time,
    id), strictly before the cursor ``before``: (rows, whether the set has no more). A sorted set orders equal
    scores by member, so the cursor's own time is read again and the ids at or after the cursor's dropped."""
    if before is None:
        rows = scored(conn.zrevrangebyscore(key, "+inf", "-inf", start=0, num=limit, withscores=True))
        return rows, len(rows) < limit
    at, after_id = before
    rows = scored(conn.zrevrangebyscore(key, repr(at), "-inf", start=0, num=limit + TIES, withscores=True))
    kept = [(m, s) for m, s in rows if s < at or m < after_id]
    return kept[:limit], len(rows) < limit + TIES and len(kept) <= limit


def oldest_after(conn: Any, key: str, after: tuple[float, str] | None, limit: int) -> tuple[list[tuple[str, float]], bool]:
    """:func:`newest_before` the other way: oldest first by (score, member), strictly after ``after``."""
    if after is None:
        rows = scored(conn.zrangebyscore(key, "-inf", "+inf", start=0, num=limit, withscores=True))
        return rows, len(rows) < limit
    at, after_id = after
    rows = scored(conn.zrangebyscore(key, repr(at), "+inf", start=0, num=limit + TIES, withscores=True))
    kept = [(m, s) for m, s in rows if s > at or m > after_id]
    return kept[:limit], len(rows) < limit + TIES and len(kept) <= limit


class Connections:
    """The connections of one process. Made lazily: creating them does no I/O (``create_app`` needs none)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.queue_redis = self._connect(settings.effective_queue_url)
        self._games: Redis | RedisCluster | None = None  # found out at the first use (see ``redis``)
        self._cluster: bool | None = None
        self._blocking: Redis | RedisCluster | None = None
        self._blocking_queue: Redis | None = None
        self._connecting = threading.Lock()
        self._round_trips = RoundTrips(settings.redis_retries)

    @property
    def redis(self) -> Redis | RedisCluster:
        """The game state's connection: a plain Redis, or a cluster client when ``DOMINO_REDIS_URL`` names a
        node of a cluster (asked once, at the first use; a Redis that does not answer is asked again at the
        next). It is the queue connection itself when both URLs are the same."""
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
        """Whether the game state is on a cluster: found out once (an isinstance of redis-py's cluster client
        goes through a protocol check, which a commit would pay twice)."""
        if self._cluster is None:
            self._cluster = isinstance(self.redis, RedisCluster)
        return self._cluster

    def _connect(self, url: str) -> Redis:
        s = self.settings
        return redis.Redis.from_url(
            url,
            socket_timeout=s.socket_timeout,
            socket_connect_timeout=s.socket_connect_timeout,
            # Retry a dropped connection (a restarted Redis, a stale pooled socket) once, at once; never a
            # timeout: a Redis that does not answer within socket_timeout gets no second wait, so the 503 comes
            # within a second.
            retry=Retry(NoBackoff(), s.redis_retries, supported_errors=(redis.exceptions.ConnectionError,)),
            health_check_interval=30,
            max_connections=s.redis_max_connections,
        )

    def roundtrip(self, *commands: tuple[Any, ...]) -> list[Any]:
        """Send ``commands`` to the game Redis and read their replies, in one round trip past redis-py's pool
        and per-call wrapping (:class:`api.store.wire.RoundTrips`): a move's load and commit. A reply that is
        an error comes back as that exception, not raised. A plain Redis only: on a cluster the callers go
        through the cluster client, which finds each key's node."""
        return self._round_trips.roundtrip(self._games_pool, commands)

    def eval_each(self, script: str, calls: Sequence[tuple[Sequence[Any], Sequence[Any]]]) -> list[Any]:
        """``script`` run for each (keys, args) by EVALSHA, in one :meth:`roundtrip` (its text sent with every
        call cost more than its work); when Redis has lost it (a restart), it is loaded once and the calls it
        refused are sent again. An error reply raises. A plain Redis only, as :meth:`roundtrip`."""
        sha = script_sha(script)
        commands = [("EVALSHA", sha, len(keys), *keys, *args) for keys, args in calls]
        replies = self.roundtrip(*commands)
        lost = [i for i, reply in enumerate(replies) if isinstance(reply, redis.exceptions.NoScriptError)]
        if lost:
            self.redis.script_load(script)
            for i, reply in zip(lost, self.roundtrip(*(commands[i] for i in lost))):
                replies[i] = reply
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return replies

    def _games_pool(self) -> ConnectionPool:
        games = self.redis
        assert isinstance(games, Redis), "roundtrip() is for a plain Redis"
        return games.connection_pool

    def blocking(self) -> Redis | RedisCluster:
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
                    max_connections=s.redis_max_connections,
                )
        return self._blocking

    def blocking_queue(self) -> Redis:
        """A blocking connection to the queue Redis (registered bots' streams live there): the game state's
        own blocking connection when both are one plain Redis, else one of its own, with the same timeout."""
        s = self.settings
        if self._blocking_queue is None:
            if s.effective_queue_url == s.redis_url and not self.cluster:
                blocking = self.blocking()
                assert isinstance(blocking, Redis)
                self._blocking_queue = blocking
            else:
                self._blocking_queue = redis.Redis.from_url(
                    s.effective_queue_url,
                    socket_timeout=max(s.max_wait, s.keepalive_interval) + 5.0,
                    socket_connect_timeout=s.socket_connect_timeout,
                    retry=Retry(NoBackoff(), s.redis_retries),
                    health_check_interval=30,
                    max_connections=s.redis_max_connections,
                )
        return self._blocking_queue

    def worker(self) -> Redis:
        """A connection for a worker's blocking dequeue: no short read timeout (RQ blocks on BLMOVE)."""
        s = self.settings
        return redis.Redis.from_url(
            s.effective_queue_url,
            socket_connect_timeout=max(s.socket_connect_timeout, 2.0),
            retry=Retry(NoBackoff(), s.redis_retries),
            health_check_interval=30,
        )

    @translating
    def ping(self) -> dict[str, float]:
        """Round-trip times in ms of the game and the queue connections. Each is a write (a key that lives a
        minute), so a Redis that answers but refuses writes, being full, raises StoreFull."""
        probe = f"{self.settings.key_prefix}:ready"
        out = {}
        t0 = time.perf_counter()
        self.redis.set(probe, b"1", px=60_000)
        out["redis_ms"] = round((time.perf_counter() - t0) * 1000, 3)
        if self.queue_redis is not self.redis:
            t0 = time.perf_counter()
            self.queue_redis.set(probe, b"1", px=60_000)
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


@functools.cache
def script_sha(script: str) -> str:
    """The name EVALSHA knows ``script`` by (its SHA-1), without asking Redis."""
    return hashlib.sha1(script.encode()).hexdigest()

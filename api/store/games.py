"""A game's keys: its document and version, its event stream, its idempotent answers, its stream tickets.

Per game (hash-tagged, so a game lives on one Cluster slot), on the game connection:

- ``<prefix>:{<id>}:state``   hash ``v`` (version), ``doc`` (the game document, JSON: the live state, whose
  size does not grow with the match), ``n`` (the nonce of the last commit), ``r`` (the finished rounds'
  records but the latest, which the live state holds: JSON lines, appended when a round ends, read only by
  the history), ``a`` (``1`` once the archive holds the finished game: its keys then live only
  ``DOMINO_ARCHIVED_TTL``; until then a finished game's keys do not expire) and, while a seat is to move,
  ``t``: the turn notice ``[<stream id>, turn_started event]``,
  read together with ``events`` (only the latest is kept: an old one serves nobody, and a stream costs 4 KiB
  even for one entry)
- ``<prefix>:{<id>}:events``  stream, ids ``<version>-<n>``, field ``e`` (one event, JSON)
- ``<prefix>:{<id>}:idem``    hash: idempotency fingerprint -> first answer of a move
- ``<prefix>:{<id>}:ticket:<sha>``  a stream ticket -> seat (short TTL)

and on the queue connection ``<prefix>:idem:create:<sha>``: the sealed first answer of a create.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, cast

import orjson
from redis import Redis
from redis import exceptions as redis_errors
from redis.cluster import RedisCluster

from api.store.cluster import ReplicaWait
from api.store.connections import Connections, Entries, translated, translating
from api.store.game_events import EventFollower, stream_replies, with_notice
from api.store.wire import packed

# KEYS: state, events, idem.  ARGV: expected version (-1: must not exist), new version, doc, ttl (0: no
# expiry: a finished game's keys stay until the archive holds it), idem field ("" for none), idem value, a
# nonce of this call, the idempotency records' ttl (at most the game's: a finished game is kept until it is
# archived, its per-move answers only as long as a retry makes sense), the
# turn notice ("" for none), round records to append to ``r`` ("" for none), then the events' payloads.
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
if ARGV[10] ~= '' then
  redis.call('HSET', KEYS[1], 'r', (redis.call('HGET', KEYS[1], 'r') or '') .. ARGV[10])
end
for i = 11, #ARGV do
  redis.call('XADD', KEYS[2], ARGV[2] .. '-' .. (i - 10), 'e', ARGV[i])
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
  if ttl > 0 then redis.call('EXPIRE', KEYS[i], ttl) else redis.call('PERSIST', KEYS[i]) end
end
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('EXPIRE', KEYS[3], ttl > 0 and math.min(ttl, tonumber(ARGV[8])) or tonumber(ARGV[8]))
end
return {1, tonumber(ARGV[2])}
"""

@dataclasses.dataclass(frozen=True)
class StoredGame:
    version: int
    doc: dict[str, Any]
    archived: bool = False  # the archive holds it (its keys are in their grace expiry)


class Commit(NamedTuple):
    """What :meth:`GameStore.commit` writes of one game. (A named tuple, as :class:`CommitResult`: made on every
    move, and a frozen dataclass sets each field through ``object.__setattr__``, three times the cost.)"""

    game_id: str
    expected_version: int | None  # None: the game must not exist
    version: int
    doc: Any
    events: Sequence[Any]
    ttl: int  # 0: no expiry
    idempotency: tuple[str, bytes] | None = None
    turn: Any = None
    rounds: Sequence[Any] = ()


class CommitResult(NamedTuple):
    ok: bool
    current_version: int | None  # None: the game is gone


class GameStore:
    def __init__(self, connections: Connections, prefix: str, idempotency_ttl: int, replica_wait_ms: int) -> None:
        self.connections = connections
        self.queue_redis = connections.queue_redis
        self.prefix = prefix
        self.idempotency_ttl = idempotency_ttl
        # Registered on the queue connection (no I/O, the game connection is found out at its first use); run
        # on the game connection.
        self._commit = self.queue_redis.register_script(_COMMIT)
        self._replica_wait = ReplicaWait(replica_wait_ms)

    @property
    def redis(self) -> Redis | RedisCluster:
        return self.connections.redis

    # -- keys -------------------------------------------------------------------------------------------

    def state_key(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:state"

    def events_key(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:events"

    def idem_key(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:idem"

    def ticket_key(self, game_id: str, ticket_hash: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:ticket:{ticket_hash}"

    def keys(self, game_id: str) -> list[str]:
        """The state, events and idempotency keys (as the three methods above name them), for every commit."""
        base = f"{self.prefix}:{{{game_id}}}:"
        return [base + "state", base + "events", base + "idem"]

    def create_idem_key(self, key_hash: str) -> str:
        return f"{self.prefix}:idem:create:{key_hash}"

    # -- the document -------------------------------------------------------------------------------------

    @translating
    def load(self, game_id: str) -> StoredGame | None:
        if self.connections.cluster:
            version, doc, archived = self.redis.hmget(self.state_key(game_id), ["v", "doc", "a"])
        else:
            ((version, doc, archived),) = self.connections.roundtrip(("HMGET", self.state_key(game_id), "v", "doc", "a"))
        if version is None or doc is None:
            return None
        return StoredGame(int(version), orjson.loads(doc), archived is not None)

    @translating
    def load_many(self, game_ids: Sequence[str]) -> dict[str, StoredGame]:
        """The games of ``game_ids`` still here: one round trip (on a cluster, a pipeline, one per node)."""
        if self.connections.cluster:
            pipe = self.redis.pipeline(transaction=False)
            for game_id in game_ids:
                pipe.hmget(self.state_key(game_id), ["v", "doc", "a"])
            replies = pipe.execute()
        else:
            replies = self.connections.roundtrip(*(("HMGET", self.state_key(i), "v", "doc", "a") for i in game_ids))
        out = {}
        for game_id, reply in zip(game_ids, replies):
            if isinstance(reply, Exception):
                raise reply
            version, doc, archived = reply
            if version is not None and doc is not None:
                out[game_id] = StoredGame(int(version), orjson.loads(doc), archived is not None)
        return out

    def scan_ids(self, batch: int) -> Iterator[list[str]]:
        """Every game here, by batches of about ``batch`` ids (a SCAN of each node: no long-blocking command)."""
        ids: list[str] = []
        prefix = f"{self.prefix}:{{"
        with translated():
            for key in self.redis.scan_iter(match=f"{prefix}*}}:state", count=batch):
                ids.append(key.decode()[len(prefix) : -len("}:state")])
                if len(ids) >= batch:
                    yield ids
                    ids = []
        if ids:
            yield ids

    @translating
    def load_with_rounds(self, game_id: str) -> tuple[StoredGame, list[dict[str, Any]]] | None:
        """The game and its finished rounds' records but the latest (which its live state holds), oldest first."""
        version, doc, rounds, archived = self.redis.hmget(self.state_key(game_id), ["v", "doc", "r", "a"])
        if version is None or doc is None:
            return None
        game = StoredGame(int(version), orjson.loads(doc), archived is not None)
        return game, [orjson.loads(line) for line in (rounds or b"").splitlines()]

    @translating
    def version(self, game_id: str) -> int | None:
        v = self.redis.hget(self.state_key(game_id), "v")
        return None if v is None else int(v)

    @translating
    def versions(self, game_ids: Sequence[str]) -> dict[str, int | None]:
        """:meth:`version` of each of ``game_ids``: one round trip (on a cluster, a pipeline, one per node)."""
        if self.connections.cluster:
            pipe = self.redis.pipeline(transaction=False)
            for game_id in game_ids:
                pipe.hget(self.state_key(game_id), "v")
            replies = pipe.execute()
        else:
            replies = self.connections.roundtrip(*(("HGET", self.state_key(i), "v") for i in game_ids))
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return {game_id: None if v is None else int(v) for game_id, v in zip(game_ids, replies)}

    @translating
    def commit(
        self,
        game_id: str,
        expected_version: int | None,
        version: int,
        doc: Any,
        events: Sequence[Any],
        ttl: int,
        idempotency: tuple[str, bytes] | None = None,
        turn: Any = None,
        rounds: Sequence[Any] = (),
    ) -> CommitResult:
        """Atomically: check the version (``None``: the game must not exist), write the document, append the
        round records ``rounds`` to the game's finished rounds, append the events as ``<version>-<n>`` (then
        ``turn``, the turn notice, replacing the previous one), record an idempotent answer, refresh the
        expiry of every game key. One round trip (on this thread's own connection)."""
        one = Commit(game_id, expected_version, version, doc, events, ttl, idempotency, turn, rounds)
        (result,) = self._commit_all([one])
        return result

    @translating
    def commit_many(self, commits: Sequence[Commit]) -> list[CommitResult]:
        """:meth:`commit` for each of ``commits`` (each its own compare-and-set, of its own game), in order; on
        one node, in one round trip."""
        return self._commit_all(commits)

    def _commit_all(self, commits: Sequence[Commit]) -> list[CommitResult]:
        calls = [(self.keys(c.game_id), self._commit_args(c)) for c in commits]
        if self.connections.cluster:
            results = [self._result(*self._commit(keys=keys, args=args, client=self.redis)) for keys, args in calls]
            for commit, result in zip(commits, results):
                if result.ok:
                    self._replica_wait(cast(RedisCluster, self.redis), self.state_key(commit.game_id))
            return results
        return list(itertools.starmap(self._result, self.connections.eval_each(_COMMIT, calls)))

    def _commit_args(self, c: Commit) -> list[Any]:
        idem_field, idem_value = c.idempotency if c.idempotency else ("", b"")
        args: list[Any] = [
            -1 if c.expected_version is None else c.expected_version,
            c.version,
            orjson.dumps(c.doc),
            c.ttl,
            idem_field,
            idem_value,
            os.urandom(8).hex(),  # the nonce: secrets.token_hex(8), without its two calls in between
            self.idempotency_ttl,
            b"" if c.turn is None else orjson.dumps([f"{c.version}-{len(c.events) + 1}", c.turn]),
            b"\n".join(map(orjson.dumps, c.rounds)) + b"\n" if c.rounds else b"",  # JSON lines
        ]
        args.extend(map(orjson.dumps, c.events))  # map, not a generator: no frame per commit
        return args

    @staticmethod
    def _result(status: Any, current: Any) -> CommitResult:
        if int(status) == 1:
            return CommitResult(True, int(current))
        return CommitResult(False, None if int(status) < 0 else int(current))

    @translating
    def delete(self, game_id: str) -> None:
        self.redis.delete(*self.keys(game_id))

    # -- idempotent answers ---------------------------------------------------------------------------------

    @translating
    def move_answer(self, game_id: str, field: str) -> bytes | None:
        return cast("bytes | None", self.redis.hget(self.idem_key(game_id), field))

    @translating
    def create_answer(self, key_hash: str) -> bytes | None:
        return cast("bytes | None", self.queue_redis.get(self.create_idem_key(key_hash)))

    @translating
    def put_create_answer(self, key_hash: str, blob: bytes) -> bool:
        """Record the first answer of a create; False when another request recorded one first."""
        key = self.create_idem_key(key_hash)
        return bool(self.queue_redis.set(key, blob, nx=True, ex=self.idempotency_ttl))

    # -- events ---------------------------------------------------------------------------------------------

    @translating
    def events(self, game_id: str, after_version: int | None = None) -> list[tuple[str, dict[str, Any]]]:
        start = "-" if after_version is None else f"{after_version + 1}-0"
        entries = self.redis.xrange(self.events_key(game_id), min=start, max="+")
        return [(raw_id.decode(), orjson.loads(fields[b"e"])) for raw_id, fields in cast(Entries, entries)]

    @translating
    def events_at(self, game_id: str, version: int) -> list[dict[str, Any]]:
        """The events of the commit that made ``version`` (stream ids ``<version>-<n>``)."""
        entries = self.redis.xrange(self.events_key(game_id), min=f"{version}-0", max=f"{version}-{2**64 - 1}")
        return [orjson.loads(fields[b"e"]) for _raw_id, fields in cast(Entries, entries)]

    @translating
    def read_events(
        self, game_id: str, after_id: str, block_ms: int | None = None, count: int | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        """Events with stream ids greater than ``after_id``, ended by the turn notice when it is among them;
        with ``block_ms``, wait up to that long for the next commit (XREAD BLOCK on the blocking connection:
        no lock held, nothing polled). A notice already due is no commit: read without ``block_ms`` first."""
        conn = self.connections.blocking() if block_ms else self.redis
        # One round trip: Redis answers the HGET after the XREAD, blocked or not, so the notice read is the
        # one committed with the events read (a commit is atomic).
        for attempt in (1, 2):
            pipe = conn.pipeline(transaction=False)
            pipe.xread({self.events_key(game_id): after_id}, count=count, block=block_ms or None)
            pipe.hget(self.state_key(game_id), "t")
            try:
                reply, notice = pipe.execute()
                break
            except redis_errors.ConnectionError:
                if attempt == 2 or not isinstance(conn, RedisCluster):
                    raise
                # A cluster client asks its default node which keys an XREAD names (COMMAND GETKEYS), and
                # keeps a dead master as that node after a failover: another one answers, then read again.
                conn.replace_default_node()
        events = [
            (raw_id.decode(), orjson.loads(fields[b"e"])) for _key, entries in stream_replies(reply) for raw_id, fields in entries
        ]
        return with_notice(events, notice, after_id, count)

    def follow(self, game_id: str) -> EventFollower:
        """A reader of one game's events for as long as a stream lasts (see :class:`EventFollower`)."""
        return EventFollower(self, game_id)

    # -- stream tickets -------------------------------------------------------------------------------------

    @translating
    def put_ticket(self, game_id: str, ticket_hash: str, seat: int, ttl: int) -> None:
        self.redis.set(self.ticket_key(game_id, ticket_hash), seat, ex=ttl)

    @translating
    def take_ticket(self, game_id: str, ticket_hash: str) -> int | None:
        """The seat of a stream ticket, which this use spends (a ticket opens one stream)."""
        raw = self.redis.getdel(self.ticket_key(game_id, ticket_hash))
        return None if raw is None else int(raw)

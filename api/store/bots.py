"""Registered bots, on the queue connection (they span games, like the lobby):

- ``<prefix>:bot:<name>``         hash ``doc`` (the bot's record, JSON: what its owner registered, its token's
  hash, ``retired``) and ``misses`` (turn deadlines it missed in a row)
- ``<prefix>:bots``               sorted set name -> registration time: the listing
- ``<prefix>:bot-token:<sha>``    the name of the bot whose token hashes (SHA-256, hex) to ``<sha>``: its
  current token's, and a rotated one's until its grace ends (it expires then); retiring deletes them
- ``<prefix>:bot:<name>:events``  stream of the bot's notices (its turns, its games started and ended), field
  ``e`` (JSON), capped at about ``max_notices`` entries (``XADD MAXLEN ~``)

Nothing here expires: a bot stays registered (its name reserved, also once retired).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import orjson
import redis

from api.store.connections import oldest_after, translating

# KEYS: the bot's hash, the token key, the listing. ARGV: doc, name, registered at. Returns 0 when the name
# is taken, else 1: the record, the token and the listing are written together or not at all.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'doc', ARGV[1], 'misses', 0)
redis.call('SET', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
return 1
"""

Notice = dict[str, Any]


def _stream_entries(reply: Any) -> list[tuple[str, Notice]]:
    """XREAD's answer (RESP2 list or RESP3 dict) as (stream id, notice) pairs."""
    if not reply:
        return []
    pairs = reply.items() if isinstance(reply, dict) else reply
    return [(raw_id.decode(), orjson.loads(fields[b"e"])) for _key, entries in pairs for raw_id, fields in entries]


class BotStore:
    def __init__(self, conn: redis.Redis, blocking: Callable[[], redis.Redis], prefix: str, max_notices: int) -> None:
        self.conn = conn
        self.blocking = blocking  # for reads that wait: a read timeout above the longest wait
        self.prefix = prefix
        self.max_notices = max_notices
        self._create = conn.register_script(_CREATE)

    def key(self, name: str) -> str:
        return f"{self.prefix}:bot:{name}"

    def token_key(self, token_hash: str) -> str:
        return f"{self.prefix}:bot-token:{token_hash}"

    def listing_key(self) -> str:
        return f"{self.prefix}:bots"

    def events_key(self, name: str) -> str:
        return f"{self.prefix}:bot:{name}:events"

    # -- records ----------------------------------------------------------------------------------------

    @translating
    def create(self, name: str, doc: dict[str, Any], token_hash: str, at: float) -> bool:
        """Register ``name`` with ``doc``; False when the name is taken (registered, retired too)."""
        keys = [self.key(name), self.token_key(token_hash), self.listing_key()]
        return bool(self._create(keys=keys, args=[orjson.dumps(doc), name, at]))

    @translating
    def get(self, name: str) -> tuple[dict[str, Any], int] | None:
        """(the record, deadlines missed in a row), or None for no such bot."""
        doc, misses = self.conn.hmget(self.key(name), ["doc", "misses"])
        return None if doc is None else (orjson.loads(doc), int(misses or 0))

    @translating
    def gone(self, name: str) -> bool:
        """No such bot, or it is retired: nobody holds a token that moves for it."""
        doc = self.conn.hget(self.key(name), "doc")
        return doc is None or bool(orjson.loads(cast(bytes, doc)).get("retired"))

    @translating
    def all(self) -> list[tuple[dict[str, Any], int]]:
        """Every registered bot, retired ones too, in registration order: (record, misses)."""
        names = cast("list[bytes]", self.conn.zrange(self.listing_key(), 0, -1))
        with self.conn.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.hmget(self.key(name.decode()), ["doc", "misses"])
            rows = pipe.execute()
        return [(orjson.loads(doc), int(misses or 0)) for doc, misses in rows if doc is not None]

    @translating
    def page(self, after: tuple[float, str] | None, count: int) -> tuple[list[tuple[str, float, dict[str, Any], int]], bool]:
        """In registration order, strictly after (registered at, name): up to ``count`` bots, retired ones too,
        as (name, registered at, record, misses); and whether there are no more."""
        rows, done = oldest_after(self.conn, self.listing_key(), after, count)
        with self.conn.pipeline(transaction=False) as pipe:
            for name, _ in rows:
                pipe.hmget(self.key(name), ["doc", "misses"])
            found = pipe.execute()
        page = [(name, at, orjson.loads(doc), int(misses or 0)) for (name, at), (doc, misses) in zip(rows, found) if doc is not None]
        return page, done

    @translating
    def put(self, name: str, doc: dict[str, Any]) -> None:
        """Write a changed record (its misses are kept apart, counted by the game path)."""
        self.conn.hset(self.key(name), "doc", orjson.dumps(doc))

    @translating
    def rotate_token(self, name: str, doc: dict[str, Any], retired: list[str], kept: str, grace_s: int) -> None:
        """Write ``doc`` (its ``token_hash`` the new token's) and index its token; the tokens hashing to
        ``retired`` stop now, ``kept`` (if any) in ``grace_s`` seconds."""
        pipe = self.conn.pipeline(transaction=True)
        pipe.hset(self.key(name), "doc", orjson.dumps(doc))
        pipe.set(self.token_key(doc["token_hash"]), name)
        for token_hash in filter(None, retired):
            pipe.delete(self.token_key(token_hash))
        if kept:
            pipe.expire(self.token_key(kept), grace_s)
        pipe.execute()

    @translating
    def retire(self, name: str, doc: dict[str, Any], token_hashes: list[str]) -> None:
        """Write the retired ``doc`` and drop its tokens: from the next request on, none names the bot."""
        pipe = self.conn.pipeline(transaction=True)
        pipe.hset(self.key(name), "doc", orjson.dumps(doc))
        for token_hash in filter(None, token_hashes):
            pipe.delete(self.token_key(token_hash))
        pipe.execute()

    @translating
    def name_for_token(self, token_hash: str) -> str | None:
        raw = cast("bytes | None", self.conn.get(self.token_key(token_hash)))
        return None if raw is None else raw.decode()

    # -- availability -------------------------------------------------------------------------------------

    @translating
    def missed(self, name: str) -> int:
        """Count a turn deadline ``name`` missed: its misses in a row now."""
        return int(self.conn.hincrby(self.key(name), "misses", 1))

    @translating
    def answered(self, name: str) -> None:
        """``name`` is back (it moved, its stream reconnected, its webhook answered): no misses."""
        self.conn.hset(self.key(name), "misses", 0)

    # -- notices ------------------------------------------------------------------------------------------

    @translating
    def push(self, notices: Sequence[tuple[str, Notice]]) -> None:
        """Append each (bot name, notice) to that bot's stream, in one round trip."""
        if not notices:
            return
        with self.conn.pipeline(transaction=False) as pipe:
            for name, notice in notices:
                pipe.xadd(self.events_key(name), {"e": orjson.dumps(notice)}, maxlen=self.max_notices, approximate=True)
            pipe.execute()

    @translating
    def read(self, name: str, after_id: str, block_ms: int | None = None, count: int = 100) -> list[tuple[str, Notice]]:
        """Notices after the stream id ``after_id`` (at most ``count``); with ``block_ms``, wait that long for
        the next one (a blocking XREAD: nothing polled)."""
        conn = self.blocking() if block_ms else self.conn
        reply = conn.xread({self.events_key(name): after_id}, count=count, block=block_ms or None)
        return _stream_entries(reply)

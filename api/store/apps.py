"""Third-party apps, on the queue connection (cross-game keys):

- ``<prefix>:app:<app id>``: a hash, the app's record (name, the SHA-256 of its key, webhook and its signing
  secret, limits, created and revoked times);
- ``<prefix>:appkey:<SHA-256 of a key>``: the app id the key belongs to (present while the key is valid: a
  rotated key's expires with its grace, revoking deletes every one, so the next request with it is refused);
- ``<prefix>:apps``: a sorted set app id -> created time (``domino-admin apps list``), and
  ``<prefix>:apps:names``: a hash name -> app id (names are unique);
- ``<prefix>:app:<app id>:games``: the ownership index, a sorted set game id -> created time of the app's games;
  ``<prefix>:app:<app id>:player:<player>``: the same for the games in which a seat names that player. An
  entry of a game that expired is dropped when a listing meets it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import redis

from api.store.connections import newest_before, translating

# KEYS: the key index, then the app's hash prefix (``<prefix>:app:``).  The record of the app a key hash
# names, in one round trip (a flat HGETALL reply; empty when the key is unknown).  Built from the key prefix
# in the script: the queue connection is one plain Redis, never a cluster.
_BY_KEY = """
local id = redis.call('GET', KEYS[1])
if not id then return {} end
return redis.call('HGETALL', ARGV[1] .. id)
"""


def _text(mapping: dict[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in mapping.items()}


class AppStore:
    def __init__(self, conn: redis.Redis, prefix: str) -> None:
        self.conn = conn
        self.prefix = prefix
        self._by_key = conn.register_script(_BY_KEY)

    def record_key(self, app_id: str) -> str:
        return f"{self.prefix}:app:{app_id}"

    def key_index(self, key_hash: str) -> str:
        return f"{self.prefix}:appkey:{key_hash}"

    def games_key(self, app_id: str) -> str:
        return f"{self.prefix}:app:{app_id}:games"

    def player_key(self, app_id: str, player: str) -> str:
        return f"{self.prefix}:app:{app_id}:player:{player}"

    @property
    def all_key(self) -> str:
        return f"{self.prefix}:apps"

    @property
    def names_key(self) -> str:
        return f"{self.prefix}:apps:names"

    @translating
    def add(self, record: dict[str, str]) -> bool:
        """Store a new app (``id``, ``name``, ``key_hash``, ...); False when its name is taken."""
        app_id, name = record["id"], record["name"]
        if not self.conn.hsetnx(self.names_key, name, app_id):
            return False
        pipe = self.conn.pipeline(transaction=True)
        pipe.hset(self.record_key(app_id), mapping=cast("dict[Any, Any]", record))
        pipe.set(self.key_index(record["key_hash"]), app_id)
        pipe.zadd(self.all_key, {app_id: float(record["created_at"])})
        pipe.execute()
        return True

    @translating
    def by_key_hash(self, key_hash: str) -> dict[str, str] | None:
        """The record of the app whose current key hashes to ``key_hash``; None for an unknown or old key."""
        flat = cast("list[bytes]", self._by_key(keys=[self.key_index(key_hash)], args=[f"{self.prefix}:app:"]))
        if not flat:
            return None
        return {flat[i].decode(): flat[i + 1].decode() for i in range(0, len(flat), 2)}

    @translating
    def get(self, app_id: str) -> dict[str, str] | None:
        found = _text(cast("dict[bytes, bytes]", self.conn.hgetall(self.record_key(app_id))))
        return found or None

    @translating
    def get_many(self, app_ids: Sequence[str]) -> dict[str, dict[str, str] | None]:
        """:meth:`get` of each of ``app_ids``, in one round trip."""
        pipe = self.conn.pipeline(transaction=False)
        for app_id in app_ids:
            pipe.hgetall(self.record_key(app_id))
        return {app_id: _text(found) or None for app_id, found in zip(app_ids, pipe.execute())}

    @translating
    def id_named(self, name: str) -> str | None:
        raw = cast("bytes | None", self.conn.hget(self.names_key, name))
        return None if raw is None else raw.decode()

    @translating
    def ids(self) -> list[str]:
        return [m.decode() for m in cast("list[bytes]", self.conn.zrange(self.all_key, 0, -1))]

    @translating
    def rotate_key(self, app_id: str, current: str, new: str, earlier: str, grace_s: int, until: float) -> None:
        """Make ``new`` the app's key; ``current`` stays valid ``grace_s`` seconds more (0: retired now), and
        ``earlier`` (the key before it, maybe still in its own grace) is retired now: one previous key at most."""
        pipe = self.conn.pipeline(transaction=True)
        if earlier and earlier != current:
            pipe.delete(self.key_index(earlier))
        if grace_s:
            pipe.expire(self.key_index(current), grace_s)
        else:
            pipe.delete(self.key_index(current))
        changes = {"key_hash": new, "old_key_hash": current if grace_s else "", "old_key_until": repr(until)}
        pipe.hset(self.record_key(app_id), mapping=cast("dict[Any, Any]", changes))
        pipe.set(self.key_index(new), app_id)
        pipe.execute()

    @translating
    def revoke(self, app_id: str, key_hashes: list[str], at: str) -> None:
        """Retire every key of the app at once: from the next request on, none names anything."""
        pipe = self.conn.pipeline(transaction=True)
        for key_hash in filter(None, key_hashes):
            pipe.delete(self.key_index(key_hash))
        pipe.hset(self.record_key(app_id), "revoked_at", at)
        pipe.execute()

    @translating
    def update(self, app_id: str, changes: dict[str, str]) -> None:
        self.conn.hset(self.record_key(app_id), mapping=cast("dict[Any, Any]", changes))

    @translating
    def own(self, app_id: str, game_id: str, created_at: float, players: list[str]) -> None:
        """Index a new game of the app (and of each named player)."""
        pipe = self.conn.pipeline(transaction=False)
        pipe.zadd(self.games_key(app_id), {game_id: created_at})
        for player in players:
            pipe.zadd(self.player_key(app_id, player), {game_id: created_at})
        pipe.execute()

    @translating
    def page(
        self, app_id: str, player: str | None, before: tuple[float, str] | None, limit: int
    ) -> tuple[list[tuple[str, float]], bool]:
        """Newest first: the app's games (of ``player``) created strictly before the cursor (created_at, id);
        and whether there are no more. Finished games leave this index once archived (the archive lists them)."""
        key = self.games_key(app_id) if player is None else self.player_key(app_id, player)
        return newest_before(self.conn, key, before, limit)

    @translating
    def disown(self, app_id: str, game_ids: list[str], players: list[str] | None = None) -> None:
        """Drop index entries of games that are gone (and from the named players' indexes)."""
        if not game_ids:
            return
        self.disown_many([(app_id, game_ids, players or [])])

    @translating
    def disown_many(self, gone: Sequence[tuple[str, Sequence[str], Sequence[str]]]) -> None:
        """:meth:`disown` for several (app id, game ids, players) in one round trip."""
        pipe = self.conn.pipeline(transaction=False)
        for app_id, game_ids, players in gone:
            if game_ids:
                pipe.zrem(self.games_key(app_id), *game_ids)
                for player in players:
                    pipe.zrem(self.player_key(app_id, player), *game_ids)
        if len(pipe):
            pipe.execute()

    @translating
    def games_of_player(self, app_id: str, player: str) -> list[str]:
        """Every game in the index of the app's ``player`` (games in Redis that name it)."""
        return [m.decode() for m in cast("list[bytes]", self.conn.zrange(self.player_key(app_id, player), 0, -1))]

    @translating
    def forget_player(self, app_id: str, player: str) -> None:
        """Drop the index of the app's ``player`` (an erased player: its id is no key any more)."""
        self.conn.delete(self.player_key(app_id, player))

"""Reading a game's events: XREAD's replies, the turn notice that ends a commit's events, and
:class:`EventFollower`, which reads one game's events on a connection of its own for as long as a stream
lasts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

import orjson
from redis.cluster import RedisCluster

from api.store.connections import Connections, translated
from api.store.wire import Held, packed


class GameReader(Protocol):
    """What a follower needs of :class:`api.store.games.GameStore`."""

    connections: Connections

    def events_key(self, game_id: str) -> str: ...

    def state_key(self, game_id: str) -> str: ...

    def read_events(
        self, game_id: str, after_id: str, block_ms: int | None = None, count: int | None = None
    ) -> list[tuple[str, dict[str, Any]]]: ...


def _id_order(stream_id: str) -> tuple[int, int]:
    version, _, n = stream_id.partition("-")
    return int(version), int(n)


def stream_replies(reply: Any) -> Iterable[tuple[Any, list[Any]]]:
    """XREAD's answer as (key, entries) pairs: a list of pairs in RESP2, a dict in RESP3."""
    if not reply:
        return ()
    return reply.items() if isinstance(reply, dict) else reply


def with_notice(
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
    """Reads one game's events, as :meth:`GameStore.read_events` does, on a connection of its own from the
    blocking pool, held until :meth:`close` (:class:`api.store.wire.Held`): an event stream wakes once per
    commit for as long as a game lasts, and this way each wake is one round trip with no pool traffic or
    retry wrapping in between."""

    def __init__(self, games: GameReader, game_id: str) -> None:
        self.games = games
        self.game_id = game_id
        self.events_key = games.events_key(game_id)
        self.notice_read = packed((("HGET", games.state_key(game_id), "t"),))  # the same after every XREAD
        self.held: Held | None = None

    def read(
        self, after_id: str, block_ms: int | None = None, count: int | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        xread: tuple[Any, ...] = ("XREAD",)
        if count is not None:
            xread += ("COUNT", count)
        if block_ms:
            xread += ("BLOCK", block_ms)
        xread += ("STREAMS", self.events_key, after_id)
        with translated():
            if self.held is None:
                blocking = self.games.connections.blocking()
                if isinstance(blocking, RedisCluster):
                    # Through the cluster client, which finds the game's node for each read: it follows a
                    # failover or a resharding of the game's slot between two reads (a connection held to one
                    # node would not).
                    return self.games.read_events(self.game_id, after_id, block_ms, count)
                self.held = Held(blocking.connection_pool)
            held, self.held = self.held, None  # given back by exchange() if it fails
            reply, notice = held.exchange(packed((xread,)) + self.notice_read, 2)
            self.held = held
        events = [
            (entry[0].decode(), orjson.loads(entry[1][1])) for _key, entries in stream_replies(reply) for entry in entries
        ]
        return with_notice(events, notice, after_id, count)

    def close(self) -> None:
        if self.held is not None:
            self.held.release()
            self.held = None

"""A finished game read whole for the archive: its document, its finished rounds and every event, in one round
trip for a batch of games (each game's keys are those of :mod:`api.store.games`)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any, cast

import orjson

from api.store.connections import Entries, translating
from api.store.games import GameStore


@dataclasses.dataclass(frozen=True)
class WholeGame:
    """Everything Redis holds of a game, read at once for the archive: the JSON as Redis holds it, decoded
    when first used, so that the archiving job decodes a batch one game at a time and lets each go (a batch
    of games decoded at once is a heap the garbage collector walks again and again)."""

    version: int
    raw_doc: bytes
    raw_rounds: bytes
    raw_events: list[tuple[bytes, bytes]]  # (stream id, event)

    @functools.cached_property
    def doc(self) -> dict[str, Any]:
        value: dict[str, Any] = orjson.loads(self.raw_doc)
        return value

    @functools.cached_property
    def rounds(self) -> list[dict[str, Any]]:
        return [orjson.loads(line) for line in self.raw_rounds.splitlines()]

    @functools.cached_property
    def events(self) -> list[tuple[str, dict[str, Any]]]:
        # one decode of the whole array (the archive keeps it anyway) costs less than one per event
        return [(sid, event) for sid, event in orjson.loads(self.events_json)]

    @functools.cached_property
    def events_json(self) -> bytes:
        """Every event as ``[stream id, event]`` pairs, a JSON array, from the bytes as stored."""
        return b"[" + b",".join(b'["' + sid + b'",' + event + b"]" for sid, event in self.raw_events) + b"]"


class WholeGames:
    def __init__(self, games: GameStore) -> None:
        self.games = games

    @translating
    def load(self, game_ids: Sequence[str]) -> dict[str, WholeGame]:
        """The games of ``game_ids`` still here, each with its finished rounds and every event: one round trip
        (each game's two reads on its own slot)."""
        out = {}
        for game_id, (version, doc, rounds), events in zip(game_ids, *self._read(game_ids)):
            if version is not None and doc is not None:
                out[game_id] = WholeGame(int(version), doc, rounds or b"", events)
        return out

    def _read(self, game_ids: Sequence[str]) -> tuple[list[list[Any]], list[list[tuple[bytes, bytes]]]]:
        """Each game's ``v``, ``doc`` and ``r``, and its events as (stream id, event) pairs."""
        if self.games.connections.cluster:  # a cluster pipeline finds each key's node
            pipe = self.games.redis.pipeline(transaction=False)
            for game_id in game_ids:
                pipe.hmget(self.games.state_key(game_id), ["v", "doc", "r"])
                pipe.xrange(self.games.events_key(game_id), min="-", max="+")
            replies = pipe.execute()
            streams = [[(raw_id, fields[b"e"]) for raw_id, fields in cast(Entries, e)] for e in replies[1::2]]
            return replies[::2], streams
        if not game_ids:
            return [], []
        # Past redis-py's reply parsing, which makes a dict of each event's one field: half this read's CPU.
        reads: list[tuple[str, ...]] = [("HMGET", self.games.state_key(g), "v", "doc", "r") for g in game_ids]
        reads += [("XRANGE", self.games.events_key(g), "-", "+") for g in game_ids]
        replies = self.games.connections.roundtrip(*reads)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        n = len(game_ids)
        return replies[:n], [[(raw_id, fields[1]) for raw_id, fields in entries] for entries in replies[n:]]

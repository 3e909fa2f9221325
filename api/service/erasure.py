"""Erasing one of an app's players (``DELETE /v1/app/players/{player}``), for apps that must honour a deletion
request: in every game of the app, live or archived, each seat that names the player gets the tombstone for
its ``player`` and its name and loses its ``metadata``; the events that named them (``game_created``,
``seat_claimed``) name the tombstone. The moves, the scores and everything else stay.

A game in play gets a new version for it (see :meth:`Erasure._erase_in_redis`), and its past events are
rewritten in place; a finished game is rewritten in place, in Redis while it is there and in the archive. The player's own index of the app's games goes: the tombstone
lists nothing (``GET /v1/games?owner=me&player=`` finds no game of an erased player).

Not closed: an archive job that read a finished game from Redis before the erasure and writes it after the
erasure's archive step (a batch takes well under a second) archives the names; erasing again clears them.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any, cast

import orjson

import domino.codec
from api.archive import Archive
from api.service.apps import App
from api.service.commits import Change, Commits
from api.service.errors import GameBusy
from api.service.games import Game
from api.store import Store

TOMBSTONE = "erased"
RETRIES = 5  # a live game that commits between the read and the rewrite is read again


def erase_seats(seats: list[dict[str, Any]], erased: Iterable[int]) -> None:
    """The seats numbered in ``erased`` take the tombstone (a seat never claimed keeps its null name)."""
    numbers = set(erased)
    for seat in seats:
        if seat.get("seat") in numbers:
            seat["player"] = TOMBSTONE
            if seat.get("name") is not None:
                seat["name"] = TOMBSTONE
            seat.pop("metadata", None)


def erase_events(value: Any, erased: set[int]) -> None:
    """The events in ``value`` (stored or rendered, at any depth) that name a seat in ``erased``: the seats of
    ``game_created``, the claimant of ``seat_claimed``."""
    if isinstance(value, dict):
        if value.get("type") == "game_created" and isinstance(value.get("seats"), list):
            erase_seats(value["seats"], erased)
        if value.get("type") == "seat_claimed" and value.get("seat") in erased and "name" in value:
            value["name"] = TOMBSTONE
        for member in value.values():
            erase_events(member, erased)
    elif isinstance(value, list):
        for item in value:
            erase_events(item, erased)


def seats_of(doc: dict[str, Any], player: str) -> set[int]:
    """The seats of a game document that name ``player``."""
    return {s["seat"] for s in doc["seats"] if s.get("player") == player}


def erase_archived(player: str, row: dict[str, str]) -> dict[str, str]:
    """An archived game's JSON columns (``doc``, ``record``, ``events``, ``summary``) with ``player`` erased."""
    doc = orjson.loads(row["doc"])
    erased = seats_of(doc, player)
    record, events, summary = (orjson.loads(row[k]) for k in ("record", "events", "summary"))
    for seats in (doc["seats"], record["seats"], summary["seats"]):
        erase_seats(seats, erased)
    erase_events(record["events"], erased)
    erase_events(events, erased)
    return {k: orjson.dumps(v).decode() for k, v in (("doc", doc), ("record", record), ("events", events), ("summary", summary))}


class Erasure:
    def __init__(self, store: Store, archive: Archive, commits: Commits) -> None:
        self.store = store
        self.archive = archive
        self.commits = commits

    def erase(self, app: App, player: str) -> int:
        """Erase ``player`` from every game of ``app``; how many games named it (0 when called again)."""
        live = [g for g in self.store.apps.games_of_player(app.id, player) if self._erase_in_redis(app, g, player)]
        archived = self.archive.rewrite_player(app.id, player, TOMBSTONE, lambda row: erase_archived(player, row))
        graced = [g for g in archived if g not in live and self._erase_in_redis(app, g, player)]  # grace copies
        self.store.apps.forget_player(app.id, player)
        return len(set(live) | set(archived) | set(graced))

    def _erase_in_redis(self, app: App, game_id: str, player: str) -> bool:
        """Erase ``player`` from the game's Redis copy; False when the game is not there or names it nowhere.

        A game in play changes by a commit (a new version, no event, so that its record still replays): a
        process that kept the game's document at the version before could otherwise commit it again. A game
        that is over takes no commit, and is rewritten at its version."""
        games = self.store.games
        for _ in range(RETRIES):
            found = games.load(game_id)
            if found is None or found.doc.get("app") != app.id:  # never another app's game, whatever the index says
                return False
            erased = seats_of(found.doc, player)
            if not erased:
                return False
            if not domino.codec.is_finished(found.doc["state"]):
                self._commit(game_id, player)
                done: bool | None = self.store.rewrites.rewrite(game_id, None, None, self._events(game_id, erased))
            else:
                erase_seats(found.doc["seats"], erased)
                done = self.store.rewrites.rewrite(game_id, found.version, found.doc, self._events(game_id, erased))
            if done is not False:
                return done is True
        raise GameBusy(f"Game {game_id} kept changing while its player was erased: try again.")

    def _commit(self, game_id: str, player: str) -> None:
        def decide(game: Game) -> Change:
            doc = copy.deepcopy(game.doc)
            erase_seats(cast("list[dict[str, Any]]", doc["seats"]), seats_of(cast("dict[str, Any]", doc), player))
            return Change(doc, game.state, [], None)

        self.commits.run(game_id, decide, lambda _change: GameBusy(f"Game {game_id} kept changing: try again."))

    def _events(self, game_id: str, erased: set[int]) -> dict[str, Any]:
        """The game's stored events that name an erased seat, erased (by stream id)."""
        out = {}
        for stream_id, stored in self.store.games.events(game_id):
            before = orjson.dumps(stored)
            erase_events(stored, erased)
            if orjson.dumps(stored) != before:
                out[stream_id] = stored
        return out

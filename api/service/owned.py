"""An app's games (``GET /v1/games?owner=me``): newest first by (created_at, id), any status, optionally of one
player, from two sources merged: the app's Redis index (games waiting, playing, or finished and not yet
archived) and the archive (finished games; a game leaves the Redis index once the archive holds it). Or those
in which it is one player's turn (``&player=X&to_move=true``), soonest deadline first, by an opaque cursor.

In Redis the status is read from each game as it is met, so a filter by status reads past the games it skips
(at most ``SCAN_FACTOR`` times the page size per request); the archive filters in its query. A page holds
only what both sources have read down to, so it may hold fewer games than asked while ``next`` is not null.
Index entries of games that expired are dropped as they are met.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import math
from typing import Any

import orjson

from api.archive import Archive, Key
from api.service.apps import App
from api.service.errors import InvalidRequest
from api.service.games import Games
from api.service.records import waiting
from api.service.views import game_summary
from api.store import Store

SCAN_FACTOR = 5


@dataclasses.dataclass
class Read:
    """What one source read: (key, list entry) newest first, and how far down it read (None: to its end)."""

    entries: list[tuple[Key, dict[str, Any]]]
    reached: Key | None


def _live(store: Store, games: Games, app: App, status: str | None, player: str | None, before: Key | None, limit: int) -> Read:
    entries: list[tuple[Key, dict[str, Any]]] = []
    gone: list[str] = []
    cursor = before
    budget = SCAN_FACTOR * limit
    exhausted = False
    while len(entries) < limit and budget > 0 and not exhausted:
        want = min(limit - len(entries), budget)
        rows, exhausted = store.apps.page(app.id, player, cursor, want)
        budget -= len(rows)
        for game_id, created_at in rows:
            cursor = (created_at, game_id)
            found = games.find(game_id)
            if found is None:
                gone.append(game_id)
                continue
            if found.doc.get("app") != app.id:  # never another app's game, whatever the index says
                continue
            summary = game_summary(found.doc, found.version, found.state)
            if status is None or summary["status"] == status:
                entries.append((cursor, summary))
    store.apps.disown(app.id, gone, [player] if player else None)
    return Read(entries, None if exhausted else cursor)


def _archived(archive: Archive, app: App, status: str | None, player: str | None, before: Key | None, limit: int) -> Read:
    if status in ("waiting", "playing"):
        return Read([], None)  # the archive holds only games that are over
    entries = archive.owned(app.id, status, player, before, limit)
    return Read(entries, entries[-1][0] if len(entries) == limit else None)


def list_owned(
    store: Store, games: Games, app: App, status: str | None, player: str | None, before: Key | None, limit: int
) -> tuple[list[dict[str, Any]], Key | None]:
    """(games, the cursor of the next page or None)."""
    reads = [_live(store, games, app, status, player, before, limit), _archived(games.archive, app, status, player, before, limit)]
    horizons = [r.reached for r in reads if r.reached is not None]
    horizon = max(horizons) if horizons else None  # below it, a source has not read yet
    merged: dict[str, tuple[Key, dict[str, Any]]] = {}
    for r in reads:  # the archive's copy last: a game archived during this read is listed once, from there
        for key, entry in r.entries:
            if horizon is None or key >= horizon:
                merged[key[1]] = (key, entry)
    ordered = sorted(merged.values(), key=lambda item: item[0], reverse=True)
    page = ordered[:limit]
    if len(ordered) > limit:
        return [e for _, e in page], page[-1][0]
    return [e for _, e in page], horizon  # every entry down to the horizon is on this page


TO_MOVE_SCAN = 1000  # a player's newest games looked at for ``to_move`` (an app's player has few games at once)


def list_to_move(
    store: Store, games_: Games, app: App, player: str, cursor: str | None, limit: int
) -> tuple[list[dict[str, Any]], str | None]:
    """The app's games in which it is ``player``'s turn, soonest deadline first (games without one after them,
    oldest first), after the opaque ``cursor``: (games, the next page's cursor or None)."""
    after = _position(cursor) if cursor else None
    found: list[tuple[tuple[float, float, str], dict[str, Any]]] = []
    gone: list[str] = []
    rows, _ = store.apps.page(app.id, player, None, TO_MOVE_SCAN)
    for game_id, _created in rows:
        game = games_.find(game_id)
        if game is None:
            gone.append(game_id)
            continue
        seat = game.state.to_move
        doc = game.doc
        if doc.get("app") != app.id or game.state.finished or seat is None or waiting(doc):
            continue
        if doc["seats"][seat].get("player") != player:
            continue
        key = (doc.get("deadline") or math.inf, doc["created_at"], game_id)
        if after is None or key > after:
            found.append((key, game_summary(doc, game.version, game.state)))
    store.apps.disown(app.id, gone, [player])
    found.sort(key=lambda item: item[0])
    page = found[:limit]
    more = len(found) > limit
    return [entry for _, entry in page], _cursor(page[-1][0]) if more else None


def _cursor(key: tuple[float, float, str]) -> str:
    deadline, created_at, game_id = key
    raw = orjson.dumps([None if deadline == math.inf else deadline, created_at, game_id])
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _position(cursor: str) -> tuple[float, float, str]:
    """A cursor back as the key it continues after; a malformed one is a 422."""
    try:
        deadline, created_at, game_id = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        key = (math.inf if deadline is None else float(deadline), float(created_at), str(game_id))
    except (ValueError, TypeError, binascii.Error, orjson.JSONDecodeError):
        why = "the `next` link of a page of this listing, as it was given"
        raise InvalidRequest(f"This is not a cursor: use {why}.", errors={"query": {"cursor": [why]}}) from None
    return key

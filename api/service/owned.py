"""An app's games (``GET /v1/games?owner=me``): newest first, any status, optionally of one player; or those in
which it is one player's turn (``&player=X&to_move=true``), soonest deadline first, by an opaque cursor.

The ownership index (:class:`api.store.AppStore`) holds every game the app created; the status is read from
each game as it is met, so a filter by status reads past the games it skips (at most ``SCAN_FACTOR`` times
the page size per request: a page may then hold fewer games than asked, and ``next`` goes on from where the
scan stopped). Entries of games that expired are dropped as they are met.
"""

from __future__ import annotations

import base64
import binascii
import math
from typing import Any

import orjson

from api.service.apps import App
from api.service.errors import InvalidRequest
from api.service.games import Games
from api.service.records import waiting
from api.service.views import game_summary
from api.store import Store

SCAN_FACTOR = 5


def list_owned(
    store: Store, games_: Games, app: App, status: str | None, player: str | None, before: float | None, limit: int
) -> tuple[list[dict[str, Any]], float | None]:
    """(games, the cursor of the next page or None)."""
    games: list[dict[str, Any]] = []
    gone: list[str] = []
    cursor = before
    budget = SCAN_FACTOR * limit
    exhausted = False
    while len(games) < limit and budget > 0 and not exhausted:
        want = min(limit - len(games), budget)
        rows = store.apps.page(app.id, player, cursor, want)
        exhausted = len(rows) < want
        budget -= len(rows)
        for game_id, created_at in rows:
            cursor = created_at
            found = games_.find(game_id)
            if found is None:
                gone.append(game_id)
                continue
            if found.doc.get("app") != app.id:  # never another app's game, whatever the index says
                continue
            summary = game_summary(found.doc, found.version, found.state)
            if status is None or summary["status"] == status:
                games.append(summary)
    store.apps.disown(app.id, gone, [player] if player else None)
    more = not exhausted and bool(store.apps.page(app.id, player, cursor, 1))
    return games, cursor if more else None


TO_MOVE_SCAN = 1000  # a player's newest games looked at for ``to_move`` (an app's player has few games at once)


def list_to_move(
    store: Store, games_: Games, app: App, player: str, cursor: str | None, limit: int
) -> tuple[list[dict[str, Any]], str | None]:
    """The app's games in which it is ``player``'s turn, soonest deadline first (games without one after them,
    oldest first), after the opaque ``cursor``: (games, the next page's cursor or None)."""
    after = _position(cursor) if cursor else None
    found: list[tuple[tuple[float, float, str], dict[str, Any]]] = []
    gone: list[str] = []
    for game_id, _created in store.apps.page(app.id, player, None, TO_MOVE_SCAN):
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

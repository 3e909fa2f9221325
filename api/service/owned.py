"""An app's games (``GET /v1/games?owner=me``): newest first, any status, optionally of one player.

The ownership index (:class:`api.store.AppStore`) holds every game the app created; the status is read from
each game as it is met, so a filter by status reads past the games it skips (at most ``SCAN_FACTOR`` times
the page size per request: a page may then hold fewer games than asked, and ``next`` goes on from where the
scan stopped). Entries of games that expired are dropped as they are met.
"""

from __future__ import annotations

from typing import Any

from api.service.apps import App
from api.service.games import Games
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

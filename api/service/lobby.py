"""The lobby: listed games with an open seat, newest first.

A game created with ``{"open": true}`` seats is ``waiting`` (its first round is dealt at creation, nobody
can move) and, unless ``unlisted``, is in the lobby index. Claiming a seat is a commit like a move
(:meth:`api.service.moves.Moves.claim_seat`).
"""

from __future__ import annotations

from typing import Any

from api.archive import Key
from api.service.games import Games
from api.service.records import waiting
from api.service.views import lobby_entry
from api.store import Store


def list_waiting(store: Store, read: Games, before: Key | None, limit: int) -> tuple[list[dict[str, Any]], Key | None]:
    """(games, the cursor (created_at, id) of the next page or None). Entries of games that filled up, ended or
    expired are dropped from the index as they are met."""
    games: list[dict[str, Any]] = []
    stale: list[str] = []
    cursor = before
    exhausted = False
    while len(games) < limit and not exhausted:
        rows, exhausted = store.lobby.page(cursor, limit - len(games))
        for game_id, created_at in rows:
            cursor = (created_at, game_id)
            found = read.find(game_id)
            if found is None or not waiting(found.doc) or found.state.finished:
                stale.append(game_id)
                continue
            games.append(lobby_entry(found.doc, found.version, found.state))
    store.lobby.remove(*stale)
    more = len(games) == limit and bool(store.lobby.page(cursor, 1)[0])
    return games, cursor if more else None

"""The lobby index: ``<prefix>:lobby``, a sorted set game id -> created_at of the listed games with an open
seat, on the queue connection (one key across games)."""

from __future__ import annotations

import redis

from api.store.connections import newest_before, translating


class Lobby:
    def __init__(self, conn: redis.Redis, prefix: str) -> None:
        self.conn = conn
        self.key = f"{prefix}:lobby"

    @translating
    def add(self, game_id: str, created_at: float) -> None:
        self.conn.zadd(self.key, {game_id: created_at})

    @translating
    def remove(self, *game_ids: str) -> None:
        if game_ids:
            self.conn.zrem(self.key, *game_ids)

    @translating
    def page(self, before: tuple[float, str] | None, limit: int) -> tuple[list[tuple[str, float]], bool]:
        """Newest first: games created strictly before the cursor (created_at, id) (None: from the newest);
        and whether there are no more."""
        return newest_before(self.conn, self.key, before, limit)

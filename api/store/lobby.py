"""The lobby index: ``<prefix>:lobby``, a sorted set game id -> created_at of the listed games with an open
seat, on the queue connection (one key across games)."""

from __future__ import annotations

import redis

from api.store.connections import scored, translating


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
    def page(self, before: float | None, limit: int) -> list[tuple[str, float]]:
        """Newest first: games created strictly before ``before`` (None: from the newest)."""
        top = "+inf" if before is None else f"({before!r}"
        return scored(self.conn.zrevrangebyscore(self.key, top, "-inf", start=0, num=limit, withscores=True))

"""The archive's part of the fair-play screen (docs/analysis.md#fair-play-screen): which finished games a screen
reads, each seat's readings of a game (kept so that a later screen over some of the same games does not read
them again), and the finished screens. Mixed into :class:`api.archive.Archive`."""

from __future__ import annotations

import time
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import orjson
import sqlalchemy as sa

from api.archive.schema import fairplay_readings, fairplay_screens, games, seats

Reading = tuple[str, int, int, dict[str, Any]]  # (game id, seat, nodes, the seat's tally)


class FairplayArchive:
    if TYPE_CHECKING:  # what the archive gives its parts

        def _connect(self) -> AbstractContextManager[sa.Connection]: ...

        def _insert_new(self, table: sa.Table) -> Any: ...

    def screened_games(self, limit: int, app: str | None = None, player: str | None = None,
                       bot: str | None = None) -> list[tuple[str, list[int], dict[str, Any]]]:  # fmt: skip
        """The newest ``limit`` finished games (status ``finished``) of ``app``'s ``player`` (newest created
        first, as the app's list orders them) or of the registered ``bot`` (newest archived first), each with
        the seats it held and the game's rules: [(game id, [seats], rules)]."""
        if bot is not None:
            mine = sa.and_(seats.c.bot == bot, seats.c.kind == "registered")
            order: Any = seats.c.seq
        else:
            mine = sa.and_(seats.c.app == app, seats.c.player == player)
            order = seats.c.created_at
        newest = (
            sa.select(seats.c.game_id, order)
            .join(games, games.c.id == seats.c.game_id)
            .where(mine, games.c.status == "finished")
            .group_by(seats.c.game_id, order)
            .order_by(order.desc(), seats.c.game_id.desc())
            .limit(limit)
        )
        with self._connect() as conn:
            ids = [row[0] for row in conn.execute(newest)]
            held = conn.execute(sa.select(seats.c.game_id, seats.c.seat).where(mine, seats.c.game_id.in_(ids))).all()
            summaries = dict(conn.execute(sa.select(games.c.id, games.c.summary).where(games.c.id.in_(ids))).all())
        by_game: dict[str, list[int]] = {game_id: [] for game_id in ids}
        for game_id, seat in held:
            by_game[game_id].append(seat)
        return [(game_id, sorted(by_game[game_id]), orjson.loads(summaries[game_id])["rules"]) for game_id in ids]

    def readings(self, game_ids: Iterable[str], nodes: int) -> dict[tuple[str, int], dict[str, Any]]:
        """The kept readings at ``nodes`` of these games' seats: (game id, seat) -> tally."""
        ids = list(game_ids)
        if not ids:
            return {}
        t = fairplay_readings.c
        query = sa.select(t.game_id, t.seat, t.tally).where(t.game_id.in_(ids), t.nodes == nodes)
        with self._connect() as conn:
            return {(row.game_id, row.seat): orjson.loads(row.tally) for row in conn.execute(query)}

    def write_readings(self, rows: Iterable[Reading]) -> None:
        """Keep seats' readings; one already kept stays (a reading is deterministic)."""
        values = [{"game_id": g, "seat": s, "nodes": n, "tally": orjson.dumps(t).decode()} for g, s, n, t in rows]
        if values:
            with self._connect() as conn, conn.begin():
                conn.execute(self._insert_new(fairplay_readings), values)

    def write_screen(self, screen_id: str, app: str | None, subject: str, created_at: float, doc: dict[str, Any]) -> None:
        """Keep a finished screen; one already kept stays as it is (the same games read the same)."""
        row = {"id": screen_id, "app": app, "subject": subject, "created_at": created_at, "finished_at": time.time(),
               "doc": orjson.dumps(doc).decode()}  # fmt: skip
        with self._connect() as conn, conn.begin():
            conn.execute(self._insert_new(fairplay_screens), [row])

    def screen(self, screen_id: str) -> dict[str, Any] | None:
        """A finished screen's document; None when none is kept."""
        with self._connect() as conn:
            doc = conn.execute(sa.select(fairplay_screens.c.doc).where(fairplay_screens.c.id == screen_id)).scalar()
        return None if doc is None else dict(orjson.loads(doc))

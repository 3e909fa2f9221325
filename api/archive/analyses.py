"""The archive's part of the move-by-move analysis (docs/analysis.md): a finished game's analysis kept once, and
read back by game. Mixed into :class:`api.archive.Archive`."""

from __future__ import annotations

import time
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import orjson
import sqlalchemy as sa

from api.archive.schema import analyses


class AnalysisArchive:
    if TYPE_CHECKING:  # what the archive gives its parts

        def _connect(self) -> AbstractContextManager[sa.Connection]: ...

        def _insert_new(self, table: sa.Table) -> Any: ...

    def write_analysis(self, game_id: str, doc: dict[str, Any], nodes: int, created_at: float) -> None:
        """Keep a game's finished analysis (``moves`` and ``seats``); one already kept stays as it is (a job run
        twice writes the same analysis: it is deterministic)."""
        row = {"game_id": game_id, "nodes": nodes, "created_at": created_at, "finished_at": time.time(),
               "doc": orjson.dumps(doc).decode()}  # fmt: skip
        with self._connect() as conn, conn.begin():
            conn.execute(self._insert_new(analyses), [row])

    def analysis(self, game_id: str) -> dict[str, Any] | None:
        """A game's kept analysis: its ``moves`` and ``seats`` with its ``nodes``, ``created_at`` and
        ``finished_at``; None when it has none."""
        return self.analyses([game_id]).get(game_id)

    def analyses(self, game_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The kept analyses of those of ``game_ids`` that have one (as :meth:`analysis`), in one query."""
        ids = list(game_ids)
        if not ids:
            return {}
        cols = (analyses.c.game_id, analyses.c.nodes, analyses.c.created_at, analyses.c.finished_at, analyses.c.doc)
        with self._connect() as conn:
            rows = conn.execute(sa.select(*cols).where(analyses.c.game_id.in_(ids))).all()
        return {
            r.game_id: {**orjson.loads(r.doc), "nodes": r.nodes, "created_at": r.created_at, "finished_at": r.finished_at}
            for r in rows
        }

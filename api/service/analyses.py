"""Analyses of finished games (docs/analysis.md): asked for by anyone once a game is over and revealed, run as one
job on the ``analysis`` queue, kept in the archive.

An analysis is idempotent per game: asking again returns the one queued, running or done (a failed one is
started again). While it runs its record in Redis (api/store/analyses.py) holds the moves analysed so far,
written at least every ``analysis_progress_s``: a job whose worker stops (it is put back in its queue) or dies
(RQ retries it) resumes after them, and since each move's analysis is seeded by the game id and its version
alone, the answer is the same as one uninterrupted run's. Done, the answer goes to the archive (one row per
game) and is read from there; the Redis record expires.

A client (its address) may have ``analyses_per_client`` analyses queued or running at once: 429 beyond. An
analysis costs about its moves with a choice times ``analysis_nodes`` simulator moves each (bench/analysis.py:
a 2-player draw match to 100 is about 250 such moves, a few seconds of one worker).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar

import orjson

from domino.analysis import MoveAnalysis, analyse_position, positions, summarise
from api.archive import Archive
from api.config import Settings
from api.queues import Queues
from api.service.errors import AnalysisNotFound, TooManyAnalyses
from api.store import AnalysisStore, Store

log = logging.getLogger("api.service.analyses")

PENDING = ("queued", "running")
SCREEN_SLOT = "fp:"  # a fair-play screen's slot (api/service/fairplay.py)


class Analyses:
    def __init__(self, store: Store, settings: Settings, queues: Queues, archive: Archive) -> None:
        self.store = store
        self.records = store.analyses
        self.settings = settings
        self.queues = queues
        self.archive = archive

    # -- the API's side ---------------------------------------------------------------------------------------

    def find(self, game_id: str) -> dict[str, Any] | None:
        """The game's analysis as the API answers it (queued, running, failed: its progress; done: in full),
        or None when it has none."""
        fields = self.records.load(game_id)
        if fields is None or fields["status"] == "done":
            kept = self.archive.analysis(game_id)
            return None if kept is None else _done(game_id, kept)
        return _pending(game_id, fields)

    def read(self, game_id: str, wait: float = 0.0) -> dict[str, Any]:
        """The game's analysis; with ``wait``, once it is over (done or failed) or after ``wait`` seconds."""
        found = self.find(game_id)
        if found is None:
            raise AnalysisNotFound(f"Game {game_id!r} has no analysis: POST /v1/games/{game_id}/analysis asks for one.")
        if wait > 0 and found["status"] in PENDING:
            self.records.wait_over(game_id, max(1, int(min(wait, self.settings.max_wait) * 1000)))
            return self.read(game_id)
        return found

    def request(self, game_id: str, client: str) -> dict[str, Any]:
        """Queue an analysis of ``game_id`` (the caller has checked it is over and revealed), taking one of
        ``client``'s slots, unless one is queued, running or done: then that one."""
        self.take_slot(client, game_id)
        created = self.records.create(game_id, {"client": client, "nodes": self.settings.analysis_nodes})
        if created is not None:  # there was one already: the slot goes back
            self.store.client_analyses.release(client, game_id)
        else:
            try:
                self.queues.enqueue_analysis(game_id, time.time_ns())
            except Exception:
                self._end(game_id, client, "failed", "could not enqueue its job")
                raise
        found = self.find(game_id)
        assert found is not None
        return found

    def take_slot(self, client: str, slot: str) -> None:
        """One of ``client``'s analysis slots for ``slot`` (a game id, or ``fp:`` and a fair-play screen's id:
        both kinds share a client's slots), or TooManyAnalyses. Slots of jobs that are over are given back
        first."""
        slots = self.store.client_analyses
        held = slots.held(client)
        over = [g for g in held if (self._job_of(g).load(g.removeprefix(SCREEN_SLOT)) or {}).get("status") not in PENDING]
        slots.release(client, *over)
        cap = self.settings.analyses_per_client
        if not slots.take(client, slot, cap, self.settings.analysis_ttl * 1000):
            raise TooManyAnalyses(
                f"This client has {cap} analyses queued or running, as many as it may; wait for one to end.",
                self.settings.capacity_retry_after,
            )

    def _job_of(self, slot: str) -> AnalysisStore:
        return self.store.screens if slot.startswith(SCREEN_SLOT) else self.records

    # -- the job ------------------------------------------------------------------------------------------------

    def pending(self, game_id: str) -> bool:
        fields = self.records.load(game_id)
        return fields is not None and fields["status"] in PENDING

    def run(self, game_id: str, record: dict[str, Any]) -> str:
        """Analyse the game whose revealed record is ``record``, from the first move not analysed yet; keep
        the answer in the archive. Returns what happened (RQ keeps it as the job's result)."""
        fields = self.records.load(game_id)
        if fields is None or fields["status"] not in PENDING:
            return f"skipped: {'gone' if fields is None else fields['status']}"
        nodes = int(fields["nodes"])
        found = list(positions(record))
        done = [MoveAnalysis.from_dict(orjson.loads(m)) for m in self.records.moves(game_id)]
        if self.records.progress(game_id, len(done), len(found), []) < 0:
            return "skipped: over"
        steps = (functools.partial(analyse_position, game_id, p, nodes) for p in found[len(done) :])
        if not work_through(self.records, game_id, done, steps, len(found), self.settings.analysis_progress_s):
            return "stopped: another run went on"
        players = len(record["seats"])
        doc = {"moves": [m.to_dict() for m in done], "seats": [s.to_dict() for s in summarise(done, players)]}
        self.archive.write_analysis(game_id, doc, nodes, float(fields["created_at"]))
        self._end(game_id, fields["client"], "done")
        return f"done: {len(done)} moves"

    def failed(self, game_id: str, error: str) -> None:
        """RQ's failure callback after the last attempt."""
        fields = self.records.load(game_id)
        if fields is not None:
            self._end(game_id, fields["client"], "failed", error)

    def _end(self, game_id: str, client: str, status: str, error: str = "") -> None:
        self.records.end(game_id, status, error)
        self.store.client_analyses.release(client, game_id)


class Reading(Protocol):
    def to_dict(self) -> Any: ...


R = TypeVar("R", bound=Reading)


def work_through(records: AnalysisStore, job_id: str, done: list[R], steps: Iterable[Callable[[], R]], total: int, every: float) -> bool:
    """Run ``steps`` (the job's steps after ``done``), their results written after ``done`` at least every
    ``every`` seconds and at the end, so that a job put back resumes after them; False when another run got
    further meanwhile. (An analysis' moves; a fair-play screen's positions.)"""
    batch: list[R] = []
    flushed = time.monotonic()
    for step in steps:
        batch.append(step())
        if time.monotonic() - flushed >= every:
            if not _flush(records, job_id, done, batch, total):
                return False
            flushed = time.monotonic()
    return _flush(records, job_id, done, batch, total)


def _flush(records: AnalysisStore, job_id: str, done: list[R], batch: list[R], total: int) -> bool:
    """Write ``batch`` after ``done`` in the job's list (then moved there); False when another run got further
    meanwhile. (An analysis' moves; a fair-play screen's positions.)"""
    kept = records.progress(job_id, len(done), total, [orjson.dumps(m.to_dict()).decode() for m in batch])
    if kept != len(done) + len(batch):
        return False
    done.extend(batch)
    batch.clear()
    return True


def _pending(game_id: str, fields: dict[str, str]) -> dict[str, Any]:
    total = int(fields.get("total", 0))
    done = int(fields.get("done", 0))
    out: dict[str, Any] = {
        "game_id": game_id,
        "status": fields["status"],
        "progress": round(done / total, 3) if total else 0.0,
        "moves_done": done,
        "moves_total": total if "total" in fields else None,
        "nodes": int(fields["nodes"]),
    }
    if fields.get("error"):
        out["error"] = fields["error"]
    return out


def _done(game_id: str, kept: dict[str, Any]) -> dict[str, Any]:
    n = len(kept["moves"])
    return {
        "game_id": game_id, "status": "done", "progress": 1.0, "moves_done": n, "moves_total": n,
        "nodes": kept["nodes"], "moves": kept["moves"], "seats": kept["seats"],
    }  # fmt: skip

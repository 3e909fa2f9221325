"""Moving finished games from Redis to the archive.

A game's ending commit marks it in the archive due set first (:meth:`api.service.turns.Turns.prepare`), and
its keys stop expiring. A job on the ``archive`` queue (:meth:`Archiving.drain`) leases a batch of due games,
reads each whole from Redis (its live document, its finished rounds, every event), renders what the archive
keeps (the record everyone reads once the game is over, the owner's list entry) and writes the batch in one
transaction, idempotently by game id. Only then are the games flagged archived in Redis, given their short
grace expiry (``DOMINO_ARCHIVED_TTL``) and taken out of their app's Redis index, and their due entries
cleared. A crash anywhere leaves the entries: their lease runs out, the sweep enqueues another job, which
writes nothing twice. A rated game waits until its ratings are counted. The archive down: the batch's entries
come back after ``DOMINO_ARCHIVE_RETRY`` seconds, and the games stay in Redis meanwhile.
"""

from __future__ import annotations

import logging
import math
import time

import orjson

import domino.codec
from api.archive import Archive, ArchiveUnavailable, Entry
from api.config import Settings
from api.queues import ARCHIVE, ARCHIVE_BATCH, Queues
from api.service.records import game_record, owner, whole_state
from api.service.views import game_status, game_summary, render_history
from api.store import Store, WholeGame

log = logging.getLogger("api.service.archiving")

ENTRY_SEAT = ("seat", "name", "kind", "player", "bot")


def entry(game_id: str, whole: WholeGame, now: float) -> Entry | None:
    """What the archive keeps of a game, or None while it is not over (a commit marked it, then lost its race)."""
    doc = game_record(whole.doc)
    if not domino.codec.is_finished(doc["state"]):
        return None
    state = whole_state(doc, whole.rounds)  # plays and views as the live state does, with every round's record
    record = render_history(doc, whole.version, state, None, whole.events)
    del record["archived"]  # the reads add it (api.service.views.from_archive); exports send the rest as it is
    return Entry(
        id=game_id,
        app=doc.get("app"),
        variant=doc["variant"],
        status=game_status(state, doc),
        rated=bool(doc.get("rated")),
        created_at=doc["created_at"],
        ended_at=now,
        version=whole.version,
        doc=whole.raw_doc,
        record=orjson.dumps(record),
        events=whole.events_json,
        summary=orjson.dumps(game_summary(doc, whole.version, state)),
        seats=[{k: s.get(k) for k in ENTRY_SEAT} for s in doc["seats"]],
    )


class Archiving:
    def __init__(self, store: Store, settings: Settings, archive: Archive, queues: Queues) -> None:
        self.store = store
        self.settings = settings
        self.archive = archive
        self.queues = queues
        self.due = store.archive_due

    def drain(self) -> str:
        """Archive one batch of due games (``DOMINO_ARCHIVE_BATCH``); if the batch was full, enqueue the next
        job at once. Returns what happened (RQ keeps it as the job's result)."""
        s = self.settings
        taken = self.due.lease(s.archive_batch, s.archive_lease)
        if not taken:
            return "nothing due"
        whole = self.store.whole_games.load(taken)
        waiting = self.store.ratings_due.pending(list(whole))  # archived only once their ratings are counted
        now = time.time()
        entries: list[Entry] = []
        drop: list[str] = []
        held: dict[str, list[str]] = {}  # held: owner -> its games archived now
        for game_id in taken:
            found = whole.pop(game_id, None)  # each game decoded in turn, and let go once rendered
            if found is None:
                drop.append(game_id)  # gone (deleted)
                continue
            if game_id not in waiting and self._sealed(found):
                waiting.add(game_id)  # an arena's game waits for the arena's end (its record reveals the deals)
            made = None if game_id in waiting else entry(game_id, found, now)
            if made is not None:
                entries.append(made)
                if (held_by := owner(game_record(found.doc))) is not None:
                    held.setdefault(held_by, []).append(game_id)
            elif game_id not in waiting:
                drop.append(game_id)  # not over: nothing to archive
        try:
            self.archive.write(entries)
        except ArchiveUnavailable as exc:
            log.warning("the archive is down (%s): %d games stay in Redis, tried again in %ss", exc, len(entries), s.archive_retry)
            self.due.mark_many([e.id for e in entries], now + s.archive_retry)
            return f"archive down: {len(entries)} games wait"
        self._archived(entries, held)
        self.due.clear_many([*drop, *(e.id for e in entries)])
        if len(taken) == s.archive_batch:
            self.enqueue()
        return f"archived {len(entries)}, dropped {len(drop)}, waiting for ratings {len(waiting)}"

    def _sealed(self, whole: WholeGame) -> bool:
        """An arena's game while the arena runs: its record would reveal deals other games still play."""
        ref = game_record(whole.doc).get("arena")
        return ref is not None and self.store.arenas.is_running(ref["id"])

    def _archived(self, entries: list[Entry], held: dict[str, list[str]]) -> None:
        """The archive holds ``entries``: flag them in Redis with their grace expiry, release them from what
        their owners hold (``held``: owner -> games), and take them out of their apps' Redis indexes (the
        archive lists them now)."""
        self.store.expiry.mark_archived([e.id for e in entries], self.settings.archived_ttl)
        self.store.client_finished.release_many(held)
        self.store.apps.disown_many(
            [(e.app, [e.id], [p for p in (seat.get("player") for seat in e.seats) if p]) for e in entries if e.app is not None]
        )

    def enqueue(self) -> None:
        """One more archive job (its own id: any number may run)."""
        self.queues.enqueue(ARCHIVE_BATCH, attempt=time.time_ns())

    def jobs_wanted(self, now: float) -> int:
        """How many drain jobs the sweep should add: enough for the games due now, less those queued."""
        due = self.due.count_due(now)
        if due == 0:
            return 0
        return max(0, min(math.ceil(due / self.settings.archive_batch), self.settings.archive_jobs) - self.queues.queued(ARCHIVE))

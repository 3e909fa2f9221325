"""Simulations with their records and queues: create, read, list, cancel, and the chunk job.

Simulations share the workers: only the first ``window`` chunks are queued at creation, and chunk ``c``, when
it starts, queues chunk ``c + window`` at the back of the queue, behind the chunks of every simulation
created since. A small simulation therefore waits for a few chunks of each running one, not for all of them.

A simulation is owned: its creator gets a token (shown once, stored hashed) without which it cannot be
cancelled, and a client (its address) lists only the simulations it created. A client may have
``simulations_per_client`` simulations queued or running at once.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from typing import Any

from api.config import Settings
from api.service.errors import SimulationNotFound, TooManySimulations, Unauthorized
from api.queues import Queues
from api.service.security import is_id, new_id, new_token, owns, token_hash
from api.service.simulations.play import play_chunk
from api.service.simulations.render import render
from api.service.simulations.spec import SimulationRequest, Spec, make_spec
from api.store import Store

log = logging.getLogger("api.service.simulations")

STATUSES = ("queued", "running", "finished", "cancelled", "failed")
# Index entries one page may read: with a status filter a page can come back short (even empty) with a next
# cursor, instead of one request reading a week of simulations to find a rare status.
LIST_SCAN = 1000
FILTERED_BATCH = 100
OUTCOMES = {1: "counted", 0: "already counted", -1: "not counted: cancelled", -2: "not counted: gone"}

Cursor = tuple[float, str]  # (created_at, id) of the last index entry read


class Simulations:
    def __init__(self, store: Store, settings: Settings, queues: Queues) -> None:
        self.store = store
        self.records = store.simulations
        self.settings = settings
        self.queues = queues

    def create(self, request: SimulationRequest, client: str) -> tuple[str, dict[str, Any], str]:
        """Validate, take one of ``client``'s simulation slots, write the record (``queued``) and enqueue its
        first ``window`` chunks. Returns (id, the simulation, its owner's token: shown once)."""
        spec = make_spec(self.settings, **dataclasses.asdict(request))
        spec = dataclasses.replace(spec, window=self.queues.simulation_window())
        sim_id = new_id()
        self._take_slot(client, sim_id)
        token = new_token()
        fields = {"status": "queued", "spec": spec.to_json(), "chunks": spec.chunks, "chunks_done": 0}
        self.records.create(sim_id, client, {**fields, "owner": token_hash(sim_id, token)})
        try:
            self.queues.enqueue_chunks(sim_id, range(min(spec.window, spec.chunks)))
        except Exception:
            self.records.end(sim_id, "failed", "could not enqueue its chunks")
            raise
        return sim_id, self.get(sim_id), token

    def _take_slot(self, client: str, sim_id: str) -> None:
        """A slot among the client's simulations queued or running, or TooManySimulations. Slots of
        simulations that have ended (finished, cancelled, failed, expired) are given back first."""
        slots = self.store.client_sims
        held = slots.held(client)
        ended = [h for h, status in zip(held, self.records.statuses(held)) if status not in ("queued", "running")]
        slots.release(client, *ended)
        cap = self.settings.simulations_per_client
        if not slots.take(client, sim_id, cap, self.settings.simulation_ttl * 1000):
            raise TooManySimulations(
                f"This client has {cap} simulations queued or running, as many as it may; wait for one to end "
                "or cancel one.",
                self.settings.capacity_retry_after,
            )

    def get(self, sim_id: str) -> dict[str, Any]:
        found = self.records.load(sim_id) if is_id(sim_id) else None
        if found is None:
            raise SimulationNotFound(f"No simulation {sim_id[:40]!r} (or it expired).")
        fields, now = found
        return render(sim_id, fields, now)

    def list_page(
        self, client: str, before: Cursor | None, limit: int, status: str | None = None
    ) -> tuple[list[dict[str, Any]], Cursor | None]:
        """``client``'s simulations newest first, each as :meth:`get` shows it, optionally only those in
        ``status``: (the page, the cursor of the next page or None). Entries whose records have expired are
        dropped from the index as they are met."""
        sims: list[dict[str, Any]] = []
        cursor = before
        scanned = 0
        exhausted = False
        while len(sims) < limit and scanned < LIST_SCAN and not exhausted:
            want = limit - len(sims) if status is None else min(FILTERED_BATCH, LIST_SCAN - scanned)
            rows = self.records.index_page(client, cursor, want)
            exhausted = len(rows) < want
            records, now = self.records.load_many([sim_id for sim_id, _ in rows])
            gone = []
            for (sim_id, created_at), fields in zip(rows, records):
                if len(sims) == limit:
                    exhausted = False  # this batch has more than the page takes
                    break
                cursor = (created_at, sim_id)
                scanned += 1
                if fields is None:
                    gone.append(sim_id)
                elif status is None or fields.get("status") == status:
                    sims.append(render(sim_id, fields, now))
            self.records.forget(client, *gone)
        more = not exhausted and cursor is not None and bool(self.records.index_page(client, cursor, 1))
        return sims, cursor if more else None

    def cancel(self, sim_id: str, token: str | None) -> dict[str, Any]:
        """Cancel a queued or running simulation with its owner's ``token``: chunks not started never run, a
        running chunk stops at its next check and adds nothing, the counts so far stay readable. A simulation
        already over is left as it is."""
        self._owned(sim_id, token, "cancel")
        return self._cancel(sim_id)

    def delete(self, sim_id: str, token: str | None) -> None:
        """Cancel a simulation (its queued chunks never run, a running one adds nothing) and remove it, with its
        owner's ``token``: reading it afterwards is a 404."""
        fields = self._owned(sim_id, token, "delete")
        self._cancel(sim_id)
        self.records.delete(sim_id, fields["client"])

    def _owned(self, sim_id: str, token: str | None, what: str) -> dict[str, str]:
        """The record of ``sim_id`` if ``token`` is its owner's; else SimulationNotFound or Unauthorized."""
        found = self.records.load(sim_id) if is_id(sim_id) else None
        if found is None:
            raise SimulationNotFound(f"No simulation {sim_id[:40]!r} (or it expired).")
        if token is None or not owns(found[0].get("owner", ""), sim_id, token):
            raise Unauthorized(f"Only its creator may {what} a simulation: send the token it was given.")
        return found[0]

    def _cancel(self, sim_id: str) -> dict[str, Any]:
        before = self.records.end(sim_id, "cancelled")
        if before is None:
            raise SimulationNotFound(f"No simulation {sim_id[:40]!r} (or it expired).")
        sim = self.get(sim_id)
        if before in ("queued", "running"):
            self._drop_queued(sim_id, sim["chunks_total"])
        return sim

    def _drop_queued(self, sim_id: str, chunks: int) -> None:
        """Take an ended simulation's chunks out of the queue (best effort)."""
        try:
            self.queues.drop_chunks(sim_id, chunks)
        except Exception:  # they stay queued and do nothing when they run
            log.warning("could not drop the queued chunks of %s", sim_id, exc_info=True)

    def run_chunk(self, sim_id: str, chunk: int) -> str:
        """The job: play chunk ``chunk`` unless the simulation is over (or the chunk was counted), and add its
        counts once. Returns what happened (RQ keeps it as the job's result).

        First it queues the chunk a window later, so that a worker dying mid-chunk loses nothing: the retry
        queues it if it is not queued yet. A chunk found counted queues it too (counted some other way, it
        may never have)."""
        status = self.records.start_chunk(sim_id, chunk)
        if status not in ("queued", "running", "done"):
            return f"skipped: {status}"
        found = self.records.load(sim_id)
        if found is None:
            return "skipped: gone"
        fields = found[0]
        spec = Spec.from_json(fields["spec"])
        later = chunk + spec.window
        if later < spec.chunks and fields.get("status") in ("queued", "running"):
            if not self.records.chunk_counted(sim_id, later):  # counted: it queued its own later chunk
                self.queues.enqueue_later_chunk(sim_id, later)
        if status == "done":
            return "skipped: done"
        t0, cpu0 = time.perf_counter(), time.process_time()
        budget = self._cpu_budget(spec, chunk)
        # An exception fails the job: RQ retries it, then chunk_failed.
        counts = play_chunk(spec, chunk, self._still_wanted(sim_id, cpu0 + budget))
        if counts is None:
            used = time.process_time() - cpu0
            if used > budget:
                self._overran(sim_id, spec, chunk, used)
                return "stopped: over its estimate"
            return "stopped: cancelled"
        counts["busy_ms"] = round((time.perf_counter() - t0) * 1000)
        counts["cpu_ms"] = round((time.process_time() - cpu0) * 1000)
        added = self.records.add_chunk(sim_id, fields["client"], chunk, {f"c:{k}": v for k, v in counts.items()})
        return OUTCOMES[added]

    def _still_wanted(self, sim_id: str, cpu_limit: float) -> Any:
        """A ``keep_going`` for a running chunk: every ``simulation_cancel_check`` s, stop when the process has
        used ``cpu_limit`` (``time.process_time``) or the simulation was cancelled."""
        every = self.settings.simulation_cancel_check
        next_check = time.monotonic() + every

        def keep_going() -> bool:
            nonlocal next_check
            now = time.monotonic()
            if now < next_check:
                return True
            next_check = now + every
            return time.process_time() <= cpu_limit and self.records.status(sim_id) in ("queued", "running")

        return keep_going

    def _cpu_budget(self, spec: Spec, chunk: int) -> float:
        """The CPU seconds chunk ``chunk`` may use: ``simulation_overrun`` times its estimate, or times the chunk
        time when that is more (a small chunk's estimate is within the noise). A spec stored before the
        estimate was kept has none."""
        s = self.settings
        if not spec.game_seconds:
            return math.inf
        return s.simulation_overrun * max(spec.chunk_seconds(chunk), s.simulation_chunk_seconds)

    def _overran(self, sim_id: str, spec: Spec, chunk: int, used: float) -> None:
        """A chunk used more than its budget: the cost model is wrong for these rules. The simulation fails
        (what was counted stays readable) rather than hold workers for far longer than it was sized for."""
        reason = (
            f"chunk {chunk} used {used:.1f} s of CPU, over {self.settings.simulation_overrun:g} times its estimate "
            f"({spec.chunk_seconds(chunk):.2f} s): these rules cost more than the cost model says"
        )
        log.warning("simulation %s: %s", sim_id, reason)
        if self.records.end(sim_id, "failed", reason) in ("queued", "running"):
            self._drop_queued(sim_id, spec.chunks)

    def chunk_failed(self, sim_id: str, error: str) -> None:
        """RQ's failure callback after the last attempt (a worker died mid-chunk, a timeout)."""
        self.records.end(sim_id, "failed", error[:500])

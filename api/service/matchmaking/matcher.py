"""The matcher: passes over a pool's waiting tickets that form tables and seat them in new games.

A pass runs when a ticket arrives (a job on the bots queue: a compatible ticket is matched in milliseconds,
not at the sweep's next interval), looking only for the table the new ticket may join; the sweep passes over
every pool for what time changes (ranges that widened, tables due to be filled with computer players). One
pass at a time per pool (a lock in Redis; a pass asked for meanwhile runs after it), and a table is claimed
in one script that takes all its tickets out of the pool or none, so a ticket is matched exactly once
whatever runs at once, on however many machines.

A claimed match reserves its game id and its seats' tokens first, then creates the game through the same
checks and first commit as any game (idempotent by that id), then marks its tickets matched. The sweep
finishes a match a crash left claimed and not finished.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from api.config import Settings
from api.queues import MATCH_POOL, Queues
from api.service.app_events import MATCH_FOUND, Lifecycle, match_payload
from api.service.create import Creation, GameRequest
from api.service.errors import ServiceError
from api.service.matchmaking.spec import ANONYMOUS, BOT, PLAYER
from api.service.matchmaking.tables import Seeker, Table, tables
from api.service.matchmaking.tickets import KEPT_S, spec_of
from api.service.security import new_id, new_token
from api.store import Store

log = logging.getLogger("api.service.matchmaking")

LOCK_MS = 10_000  # a pass that died holding the lock frees it after this long
SETTLE_S = 5.0  # a match claimed this long ago and not finished was left by a crash: the sweep finishes it


class Matcher:
    def __init__(self, store: Store, settings: Settings, queues: Queues, creation: Creation, lifecycle: Lifecycle) -> None:
        self.store = store
        self.settings = settings
        self.queues = queues
        self.creation = creation
        self.lifecycle = lifecycle

    def ask(self, pool: str, first: str) -> None:
        """A ticket arrived in ``pool``: a pass for the table it may join, on a worker."""
        self.queues.enqueue(MATCH_POOL, pool, first)

    def run(self, pool: str, first: str | None = None, now: float | None = None) -> int:
        """Passes over ``pool`` (as at ``now``; default: now) while the lock is ours and more are asked for; the
        tables formed."""
        owner = new_id()
        formed = 0
        while self.store.tickets.lock(pool, owner, LOCK_MS):
            try:
                formed += self._pass(pool, first, time.time() if now is None else now)
            finally:
                again = self.store.tickets.unlock(pool, owner)
            if not again:
                break
            first = None  # asked for by others: the whole pool
        return formed

    def _pass(self, pool: str, first: str | None, now: float) -> int:
        waiting = self.store.tickets.waiting(pool)
        if not waiting or (first is not None and first not in waiting):
            return 0
        seekers = [_seeker(ticket_id, entry) for ticket_id, entry in waiting.items()]
        shape = next(iter(waiting.values()))
        formed = tables(seekers, shape["size"], shape["teams"], now, self.settings.match_widen, first)
        return sum(self._claim(pool, table, now) for table in formed)

    def _claim(self, pool: str, table: Table, now: float) -> int:
        records = {t: self.store.tickets.get(t) for t in table.tickets}
        specs = {t: spec_of(r) for t, r in records.items() if r is not None}
        tokens = [None if t is None or specs[t]["holder"]["kind"] == BOT else new_token() for t in table.seats]
        match = {"game": new_id(), "pool": pool, "seats": list(table.seats), "tokens": tokens}
        match_id = new_id()
        if not self.store.tickets.claim(pool, match_id, match, now, table.tickets):
            return 0  # one of them was matched or cancelled meanwhile
        self.finish(match_id, match, specs)
        return 1

    def finish(self, match_id: str, match: dict[str, Any], specs: dict[str, dict[str, Any]] | None = None) -> None:
        """Create the match's game (again, harmlessly, after a crash) and mark its tickets matched. ``specs``:
        its tickets' requests, when the caller has read them (the sweep reads them here)."""
        if specs is None:
            specs = {t: spec_of(r) for t in match["seats"] if t is not None and (r := self.store.tickets.get(t)) is not None}
        seats = match["seats"]
        first = specs[next(t for t in seats if t is not None)]
        apps = {s["holder"].get("app") if s["holder"]["kind"] == PLAYER else None for s in specs.values()}
        app_id = apps.pop() if len(apps) == 1 else None
        req = GameRequest(
            variant=first["variant"],
            seats=[_seat(specs[t] if t is not None else None, first) for t in seats],
            rules=first["rules"] or None,
            unlisted=True,
            turn_timeout_s=first.get("turn_timeout_s"),
            clock=first.get("clock"),
            rated=first["rated"],
        )
        game_id = match["game"]
        try:
            self.creation.create_for_match(game_id, req, match["tokens"], app_id)
        except ServiceError:
            log.warning("match %s: its game could not be made; its tickets are cancelled", match_id, exc_info=True)
            self.store.tickets.drop(match_id, KEPT_S, [t for t in seats if t is not None])
            return
        seated = [(t, game_id, i, match["tokens"][i] or "") for i, t in enumerate(seats) if t is not None]
        self.store.tickets.finish(match_id, KEPT_S, seated)
        self._tell(game_id, seats, specs, app_id)

    def _tell(self, game_id: str, seats: list[str | None], specs: dict[str, dict[str, Any]], app_id: str | None) -> None:
        """A registered bot hears ``match`` on its stream; an app hears ``match.found`` for its players."""
        notices = [
            (specs[t]["holder"]["name"], {"type": "match", "ticket": t, "game_id": game_id, "seat": i, "version": 0})
            for i, t in enumerate(seats)
            if t is not None and specs[t]["holder"]["kind"] == BOT
        ]
        self.store.bots.push(notices)
        by_app: dict[str, list[dict[str, Any]]] = {}
        for i, t in enumerate(seats):
            holder = specs[t]["holder"] if t is not None else None
            if holder is not None and holder["kind"] == PLAYER:
                by_app.setdefault(holder["app"], []).append({"player": holder["name"], "seat": i, "ticket": t})
        for app, players in by_app.items():
            self.lifecycle.announce(app, game_id, 0, MATCH_FOUND, match_payload(game_id, players))

    def sweep(self, now: float) -> int:
        """What time changes: matches a crash left half done are finished, and every pool gets a whole pass
        (ranges widen with the wait; tables are filled with computer players once their wait is over)."""
        for match_id in self.store.tickets.pending(now - SETTLE_S):
            match = self.store.tickets.match(match_id)
            if match is not None:
                self.finish(match_id, match)
        return sum(self.run(pool, now=now) for pool in self.store.tickets.pools())


def _seeker(ticket_id: str, entry: dict[str, Any]) -> Seeker:
    return Seeker(
        id=ticket_id, arrived=entry["arrived"], holder=entry["holder"], app=entry.get("app"), ordinal=entry.get("ordinal"),
        lo=entry.get("lo"), hi=entry.get("hi"), party=entry.get("party"), bots_at=entry.get("bots_at"),
    )  # fmt: skip


def _seat(spec: dict[str, Any] | None, first: dict[str, Any]) -> dict[str, Any]:
    """A game seat for a ticket's holder; None: the computer player that fills the table."""
    if spec is None:
        return {"bot": first.get("bot") or "greedy"}
    holder = spec["holder"]
    if holder["kind"] == BOT:
        return {"bot": holder["name"]}
    if holder["kind"] == PLAYER:
        return {"name": holder["name"], "player": holder["name"]}
    assert holder["kind"] == ANONYMOUS
    return {"name": spec.get("name") or "Player"}

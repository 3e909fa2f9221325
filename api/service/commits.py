"""The one way a game changes: load -> check -> change -> commit -> retry.

A use case (a move, a resignation, a seat claim) is a ``decide`` function: given the game as loaded, it
checks the request (raising on bad input: nothing is written) and returns the :class:`Change` to make.
:meth:`Commits.run` prepares the next turn (:class:`api.service.turns.Turns`), writes the change with one
compare-and-set, and, when another commit landed first, loads again and asks ``decide`` again, or gives up
with the use case's own conflict error. The creation of a game commits its first record through
:meth:`Commits.apply`, the same step without a load.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import orjson

import domino
from api.config import Settings
from api.service.app_events import Delivery, Lifecycle
from api.service.errors import GameNotFound
from api.service.games import Game, Games, gone
from api.service.records import REGISTERED, GameRecord, StoredEvent, owner
from api.service.turns import Plan, Turns, decorate, notice
from api.service.views import render_view
from api.store import Batch, Commit, CommitResult, Store, StoreUnavailable, translated

log = logging.getLogger("api.service.commits")


@dataclasses.dataclass
class Answer:
    """A move's first answer, kept with its commit so that a retry with the same Idempotency-Key gets it. The
    view is rendered before the commit (it is written with it), after the turn is prepared (it shows the
    deadline)."""

    field: str
    fingerprint: str
    view: dict[str, Any] | None = None


@dataclasses.dataclass
class Change:
    doc: GameRecord  # the new record (its deadline is set when the next turn is prepared)
    state: domino.State  # the new state (also in ``doc``)
    events: list[StoredEvent]
    seat: int | None  # whose change it is (its view is the answer)
    ttl: int | None = None  # a live game's expiry if not its deadline's (an ended game's keys stay until archived)
    auto: bool = False  # made by the server for a seat past its deadline
    answer: Answer | None = None
    rounds: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # round records leaving the live state
    keeps_turn: bool = False  # the same seat goes on with the same turn: its deadline and clock run on (a hint)


class Committed(NamedTuple):  # named tuples, as Plan: made on every move (see api.store.Commit)
    change: Change
    version: int
    plan: Plan


Decide = Callable[[Game], Change]


class _Prepared(NamedTuple):
    change: Change
    plan: Plan
    deliveries: list[Delivery]
    commit: Commit


class Commits:
    def __init__(self, store: Store, settings: Settings, games: Games, turns: Turns, lifecycle: Lifecycle) -> None:
        self.store = store
        self.settings = settings
        self.games = games
        self.turns = turns
        self.lifecycle = lifecycle  # an app's game: its webhook hears of the start, each round's end, the end

    def run(
        self,
        game_id: str,
        decide: Decide,
        conflict: Callable[[Change], Exception],
        retry: bool = True,
        loaded: Game | None = None,
        expected: int | None = None,
    ) -> Committed:
        """Commit what ``decide`` makes of the current game. ``loaded``: the game as the caller already read it
        (no second read). ``expected``: the version the caller names; when this process holds its record,
        ``decide`` runs on it with no read, and the compare-and-set checks that it is still current. On a lost
        race: load and decide again when ``retry`` (at most ``Settings.conflict_retries`` times), else raise
        ``conflict(change)``."""
        if loaded is None and expected is not None:
            committed = self._on_kept(game_id, expected, decide, conflict, retry)
            if committed is not None:
                return committed
        for _ in range(self.settings.conflict_retries + 1):
            game = loaded or self.games.read(game_id)
            loaded = None
            change = decide(game)
            committed = self.apply(game_id, game.version, change)
            if committed is not None:
                return committed
            if not retry:
                break
        raise conflict(change)

    def _on_kept(
        self, game_id: str, expected: int, decide: Decide, conflict: Callable[[Change], Exception], retry: bool
    ) -> Committed | None:
        """Decide and commit on the record of ``expected`` this process holds, if any, with no read; None to
        go the usual way (no record kept, ``decide`` refused it, or, with ``retry``, the version is stale)."""
        kept = self.games.kept(game_id, expected)
        if kept is None:
            return None
        try:
            change = decide(kept)
        except Exception:  # whatever it was (a stale record, a replay), a fresh load decides, as always
            return None
        committed = self.apply(game_id, expected, change)
        if committed is None and not retry:
            raise conflict(change)
        return committed

    def apply(self, game_id: str, version: int | None, change: Change) -> Committed | None:
        """Write ``change`` over ``version`` (None: a new game) with one compare-and-set; None when another
        commit landed first. GameNotFound when the game has gone."""
        prepared = self._prepare(game_id, version, change)
        c = prepared.commit
        result = self.store.games.commit(
            game_id, version, c.version, c.doc, c.events, c.ttl, c.idempotency, turn=c.turn, rounds=c.rounds
        )
        return self._landed(prepared, result)

    def apply_many(self, changes: list[tuple[str, int, Change]]) -> list[Committed | str]:
        """:meth:`apply` of each (game id, version, change) of several games, each its own compare-and-set on its
        own version, in a few round trips for them all: the apps' records read together, every due entry of
        the batch marked in one transaction before any commit, the commits sent together. Each answer is the
        commit, or ``stale`` (another landed first) or ``gone``."""
        if not changes:
            return []
        app_ids = sorted({c.doc["app"] for _, _, c in changes if "app" in c.doc})
        apps = self.store.apps.get_many(app_ids) if app_ids else {}
        batch = self.store.batch()
        prepared = [self._prepare(game_id, version, change, batch, apps) for game_id, version, change in changes]
        with translated():
            batch.execute()  # a failure raises here: nothing is committed
        results = self.store.games.commit_many([p.commit for p in prepared])
        out: list[Committed | str] = []
        for ready, result in zip(prepared, results):
            try:
                out.append(self._landed(ready, result) or "stale")
            except GameNotFound:
                out.append("gone")
        return out

    def _prepare(
        self, game_id: str, version: int | None, change: Change, batch: Batch | None = None,
        apps: Mapping[str, dict[str, str] | None] | None = None,
    ) -> _Prepared:  # fmt: skip
        """What goes before the commit: the next turn prepared, its due entries and the app's deliveries noted
        (with ``batch``: in it, which the caller writes before the commit), the commit's writes."""
        new_version = 0 if version is None else version + 1
        if change.keeps_turn:
            plan = self.turns.kept(change.doc, change.state)
        else:
            plan = self.turns.prepare(game_id, change.doc, change.state, new_version, batch)
        events = decorate(change.events, plan, change.auto)
        idem = None
        if change.answer is not None:
            ans = change.answer
            ans.view = render_view(change.doc, new_version, change.state, change.seat)
            idem = (ans.field, orjson.dumps({"fp": ans.fingerprint, "view": ans.view, "version": new_version}))
        # an app's lifecycle deliveries are noted before the commit, as the turn's due entry is
        deliveries = self.lifecycle.prepare(change.doc, new_version, change.state, change.events, events, batch, apps)
        if change.state.finished:
            ttl = 0  # an ended game's keys stay, without expiry, until the archive holds it
        else:
            ttl = self._live_ttl(change.doc) if change.ttl is None else change.ttl
        commit = Commit(game_id, version, new_version, change.doc, events, ttl, idem, notice(plan), change.rounds)
        return _Prepared(change, plan, deliveries, commit)

    def _landed(self, prepared: _Prepared, result: CommitResult) -> Committed | None:
        """After the commit: None when another landed first (GameNotFound when the game has gone), else what
        follows a commit (the process keeps the record, the turn starts, the app's deliveries go)."""
        commit, change = prepared.commit, prepared.change
        game_id, new_version = commit.game_id, commit.version
        if not result.ok:
            if result.current_version is None and commit.expected_version is not None:
                raise gone(game_id)
            return None
        self.games.keep(game_id, new_version, change.doc, change.state)
        self.turns.start(game_id, new_version, prepared.plan, change.doc, change.state, list(commit.events))
        self.lifecycle.emit(prepared.deliveries)
        if change.state.finished:
            self._release_ended(game_id, change.doc)
        return Committed(change, new_version, prepared.plan)

    def _live_ttl(self, doc: GameRecord) -> int:
        """A live game's keys outlive its deadline, or the moment the sweep ends it if left idle, by the margin."""
        s = self.settings
        until = doc.get("deadline") or time.time() + s.game_ttl
        return math.ceil(until - time.time() + s.expiry_margin)

    def _release_ended(self, game_id: str, doc: GameRecord) -> None:
        """An ended game no longer counts against its creator's (or app's) cap of live games, nor its bots', and
        counts against its cap of finished games until the archive takes it; nor is it looked at when idle. One
        round trip (these were three through redis-py); if Redis is gone now, the slots lapse and the sweep
        drops the idle entry."""
        store = self.store
        released = [(store.app_games, doc["app"])] if "app" in doc else []
        if not released and "creator" in doc:
            released.append((store.client_games, doc["creator"]))
        # nor against its registered bots' max_games (api/service/bot_limits.py)
        released += [(store.bot_games, seat["bot"]) for seat in doc["seats"] if seat["kind"] == REGISTERED]
        held_by = owner(doc)
        held = None if held_by is None else (store.client_finished, held_by)
        try:
            store.game_ended(game_id, released, held, self.settings.finished_ttl * 1000)
        except StoreUnavailable:
            log.warning("could not release the slots of game %s nor clear its idle entry", game_id, exc_info=True)

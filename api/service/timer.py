"""Due work that must happen on time: turn deadlines (the server moves for a seat whose time ran out) and apps'
turn reminders, taken as they come due rather than once per sweep interval.

:meth:`Timed.drain` takes the entries due by now by batches of ``DOMINO_TIMER_BATCH``: one script leases a batch
(each entry re-marked ``DOMINO_BOT_DUE_DELAY`` later, so several sweeps, on one machine or many, never take the
same entry twice, and a batch whose sweep died comes due again), the batch's games are read in one pipeline,
and one job moves for the batch's seats (``workers.jobs.timeout_turns``: ``Moves.play_for_seats`` commits the
batch's moves together, each on the version it was late at); a batch's reminders are sent together
(:meth:`api.service.app_events.Lifecycle.remind_many`: their deliveries kept and handed to the apps' outbox in
one transaction, for one drain job). While that job waits in the queue, the deadlines due since wait for it to start
(:meth:`Timed._held_back`), so that a busy worker gets one job for many seats. An entry stays leased until the
move's commit marks the next deadline, so a lost job is enqueued again (each time after a lease twice as long).
A reminder is sent, then its entry cleared; a sweep that dies in between sends it again as the same delivery
(one ``webhook-id``). :meth:`Timed.wait` sleeps until the soonest entry is due, blocked on the
due sets' wake-up list (:class:`api.store.DueTimer`), which a commit marking a sooner entry pushes, and at most
``DOMINO_TIMER_MAX_WAIT``.
"""

from __future__ import annotations

import dataclasses
import threading
import time

from api.config import Settings
from api.queues import TIMEOUT_TURNS, Queues
from api.service.app_events import Lifecycle
from api.service.bot_games import held
from api.service.games import Game, Games
from api.service.records import BOT, REGISTERED, retired_seat
from api.store import Store

Job = tuple[str, int, int]  # (game id, version, attempt)
LEASE_CAP = 30.0  # seconds: the longest a late game waits for its timeout job before another is enqueued
HOLD_POLL = 0.05  # seconds: how often a timer holding its deadlines back looks whether its job has started


@dataclasses.dataclass(frozen=True)
class _Pending:
    """The last timeout job a timer enqueued: its id, when, and its games by the time their lease ends."""

    job_id: str
    since: float
    leases: dict[float, list[str]]


class Timed:
    def __init__(self, store: Store, settings: Settings, games: Games, queues: Queues, lifecycle: Lifecycle) -> None:
        self.store = store
        self.settings = settings
        self.games = games
        self.queues = queues
        self.lifecycle = lifecycle
        self._pending: _Pending | None = None
        self._taking = threading.Lock()  # the timer's thread and the sweep's

    def drain(self, now: float | None = None) -> tuple[list[Job], list[Job]]:
        """Every deadline and reminder due by ``now`` (default: now): (timeout jobs enqueued, reminders sent)."""
        now = time.time() if now is None else now
        timeouts: list[Job] = []
        reminders: list[Job] = []
        while True:
            late, more = self._deadlines(now)
            sent, more_reminders = self._reminders(now)
            timeouts += late
            reminders += sent
            if not (more or more_reminders):
                return timeouts, reminders

    def wait(self) -> None:
        """Until the soonest deadline or reminder is due, a sooner one is marked, or ``timer_max_wait``."""
        due = [t for t in (self.store.turns_due.soonest(), self.store.reminders_due.soonest()) if t is not None]
        seconds = min([self.settings.timer_max_wait, *(t - time.time() for t in due)])
        if self._pending is not None:  # the deadlines due are held back until its job starts
            seconds = max(seconds, HOLD_POLL)
        if seconds > 0:
            self.store.due_timer.wait(seconds)

    def _deadlines(self, now: float) -> tuple[list[Job], bool]:
        """One batch of turn deadlines: the timeouts enqueued, and whether the batch was full."""
        with self._taking:
            if self._held_back(now):
                return [], False
            return self._take_deadlines(now)

    def _held_back(self, now: float) -> bool:
        """Whether the deadlines due wait for this timer's last timeout job to start (for at most
        ``LEASE_CAP``): they would wait behind it in the queue anyway, and then go in one batch, however far
        behind the workers are, rather than in a job each (whose RQ work costs more than its moves), and the
        job's own leases running out meanwhile copy nothing into the queue. Once it has started, its games are
        leased afresh from now (it commits them); a lost or failed one is replaced when its lease runs out."""
        pending = self._pending
        if pending is None:
            return False
        status = self.queues.status(pending.job_id)
        if status == "queued" and now - pending.since < LEASE_CAP:
            return True
        self._pending = None
        if status == "started":  # it commits its games now: not due again before a lease from now
            for until, games in pending.leases.items():
                self.store.turns_due.extend_if(games, until, max(until, now + self.settings.bot_due_delay))
        return False

    def _take_deadlines(self, now: float) -> tuple[list[Job], bool]:
        s = self.settings
        due = self.store.turns_due
        taken = due.lease(s.timer_batch, s.bot_due_delay, now)
        if not taken:
            return [], False
        leased_until = now + s.bot_due_delay
        found = self.games.find_live(taken)
        late, kept = [], []
        for game_id in taken:
            game = found.get(game_id)
            deadline = None if game is None else game.doc.get("deadline")
            if game is None or deadline is None:
                due.clear_if(game_id, leased_until)  # over, or gone
                continue
            if deadline > now and not self._retired(game):  # a later turn's deadline: wait for it
                due.mark(game_id, deadline)
                continue
            kept.append(game_id)  # while its move is late (or held), the game stays
            if self._held(game):
                # Nothing is due until a seat moves itself; idle for game_ttl meanwhile, the game is ended by the
                # sweep, so its keys must outlive that.
                due.clear_if(game_id, leased_until)
                continue
            late.append((game_id, game.version))
        self.store.expiry.keep_many(kept, s.expiry_margin)
        attempts = due.next_attempts(late, first=0)
        jobs = [(game_id, version, attempt) for (game_id, version), attempt in zip(late, attempts)]
        if jobs:
            job_id = self.queues.enqueue_batch(TIMEOUT_TURNS, late, attempts[0])  # one job, its moves together
            self._pending = _Pending(job_id, now, self._back_off(jobs, leased_until, now))
        return jobs, len(taken) == s.timer_batch

    def _back_off(self, jobs: list[Job], leased_until: float, now: float) -> dict[float, list[str]]:
        """A game enqueued again (its earlier job has not moved for it within the lease: lost, or still waiting
        in a busy queue) stays leased twice as long each time, up to ``LEASE_CAP``: a backlog is not
        multiplied by a copy of its jobs every lease, and a lost job is still replaced. The jobs' games by the
        end of their lease."""
        by_attempt: dict[int, list[str]] = {}
        for game_id, _version, attempt in jobs:
            by_attempt.setdefault(attempt, []).append(game_id)
        leases = {leased_until: by_attempt.pop(0, [])}
        for attempt, games in by_attempt.items():
            lease = min(self.settings.bot_due_delay * 2**attempt, LEASE_CAP)
            self.store.turns_due.extend_if(games, leased_until, now + lease)
            leases.setdefault(now + lease, []).extend(games)
        return leases

    def _held(self, game: Game) -> bool:
        """Whether the server must not move for the late seat (:func:`api.service.bot_games.held`). Only a game
        with computer players can be held: the state of any other is not decoded here (its job decodes it)."""
        if not any(seat["kind"] == BOT for seat in game.doc["seats"]):
            return False
        seat = game.state.to_move
        return seat is not None and held(self.settings, game.doc, game.state.rules, seat)

    def _retired(self, game: Game) -> bool:
        """Whether the seat to move is a registered bot's that retired after its turn began: due at once. Only a
        game with a registered bot is decoded."""
        if not any(seat["kind"] == REGISTERED for seat in game.doc["seats"]):
            return False
        return retired_seat(game.doc, game.state.to_move, self.store.bots.gone)

    def _reminders(self, now: float) -> tuple[list[Job], bool]:
        """One batch of apps' turn reminders: those sent (the game still at the turn), and whether it was full."""
        s = self.settings
        due = self.store.reminders_due
        taken = due.lease(s.timer_batch, s.bot_due_delay, now)
        if not taken:
            return [], False
        turns = [(member, *member.rpartition(":")[::2]) for member in taken]  # member, game id, version
        found = self.games.find_live([game_id for _, game_id, _ in turns])
        at_turn = [g for _, i, version in turns if (g := found.get(i)) is not None and g.version == int(version)]
        reminded = {game.id for game, done in zip(at_turn, self.lifecycle.remind_many(at_turn)) if done}
        due.clear_many_if(taken, now + s.bot_due_delay)  # a crash before this line: sent again, as the same deliveries
        sent = [(game_id, int(version), 0) for _, game_id, version in turns if game_id in reminded]
        return sent, len(taken) == s.timer_batch

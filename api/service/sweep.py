"""The sweep: one pass over the due sets, the simulation chunks of dead workers, and the running arenas.

Turn deadlines and apps' turn reminders are taken by :class:`api.service.timer.Timed` (which a timer also runs
between passes, as they come due). Each other due set (bot turns, idle games, webhook deliveries, rated games
to count) is swept the same way: for every entry due by now, a judge looks at the game and says drop the entry (nobody waits
any more), wait (re-mark it later), or enqueue the job again and re-mark the entry, so that a job lost again is
enqueued again. Apps' deliveries due are judged so too, but together, and handed to their outbox
(:mod:`api.service.outbox`) rather than a job each. Several sweeps may run at once: a duplicate job is a harmless no-op. A game idle for
``game_ttl`` with no deadline is ended here (:meth:`api.service.endings.Endings.expire`, a compare-and-set on
the version looked at: a move that comes first wins, and the game lives on). Each running arena is
moved on (:meth:`api.service.arenas.runner.Arenas.advance_running`), so a game lost between steps is started.
Finished games due for the archive are not judged one by one: jobs on the archive queue lease them by batches,
and the sweep keeps enough of those jobs queued (:meth:`api.service.archiving.Archiving.jobs_wanted`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from api.config import Settings
from api.queues import BOT_GAME_TURN, BOT_TURN, RATING, WEBHOOK, Queues
from api.service.app_events import Lifecycle, commit_digest, delivery_game
from api.service.archiving import Archiving
from api.service.arenas.runner import Arenas
from api.service.bot_games import attended
from api.service.computer import bot_to_move
from api.service.endings import Endings
from api.service.games import Games
from api.service.idle import IdleChecks, idle_at
from api.service.outbox import hand_over, rearm
from api.service.timer import Timed
from api.store import DueSet, Store

Job = tuple[str, int, int]  # (game id, or an app event's delivery id; version; attempt) of a job enqueued again


@dataclasses.dataclass(frozen=True)
class Verdict:
    """What to do with a due entry; dropped when the judge returns None."""

    due_at: float | None = None  # re-mark the entry at this time
    begun: int | None = None  # with the mark: deliveries begun (webhooks)
    job: Job | None = None  # enqueue this job again (with ``enqueue``)
    enqueue: Callable[[], object] | None = None


Judge = Callable[[str, float, float], "Verdict | None"]  # (member, due at, now)


@dataclasses.dataclass(frozen=True)
class SweepReport:
    bots: list[Job]
    timeouts: list[Job]
    hooks: list[Job]
    chunks: list[str]  # RQ job ids of simulation chunks handed back
    app_events: list[Job] = dataclasses.field(default_factory=list)
    ratings: list[Job] = dataclasses.field(default_factory=list)
    arenas: list[str] = dataclasses.field(default_factory=list)  # arenas that started games
    expired: list[Job] = dataclasses.field(default_factory=list)  # idle games ended
    reminders: list[Job] = dataclasses.field(default_factory=list)  # apps' turn reminders sent
    archive_jobs: int = 0  # archive jobs enqueued for the finished games due

    def __len__(self) -> int:
        parts = (
            self.bots, self.timeouts, self.hooks, self.chunks, self.app_events, self.ratings, self.arenas, self.expired,
            self.reminders,
        )  # fmt: skip
        return sum(len(p) for p in parts) + self.archive_jobs


class Sweep:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        games: Games,
        queues: Queues,
        arenas: Arenas,
        endings: Endings,
        lifecycle: Lifecycle,
        archiving: Archiving,
        timed: Timed,
        idle: IdleChecks,
    ) -> None:
        self.store = store
        self.settings = settings
        self.games = games
        self.queues = queues
        self.arenas = arenas
        self.endings = endings
        self.lifecycle = lifecycle
        self.archiving = archiving
        self.timed = timed
        self.idle = idle

    def run(self, now: float | None = None) -> SweepReport:
        """One sweep, as at ``now`` (a Unix time; default: now)."""
        now = time.time() if now is None else now
        timeouts, reminders = self.timed.drain(now)
        return SweepReport(
            bots=self._over(self.store.bots_due, self._bot_turn, now),
            timeouts=timeouts,
            hooks=self._over(self.store.hooks_due, self._webhook, now),
            chunks=self.queues.retry_abandoned_chunks(now),
            app_events=self._app_events(now),
            ratings=self._over(self.store.ratings_due, self._rating, now),
            arenas=self.arenas.advance_running(),
            expired=self._over(self.store.idle_due, self._idle, now),
            reminders=reminders,
            archive_jobs=self._archive(now),
        )

    def _archive(self, now: float) -> int:
        """Enough archive jobs queued for the finished games due (each job leases its own batch)."""
        wanted = self.archiving.jobs_wanted(now)
        for _ in range(wanted):
            self.archiving.enqueue()
        return wanted

    @staticmethod
    def _over(due: DueSet, judge: Judge, now: float) -> list[Job]:
        done = []
        for member, due_at in due.overdue(now):
            verdict = judge(member, due_at, now)
            if verdict is None:
                due.clear_if(member, due_at)  # unless re-marked since it was read
                continue
            if verdict.due_at is not None:
                due.mark(member, verdict.due_at, verdict.begun)
            if verdict.enqueue is not None and verdict.job is not None:
                verdict.enqueue()
                done.append(verdict.job)
                if verdict.due_at is None:  # done once enqueued (a crash before this line: done again, the same)
                    due.clear_if(member, due_at)
        return done

    def _bot_turn(self, game_id: str, due_at: float, now: float) -> Verdict | None:
        """A computer player's turn not played in time (a killed worker, a lost enqueue): enqueue it again."""
        found = self.games.find(game_id)
        if found is None or bot_to_move(found.doc, found.state) is None:
            return None
        version = found.version
        attempt = self.store.bots_due.next_attempt(game_id, version, first=1)  # the API's own enqueue is 0
        alone = not attended(self.settings, found.doc.get("away") or {})
        return Verdict(
            due_at=now + self.settings.bot_due_delay,
            job=(game_id, version, attempt),
            enqueue=lambda: self.queues.enqueue(BOT_GAME_TURN if alone else BOT_TURN, game_id, version, attempt=attempt),
        )

    def _rating(self, game_id: str, due_at: float, now: float) -> Verdict | None:
        """A rated game that ended and is not counted yet (a killed worker, a lost enqueue): enqueue it again.
        The job clears the entry once the game is counted."""
        found = self.games.find(game_id)
        if found is None or not found.state.finished:
            return None  # gone, or marked by a commit that lost its race
        attempt = self.store.ratings_due.next_attempt(game_id, found.version, first=1)  # the commit's own is 0
        return Verdict(
            due_at=now + self.settings.bot_due_delay,
            job=(game_id, found.version, attempt),
            enqueue=lambda: self.queues.enqueue(RATING, game_id, attempt=attempt),
        )

    def _idle(self, game_id: str, due_at: float, now: float) -> Verdict | None:
        """A live game with no deadline that nobody touched for ``game_ttl``: end it (``expired``, ``aborted``
        if it never started). Touched since, or with a deadline (which moves it on): look again later."""
        found = self.games.find(game_id)
        if found is None or found.state.finished:
            return None
        idle = idle_at(found.doc, self.settings.game_ttl)
        if idle > now:
            self.idle.hold_until(found.doc, idle)  # the game lives on: so does its slot of its creator's cap
            return Verdict(due_at=idle)
        return Verdict(
            due_at=now + self.settings.sweep_interval,  # the next sweep drops it, or sees the move that came first
            job=(game_id, found.version, 0),
            enqueue=lambda: self.endings.expire(found),
        )

    def _webhook(self, member: str, due_at: float, now: float) -> Verdict | None:
        """A webhook delivery due again after its back-off; given up after the last step (the turn's timeout
        rules then)."""
        game_id, _, raw_version = member.rpartition(":")
        version = int(raw_version)
        begun = self.store.hooks_due.attempt(member) or 0
        delays = self.settings.webhook_delays
        if self.store.games.version(game_id) != version or begun > len(delays):
            return None  # moved on, gone, or out of tries
        return Verdict(
            due_at=now + self.settings.webhook_timeout + self._step(begun),
            begun=begun + 1,
            job=(game_id, version, begun),
            enqueue=lambda: self.queues.enqueue(WEBHOOK, game_id, version, attempt=begun),
        )

    def _app_events(self, now: float) -> list[Job]:
        """Apps' deliveries due, judged together (a few round trips for them all): a pending one (noted before
        its commit and never handed over: the process died, or Redis failed it, after the commit) is handed
        over once its commit is known to have landed, another after its back-off, in one transaction with the
        marks; given up after the last step. One whose last try still waits in the outbox is looked at again
        after its back-off: not lost, and not a try (another copy would only lengthen the outbox, and spend the
        tries before any was made). A drain job is rearmed for what waits in the outbox."""
        due, delays = self.store.app_hooks_due, self.settings.webhook_delays
        overdue = due.overdue(now)
        members = [delivery_id for delivery_id, _ in overdue]
        begun_all = due.attempts(members)
        records = self.store.app_deliveries.get_many(members) if members else []
        waiting = self.store.app_outbox.waiting() if members else set()
        dropped, marks, tries = [], self.store.batch(), []
        for (delivery_id, due_at), begun, record in zip(overdue, begun_all, records):
            begun = begun or 0
            game_id, version = delivery_game(delivery_id)
            if begun == 0 and self._landed(delivery_id, game_id, version):
                record = self.store.app_deliveries.get(delivery_id)  # recorded as landed just now
            if begun > len(delays) or record is None:
                dropped.append((delivery_id, due_at))  # out of tries; no such event; or delivered meanwhile
            elif begun > 0 and delivery_id in waiting:
                due.mark(delivery_id, now + self.settings.webhook_timeout + self._step(begun - 1), batch=marks)
            else:
                due.mark(delivery_id, now + self.settings.webhook_timeout + self._step(begun), begun + 1, batch=marks)
                tries.append((delivery_id, begun))
        hand_over(self.store, self.queues, tries, marks)
        due.clear_each_if(dropped)  # unless re-marked since they were read
        if not tries:
            rearm(self.store, self.queues)
        return [(delivery_id, delivery_game(delivery_id)[1], begun) for delivery_id, begun in tries]

    def _landed(self, delivery_id: str, game_id: str, version: int) -> bool:
        """Whether one of the commits that noted the delivery made ``version`` of the game (its events have the
        digest its record is kept under); if so, it is recorded as the one. A commit still under way counts as
        failed: if it lands, it records itself."""
        current = self.store.games.version(game_id)
        if current is None or current < version:
            return False
        landed = commit_digest(self.store.games.events_at(game_id, version))
        return self.store.app_deliveries.confirm(delivery_id, landed)

    def _step(self, begun: int) -> float:
        """The back-off after ``begun`` tries (the last step repeats)."""
        delays = self.settings.webhook_delays
        return delays[begun] if begun < len(delays) else delays[-1] if delays else 0.0

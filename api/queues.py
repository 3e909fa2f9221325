"""The producer side of RQ: queues by purpose, job ids, enqueueing, simulation windows, worker counts.

Jobs are named by the dotted path of their function in ``workers.jobs`` (a string: RQ imports it in the
worker), so nothing in ``api`` imports ``workers``. Payloads are JSON, never pickles.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from rq import Callback, Queue, Retry, Worker
from rq.job import Job
from rq.registry import StartedJobRegistry
from rq.timeouts import TimerDeathPenalty

from api.store import Store, translated

BOTS = "bots"  # latency: computer players' turns in live games, and turn timeouts (Settings.bots_queue)
BOT_GAMES = "bot-games"  # turns of games of computer players only (Settings.bot_games_queue; api.service.bot_games)
SIMULATIONS = "simulations"  # throughput
WEBHOOKS = "webhooks"  # hosted bots' turns and apps' lifecycle events (the name is Settings.webhooks_queue)
ARCHIVE = "archive"  # batches of finished games to the archive (Settings.archive_queue; api.service.archiving)

SERIALIZER = "json"  # RQ payloads are JSON, never pickles
FAILURE_TTL = 24 * 3600


def bot_job_id(game_id: str, version: int, attempt: int) -> str:
    return f"bot-{game_id}-{version}-{attempt}"


def timeout_job_id(game_id: str, version: int, attempt: int) -> str:
    return f"timeout-{game_id}-{version}-{attempt}"


def webhook_job_id(game_id: str, version: int, attempt: int) -> str:
    return f"hook-{game_id}-{version}-{attempt}"


def rating_job_id(game_id: str, attempt: int) -> str:
    return f"rate-{game_id}-{attempt}"


def app_event_job_id(delivery_id: str, attempt: int) -> str:
    return f"apphook-{delivery_id}-{attempt}"


def chunk_job_id(sim_id: str, chunk: int) -> str:
    return f"sim-{sim_id}-{chunk}"


class Queues:
    """The RQ queues of one deployment, on the store's queue connection."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.settings = store.settings
        conn = store.rq_connection()
        s = self.settings
        self.bots = Queue(s.bots_queue, connection=conn, serializer=SERIALIZER)
        self.bot_games = Queue(s.bot_games_queue, connection=conn, serializer=SERIALIZER)
        self.simulations = Queue(s.simulations_queue, connection=conn, serializer=SERIALIZER)
        self.webhooks = Queue(s.webhooks_queue, connection=conn, serializer=SERIALIZER)
        self.archive = Queue(s.archive_queue, connection=conn, serializer=SERIALIZER)

    def by_purpose(self) -> dict[str, Queue]:
        return {
            BOTS: self.bots, BOT_GAMES: self.bot_games, SIMULATIONS: self.simulations, WEBHOOKS: self.webhooks,
            ARCHIVE: self.archive,
        }  # fmt: skip

    # -- turns --------------------------------------------------------------------------------------------

    def enqueue_bot_turn(self, game_id: str, version: int, attempt: int = 0, bot_only: bool = False) -> Job:
        """``workers.jobs.bot_turn(game_id, version)``: on the bot-games queue for a game of computer players
        only, so that live games never wait behind one. No ``unique=True``: RQ 3 would refuse a re-enqueue
        while an old job hash lives; distinct attempts get distinct ids, and the job itself is idempotent."""
        queue = self.bot_games if bot_only else self.bots
        return self._enqueue_turn(queue, "workers.jobs.bot_turn", bot_job_id(game_id, version, attempt), game_id, version)

    def enqueue_timeout_turn(self, game_id: str, version: int, attempt: int = 0) -> Job:
        """``workers.jobs.timeout_turn(game_id, version)``: the seat to move is past its deadline."""
        job_id = timeout_job_id(game_id, version, attempt)
        return self._enqueue_turn(self.bots, "workers.jobs.timeout_turn", job_id, game_id, version)

    def _enqueue_turn(self, queue: Queue, func: str, job_id: str, game_id: str, version: int) -> Job:
        """A turn job (latency, non-forking); it does nothing once the game has moved on."""
        s = self.settings
        return queue.enqueue(
            func,
            game_id,
            version,
            job_id=job_id,
            job_timeout=s.bot_job_timeout,
            result_ttl=s.bot_result_ttl,
            failure_ttl=FAILURE_TTL,
            description=f"{func.rsplit('.', 1)[-1]} {game_id}@{version} ({job_id})",
        )

    def enqueue_webhook(self, game_id: str, version: int, attempt: int = 0) -> Job:
        """``workers.jobs.deliver_webhook(game_id, version, attempt)``; retries are enqueued by the sweep
        after the back-off (``Settings.webhook_backoff``), each with its own id."""
        s = self.settings
        return self.webhooks.enqueue(
            "workers.jobs.deliver_webhook",
            game_id,
            version,
            attempt,
            job_id=webhook_job_id(game_id, version, attempt),
            job_timeout=s.webhook_job_timeout,
            result_ttl=s.bot_result_ttl,
            failure_ttl=FAILURE_TTL,
            description=f"webhook {game_id}@{version}#{attempt}",
        )

    def enqueue_rating(self, game_id: str, attempt: int = 0) -> Job:
        """``workers.jobs.rate_game(game_id)``: a rated game has ended. On the bots queue: a few milliseconds
        of work, and idempotent (the ratings count a game once however often its job runs)."""
        s = self.settings
        return self.bots.enqueue(
            "workers.jobs.rate_game",
            game_id,
            job_id=rating_job_id(game_id, attempt),
            job_timeout=s.bot_job_timeout,
            result_ttl=s.bot_result_ttl,
            failure_ttl=FAILURE_TTL,
            description=f"rate {game_id}#{attempt}",
        )

    def enqueue_app_event(self, delivery_id: str, attempt: int = 0) -> Job:
        """``workers.jobs.deliver_app_event(delivery_id, attempt)``: an app's lifecycle delivery, on the webhooks
        queue; retries are enqueued by the sweep after the back-off, each with its own id."""
        s = self.settings
        return self.webhooks.enqueue(
            "workers.jobs.deliver_app_event",
            delivery_id,
            attempt,
            job_id=app_event_job_id(delivery_id, attempt),
            job_timeout=s.webhook_job_timeout,
            result_ttl=s.bot_result_ttl,
            failure_ttl=FAILURE_TTL,
            description=f"app event {delivery_id}#{attempt}",
        )

    # -- the archive --------------------------------------------------------------------------------------------

    def enqueue_archive(self) -> Job:
        """``workers.jobs.archive_games()``: archive one batch of the finished games due. Any number may run at
        once: each leases its own batch (a job with nothing due does nothing)."""
        s = self.settings
        return self.archive.enqueue(
            "workers.jobs.archive_games",
            job_id=f"archive-{secrets.token_hex(6)}",
            job_timeout=s.archive_job_timeout,
            result_ttl=s.bot_result_ttl,
            failure_ttl=FAILURE_TTL,
            description="archive a batch of finished games",
        )

    def archive_queued(self) -> int:
        with translated():
            return int(self.archive.count)

    # -- simulations ----------------------------------------------------------------------------------------

    def simulation_window(self) -> int:
        """How many chunks of one simulation wait in the queue at once: the configured window, or twice the
        simulation workers listening now when that is more, so that one simulation alone keeps them busy."""
        workers = Worker.count(connection=self.store.rq_connection(), queue=self.simulations)
        return max(1, self.settings.simulation_window, 2 * workers)

    def enqueue_chunks(self, sim_id: str, chunks: Iterable[int]) -> None:
        """``workers.jobs.run_chunk(sim_id, c)`` for these chunks, in one pipeline. A failed chunk is retried
        twice (also when its worker died: RQ's cleanup retries abandoned jobs); the job counts once per chunk
        index, so a retry never counts twice. ``chunk_failed`` fails the simulation after the last try."""
        datas = [
            Queue.prepare_data(
                "workers.jobs.run_chunk",
                args=(sim_id, c),
                job_id=chunk_job_id(sim_id, c),
                timeout=self.settings.simulation_job_timeout,
                result_ttl=600,
                failure_ttl=FAILURE_TTL,
                description=f"simulation {sim_id} chunk {c}",
                retry=Retry(max=2),
                on_failure=Callback("workers.jobs.chunk_failed"),
            )
            for c in chunks
        ]
        self.simulations.enqueue_many(datas)  # one pipeline

    def enqueue_later_chunk(self, sim_id: str, chunk: int) -> None:
        """Enqueue ``chunk`` at the back of the queue, behind the chunks of every other simulation, unless its
        job exists: an earlier run of the chunk that queues it (one that died, or ran twice) did so already."""
        if not Job.exists(chunk_job_id(sim_id, chunk), connection=self.store.rq_connection()):
            self.enqueue_chunks(sim_id, [chunk])

    def retry_abandoned_chunks(self, now: float | None = None) -> list[str]:
        """Hand back to RQ the simulation chunks whose worker died with its work horse: once the execution's
        heartbeat has lapsed (about a minute), RQ retries such a job (or fails it after its last try), but a
        live worker looks only every 10 minutes; the sweep looks every interval. Returns the job ids found."""
        # The failure callback (chunk_failed, which fails the simulation after the last try) runs here, in the
        # sweep's thread: its timeout must be a timer, not SIGALRM (main thread only).
        registry = StartedJobRegistry(queue=self.simulations, death_penalty_class=TimerDeathPenalty)
        abandoned = [str(job_id) for job_id in registry.get_expired_job_ids(now)]
        if abandoned:
            registry.cleanup(now)
        return abandoned

    def drop_chunks(self, sim_id: str, chunks: int) -> int:
        """Take a cancelled simulation's chunks that no worker has taken out of the queue (and delete their job
        hashes), so that workers do not fork for no-op jobs. A chunk already taken stops at its next check.
        Returns how many were dropped."""
        ids = [chunk_job_id(sim_id, c) for c in range(chunks)]
        conn = self.store.rq_connection()
        with conn.pipeline(transaction=False) as pipe:
            for job_id in ids:
                self.simulations.remove(job_id, pipeline=pipe)
            removed = pipe.execute()
        dropped = [job_id for job_id, n in zip(ids, removed) if n]
        if dropped:  # out of the queue: no worker can take them any more
            conn.delete(*(Job.key_for(job_id) for job_id in dropped))
        return len(dropped)

    # -- observing --------------------------------------------------------------------------------------------

    def worker_counts(self) -> dict[str, int]:
        """Workers listening per purpose (``bots``, ``bot-games``, ``simulations``, ``webhooks``, ``archive``);
        StoreUnavailable when the queue Redis does not answer."""
        conn = self.store.rq_connection()
        with translated():
            return {purpose: Worker.count(connection=conn, queue=q) for purpose, q in self.by_purpose().items()}

    def depths(self) -> dict[str, int]:
        """Jobs waiting per queue (by its configured name), and the entries of the due sets."""
        with translated():
            out = {q.name: q.count for q in self.by_purpose().values()}
        out.update(self.store.due_counts())
        return out

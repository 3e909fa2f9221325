"""The producer side of RQ: queues by purpose, the job kinds, enqueueing, simulation windows, worker counts.

Jobs are named by the dotted path of their function in ``workers.jobs`` (a string: RQ imports it in the
worker), so nothing in ``api`` imports ``workers``. Those paths are written here only, in :data:`JOB_KINDS`: the
one kind of string import the import rules allow (tests/test_import_rules.py). Payloads are JSON, never pickles.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

from rq import Callback, Queue, Retry, Worker
from rq.job import Job
from rq.registry import StartedJobRegistry
from rq.timeouts import TimerDeathPenalty

from api.config import Settings
from api.store import Store, translated

BOTS = "bots"  # latency: computer players' turns in live games, and turn timeouts (Settings.bots_queue)
BOT_GAMES = "bot-games"  # turns of games of computer players only (Settings.bot_games_queue; api.service.bot_games)
SIMULATIONS = "simulations"  # throughput
WEBHOOKS = "webhooks"  # hosted bots' turns and apps' lifecycle events (the name is Settings.webhooks_queue)
ARCHIVE = "archive"  # batches of finished games to the archive (Settings.archive_queue; api.service.archiving)
ANALYSIS = "analysis"  # analyses of finished games (Settings.analysis_queue; api.service.analyses)
HINTS = "hints"  # a seat's hint: its legal moves valued (Settings.hints_queue; api.service.hints), answered while the API waits

SERIALIZER = "json"  # RQ payloads are JSON, never pickles
FAILURE_TTL = 24 * 3600
CHUNK_RESULT_TTL = 600


@dataclasses.dataclass(frozen=True)
class JobKind:
    """One kind of job: the dotted path of its function (RQ imports it in the worker), the queue it goes on (by
    purpose), the prefix of its job ids, its time limit, and whether the function takes the attempt too (a
    delivery counts its tries; a turn or a rating is idempotent and does not). Each attempt has its own job id:
    RQ 3 refuses to enqueue a job id whose hash still lives, so ``unique=True`` would lose a retry."""

    path: str
    purpose: str
    prefix: str
    timeout: Callable[[Settings], int]
    takes_attempt: bool = False
    on_failure: str | None = None  # the dotted path of an RQ failure callback

    @property
    def name(self) -> str:
        return self.path.rsplit(".", 1)[-1]

    def job_id(self, *args: str | int, attempt: int | None = None) -> str:
        """``<prefix>-<args>[-<attempt>]``: ``bot-<game>-<version>-<attempt>``, ``sim-<simulation>-<chunk>``."""
        return "-".join(str(part) for part in (self.prefix, *args, *(() if attempt is None else (attempt,))))


def _turn_timeout(s: Settings) -> int:
    return s.bot_job_timeout


def _webhook_timeout(s: Settings) -> int:
    return s.webhook_job_timeout


def _chunk_timeout(s: Settings) -> int:
    return s.simulation_job_timeout


def _archive_timeout(s: Settings) -> int:
    return s.archive_job_timeout


def _analysis_timeout(s: Settings) -> int:
    return s.analysis_job_timeout


def _hint_timeout(s: Settings) -> int:
    return max(1, int(s.hint_wait) + 1)  # nobody waits for it longer


# ``bot_turn(game_id, version)``: on the bot-games queue for a game nobody attends (api/service/bot_games.py), so
# that live games never wait behind one. ``timeout_turns([[game_id, version], ...])``: the seats past their
# deadlines in one batch the timer took (a job each would cost RQ's own dozen round trips and more CPU than the
# move: 10,000 deadlines in a minute would outrun a worker). Both do nothing for a game that has moved on.
BOT_TURN = JobKind("workers.jobs.bot_turn", BOTS, "bot", _turn_timeout)
BOT_GAME_TURN = JobKind("workers.jobs.bot_turn", BOT_GAMES, "bot", _turn_timeout)
TIMEOUT_TURNS = JobKind("workers.jobs.timeout_turns", BOTS, "timeouts", _turn_timeout)
# ``rate_game(game_id)``: a rated game has ended. A few milliseconds of work, and idempotent (the ratings count
# a game once however often its job runs).
RATING = JobKind("workers.jobs.rate_game", BOTS, "rate", _turn_timeout)
# ``deliver_webhook(game_id, version, attempt)``: retries are enqueued by the sweep after the back-off
# (``Settings.webhook_backoff``). ``deliver_app_events()``: a batch of apps' deliveries out of their outbox
# (api/service/outbox.py); each enqueued is its own attempt (the enqueue time in ns), and its tries are in Redis.
WEBHOOK = JobKind("workers.jobs.deliver_webhook", WEBHOOKS, "hook", _webhook_timeout, takes_attempt=True)
APP_EVENTS = JobKind("workers.jobs.deliver_app_events", WEBHOOKS, "apphooks", _webhook_timeout)
# ``run_chunk(sim_id, chunk)``: retried by RQ under the same id; ``chunk_failed`` fails the simulation after
# the last try.
RUN_CHUNK = JobKind(
    "workers.jobs.run_chunk", SIMULATIONS, "sim", _chunk_timeout, on_failure="workers.jobs.chunk_failed"
)

# ``archive_games()``: archive one batch of the finished games due. Any number may run at once (each leases its
# own batch; one with nothing due does nothing), so each is enqueued as its own attempt: the enqueue time in ns.
ARCHIVE_BATCH = JobKind("workers.jobs.archive_games", ARCHIVE, "archive", _archive_timeout)

# ``match_pool(pool, ticket_id)``: a matchmaking ticket arrived; a pass over its pool for the table it may join
# (milliseconds: on the latency queue). Idempotent: a ticket is claimed once, whatever runs twice.
MATCH_POOL = JobKind("workers.jobs.match_pool", BOTS, "match", _turn_timeout)

# ``hint_moves(game_id, version, seat)``: the values of ``seat``'s legal moves at ``version`` (pure: nothing is
# written; the API commits the hint once it has the answer). Each request is its own attempt (the enqueue time
# in ns): two hints asked at one version are two jobs.
HINT = JobKind("workers.jobs.hint_moves", HINTS, "hint", _hint_timeout)

# ``run_analysis(game_id)``: analyse a finished game, resuming after the moves already analysed (a worker that
# stops puts the job back); retried by RQ, then ``analysis_failed`` fails the analysis. Each analysis started
# (again, after a failure) is its own job: the enqueue time in ns.
RUN_ANALYSIS = JobKind(
    "workers.jobs.run_analysis", ANALYSIS, "analysis", _analysis_timeout, on_failure="workers.jobs.analysis_failed"
)

# ``run_fairplay(screen_id)``: a fair-play screen (api/service/fairplay.py), as an analysis: resuming after the
# positions already read, retried by RQ, then ``fairplay_failed``; each screen started is its own job.
RUN_FAIRPLAY = JobKind(
    "workers.jobs.run_fairplay", ANALYSIS, "fairplay", _analysis_timeout, on_failure="workers.jobs.fairplay_failed"
)

JOB_KINDS: tuple[JobKind, ...] = (
    BOT_TURN, BOT_GAME_TURN, TIMEOUT_TURNS, RATING, WEBHOOK, APP_EVENTS, RUN_CHUNK, ARCHIVE_BATCH, MATCH_POOL,
    RUN_ANALYSIS, RUN_FAIRPLAY, HINT,
)  # fmt: skip


def job_paths() -> frozenset[str]:
    """Every dotted path RQ is given: the job functions and their callbacks."""
    return frozenset(p for kind in JOB_KINDS for p in (kind.path, kind.on_failure) if p is not None)


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
        self.analysis = Queue(s.analysis_queue, connection=conn, serializer=SERIALIZER)
        self.hints = Queue(s.hints_queue, connection=conn, serializer=SERIALIZER)
        self._by_purpose = {
            BOTS: self.bots,
            BOT_GAMES: self.bot_games,
            SIMULATIONS: self.simulations,
            WEBHOOKS: self.webhooks,
            ARCHIVE: self.archive,
            ANALYSIS: self.analysis,
            HINTS: self.hints,
        }

    def by_purpose(self) -> dict[str, Queue]:
        """The queues by purpose (a ``JobKind``'s ``purpose``)."""
        return dict(self._by_purpose)

    def enqueue(self, kind: JobKind, *args: str | int, attempt: int = 0) -> Job:
        """Enqueue ``kind``'s job for ``args`` (ids, never objects) as try ``attempt`` (the API's own enqueue is
        0; the sweep's are later ones), on its queue, under its own job id."""
        call, options = self._job(kind, args, attempt)
        queue = self._by_purpose[kind.purpose]
        return queue.enqueue(kind.path, *call, job_timeout=kind.timeout(self.settings), **options)

    def enqueue_many(self, kind: JobKind, jobs: Iterable[tuple[tuple[str | int, ...], int]]) -> None:
        """:meth:`enqueue` for each (ids, attempt) of ``jobs`` (distinct job ids), in one pipeline."""
        timeout = kind.timeout(self.settings)
        datas = []
        for args, attempt in jobs:
            call, options = self._job(kind, args, attempt)
            datas.append(Queue.prepare_data(kind.path, args=call, timeout=timeout, **options))
        if datas:
            with translated():
                self._by_purpose[kind.purpose].enqueue_many(datas)

    def enqueue_batch(self, kind: JobKind, items: Sequence[tuple[str | int, ...]], attempt: int) -> str:
        """One job of ``kind`` for several ``items`` (its one argument: their list), under the job id of its
        first item and ``attempt`` (a batch is distinct from any other by its first item's try): its id."""
        call, options = self._job(kind, tuple(items[0]), attempt)
        options["description"] = f"{kind.name} of {len(items)} from {' '.join(map(str, call))} ({options['job_id']})"
        with translated():
            self._by_purpose[kind.purpose].enqueue(
                kind.path, [list(item) for item in items], job_timeout=kind.timeout(self.settings), **options
            )
        return str(options["job_id"])

    def _job(self, kind: JobKind, args: tuple[str | int, ...], attempt: int) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """A job's arguments, and its id, lifetimes and description."""
        job_id = kind.job_id(*args, attempt=attempt)
        call = (*args, attempt) if kind.takes_attempt else args
        options = {
            "job_id": job_id,
            "result_ttl": self.settings.bot_result_ttl,
            "failure_ttl": FAILURE_TTL,
            "description": f"{kind.name} {' '.join(map(str, call))} ({job_id})",
        }
        return call, options

    def answer(self, job: Job, seconds: float) -> Any:
        """``job``'s return value once it has run, waiting up to ``seconds`` for it (a blocking read of its
        result, on the blocking connection: no short read timeout); None if it did not succeed in time."""
        waiting = Job(job.id, connection=self.store.connections.blocking_queue(), serializer=SERIALIZER)
        with translated():
            result = waiting.latest_result(timeout=max(1, math.ceil(seconds)))
        if result is None or result.type != result.Type.SUCCESSFUL:
            return None
        return result.return_value

    def waiting(self, kind: JobKind, *args: str | int, attempt: int = 0) -> bool:
        """Whether ``kind``'s job for ``args`` and ``attempt`` is still queued or running (not lost)."""
        return self.status(kind.job_id(*args, attempt=attempt)) in ("queued", "started")

    def status(self, job_id: str) -> str | None:
        """The RQ status of the job ``job_id`` (``queued``, ``started``, ``finished``, ``failed``...); None when
        it is gone."""
        with translated():
            raw = cast("bytes | None", self.store.rq_connection().hget(Job.key_for(job_id), "status"))
        return None if raw is None else raw.decode()

    def queued(self, purpose: str) -> int:
        """Jobs waiting on the queue of ``purpose``."""
        with translated():
            return int(self._by_purpose[purpose].count)

    # -- simulations ----------------------------------------------------------------------------------------

    def simulation_window(self) -> int:
        """How many chunks of one simulation wait in the queue at once: the configured window, or twice the
        simulation workers listening now when that is more, so that one simulation alone keeps them busy."""
        workers = Worker.count(connection=self.store.rq_connection(), queue=self.simulations)
        return max(1, self.settings.simulation_window, 2 * workers)

    def enqueue_chunks(self, sim_id: str, chunks: Iterable[int]) -> None:
        """``workers.jobs.run_chunk(sim_id, c)`` for these chunks, in one pipeline. A failed chunk is retried
        twice (also when its worker died: RQ's cleanup retries abandoned jobs); the job counts once per chunk
        index, so a retry never counts twice."""
        kind = RUN_CHUNK
        assert kind.on_failure is not None
        datas = [
            Queue.prepare_data(
                kind.path,
                args=(sim_id, c),
                job_id=kind.job_id(sim_id, c),
                timeout=kind.timeout(self.settings),
                result_ttl=CHUNK_RESULT_TTL,
                failure_ttl=FAILURE_TTL,
                description=f"simulation {sim_id} chunk {c}",
                retry=Retry(max=2),
                on_failure=Callback(kind.on_failure),
            )
            for c in chunks
        ]
        self.simulations.enqueue_many(datas)  # one pipeline

    def enqueue_later_chunk(self, sim_id: str, chunk: int) -> None:
        """Enqueue ``chunk`` at the back of the queue, behind the chunks of every other simulation, unless its
        job exists: an earlier run of the chunk that queues it (one that died, or ran twice) did so already."""
        if not Job.exists(RUN_CHUNK.job_id(sim_id, chunk), connection=self.store.rq_connection()):
            self.enqueue_chunks(sim_id, [chunk])

    def retry_abandoned_chunks(self, now: float | None = None) -> list[str]:
        """Hand back to RQ the simulation chunks and analyses whose worker died with its work horse: once the
        execution's heartbeat has lapsed (about a minute), RQ retries such a job (or fails it after its last try),
        but a live worker looks only every 10 minutes; the sweep looks every interval. Returns the job ids found."""
        # The failure callback (chunk_failed, which fails the simulation after the last try) runs here, in the
        # sweep's thread: its timeout must be a timer, not SIGALRM (main thread only).
        abandoned = []
        for queue in (self.simulations, self.analysis):  # the long jobs: analyses too
            registry = StartedJobRegistry(queue=queue, death_penalty_class=TimerDeathPenalty)
            found = [str(job_id) for job_id in registry.get_expired_job_ids(now)]
            if found:
                registry.cleanup(now)
            abandoned += found
        return abandoned

    def drop_chunks(self, sim_id: str, chunks: int) -> int:
        """Take a cancelled simulation's chunks that no worker has taken out of the queue (and delete their job
        hashes), so that workers do not fork for no-op jobs. A chunk already taken stops at its next check.
        Returns how many were dropped."""
        ids = [RUN_CHUNK.job_id(sim_id, c) for c in range(chunks)]
        conn = self.store.rq_connection()
        with conn.pipeline(transaction=False) as pipe:
            for job_id in ids:
                self.simulations.remove(job_id, pipeline=pipe)
            removed = pipe.execute()
        dropped = [job_id for job_id, n in zip(ids, removed) if n]
        if dropped:  # out of the queue: no worker can take them any more
            conn.delete(*(Job.key_for(job_id) for job_id in dropped))
        return len(dropped)

    # -- analyses ---------------------------------------------------------------------------------------------

    def enqueue_analysis(self, game_id: str, attempt: int) -> None:
        """``workers.jobs.run_analysis(game_id)`` as its own job (``attempt``: the analysis' own number), retried
        twice when it fails (also when its worker died); ``analysis_failed`` after the last try."""
        self._enqueue_long(RUN_ANALYSIS, game_id, attempt, f"analysis of {game_id}")

    def enqueue_fairplay(self, screen_id: str, attempt: int) -> None:
        """``workers.jobs.run_fairplay(screen_id)``, as :meth:`enqueue_analysis`."""
        self._enqueue_long(RUN_FAIRPLAY, screen_id, attempt, f"fair-play screen {screen_id}")

    def _enqueue_long(self, kind: JobKind, job_of: str, attempt: int, description: str) -> None:
        assert kind.on_failure is not None
        self.analysis.enqueue(
            kind.path, job_of, job_id=kind.job_id(job_of, attempt=attempt), job_timeout=kind.timeout(self.settings),
            result_ttl=CHUNK_RESULT_TTL, failure_ttl=FAILURE_TTL, description=description,
            retry=Retry(max=2), on_failure=Callback(kind.on_failure),
        )  # fmt: skip

    # -- observing --------------------------------------------------------------------------------------------

    def worker_counts(self) -> dict[str, int]:
        """Workers listening per purpose (``bots``, ``bot-games``, ``simulations``, ``webhooks``, ``archive``,
        ``analysis``, ``hints``);
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

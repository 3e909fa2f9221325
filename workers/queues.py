"""Queues by purpose, and the helpers that build job ids (bot turns, simulation chunks)."""

from __future__ import annotations

from collections.abc import Iterable

from rq import Callback, Queue, Retry, Worker
from rq.job import Job
from rq.registry import StartedJobRegistry
from rq.timeouts import TimerDeathPenalty

from api.store import Store

BOTS = "bots"  # latency: computer players' turns in live games (the name is Settings.bots_queue)
BOT_GAMES = "bot-games"  # turns of games of computer players only (Settings.bot_games_queue; api.bot_games)
SIMULATIONS = "simulations"  # throughput
WEBHOOKS = "webhooks"  # hosted bots' turns (the name is Settings.webhooks_queue)

SERIALIZER = "json"  # RQ payloads are JSON, never pickles


def bots_queue(store: Store) -> Queue:
    return Queue(store.settings.bots_queue, connection=store.rq_connection(), serializer=SERIALIZER)


def bot_games_queue(store: Store) -> Queue:
    return Queue(store.settings.bot_games_queue, connection=store.rq_connection(), serializer=SERIALIZER)


def bot_job_id(game_id: str, version: int, attempt: int) -> str:
    return f"bot-{game_id}-{version}-{attempt}"


def enqueue_bot_turn(store: Store, game_id: str, version: int, attempt: int = 0, bot_only: bool = False) -> Job:
    """Enqueue ``workers.jobs.bot_turn(game_id, version)``: on the bot-games queue for a game of computer
    players only, so that live games never wait behind one. No ``unique=True``: RQ 3 would refuse a re-enqueue
    while an old job hash lives; distinct attempts get distinct ids, and the job itself is idempotent."""
    queue = bot_games_queue(store) if bot_only else bots_queue(store)
    return _enqueue_turn(store, queue, "workers.jobs.bot_turn", bot_job_id(game_id, version, attempt), game_id, version)


def _enqueue_turn(store: Store, queue: Queue, func: str, job_id: str, game_id: str, version: int) -> Job:
    """A turn job (latency, non-forking); it does nothing once the game has moved on."""
    s = store.settings
    return queue.enqueue(
        func,
        game_id,
        version,
        job_id=job_id,
        job_timeout=s.bot_job_timeout,
        result_ttl=s.bot_result_ttl,
        failure_ttl=24 * 3600,
        description=f"{func.rsplit('.', 1)[-1]} {game_id}@{version} ({job_id})",
    )


def simulations_queue(store: Store) -> Queue:
    return Queue(store.settings.simulations_queue, connection=store.rq_connection(), serializer=SERIALIZER)


def chunk_job_id(sim_id: str, chunk: int) -> str:
    return f"sim-{sim_id}-{chunk}"


def simulation_window(store: Store) -> int:
    """How many chunks of one simulation wait in the queue at once (``Spec.window``): the configured window,
    or twice the simulation workers listening now when that is more, so that one simulation alone keeps them
    all busy."""
    workers = Worker.count(connection=store.rq_connection(), queue=simulations_queue(store))
    return max(1, store.settings.simulation_window, 2 * workers)


def enqueue_chunks(store: Store, sim_id: str, chunks: Iterable[int]) -> None:
    """Enqueue ``workers.jobs.run_chunk(sim_id, c)`` for these chunks, in one pipeline. A failed chunk is
    retried twice (also when its worker died: RQ's cleanup retries abandoned jobs); the job counts once per
    chunk index, so a retry never counts twice. ``chunk_failed`` fails the simulation after the last try."""
    s = store.settings
    queue = simulations_queue(store)
    datas = [
        Queue.prepare_data(
            "workers.jobs.run_chunk",
            args=(sim_id, c),
            job_id=chunk_job_id(sim_id, c),
            timeout=s.simulation_job_timeout,
            result_ttl=600,
            failure_ttl=24 * 3600,
            description=f"simulation {sim_id} chunk {c}",
            retry=Retry(max=2),
            on_failure=Callback("workers.jobs.chunk_failed"),
        )
        for c in chunks
    ]
    queue.enqueue_many(datas)  # one pipeline


def enqueue_later_chunk(store: Store, sim_id: str, chunk: int) -> None:
    """Enqueue ``chunk`` at the back of the queue, behind the chunks of every other simulation, unless its job
    exists: an earlier run of the chunk that queues it (one that died, or ran twice) did so already."""
    if not Job.exists(chunk_job_id(sim_id, chunk), connection=store.rq_connection()):
        enqueue_chunks(store, sim_id, [chunk])


def retry_abandoned_chunks(store: Store, now: float | None = None) -> list[str]:
    """Hand back to RQ the simulation chunks whose worker died with its work horse: once the execution's
    heartbeat has lapsed (about a minute), RQ retries such a job (or fails it after its last try), but a live
    worker looks only every 10 minutes; the sweep looks every interval. Returns the ids of the jobs found."""
    # The failure callback (chunk_failed, which fails the simulation after the last try) runs here, in the
    # sweep's thread: its timeout must be a timer, not SIGALRM (main thread only).
    registry = StartedJobRegistry(queue=simulations_queue(store), death_penalty_class=TimerDeathPenalty)
    abandoned = [str(job_id) for job_id in registry.get_expired_job_ids(now)]
    if abandoned:
        registry.cleanup(now)
    return abandoned


def drop_chunks(store: Store, sim_id: str, chunks: int) -> int:
    """Take a cancelled simulation's chunks that no worker has taken out of the queue (and delete their job
    hashes), so that workers do not fork for no-op jobs. A chunk already taken stops at its next check.
    Returns how many were dropped."""
    queue = simulations_queue(store)
    ids = [chunk_job_id(sim_id, c) for c in range(chunks)]
    conn = store.rq_connection()
    with conn.pipeline(transaction=False) as pipe:
        for job_id in ids:
            queue.remove(job_id, pipeline=pipe)
        removed = pipe.execute()
    dropped = [job_id for job_id, n in zip(ids, removed) if n]
    if dropped:  # out of the queue: no worker can take them any more
        conn.delete(*(Job.key_for(job_id) for job_id in dropped))
    return len(dropped)


def timeout_job_id(game_id: str, version: int, attempt: int) -> str:
    return f"timeout-{game_id}-{version}-{attempt}"


def enqueue_timeout_turn(store: Store, game_id: str, version: int, attempt: int = 0) -> Job:
    """Enqueue ``workers.jobs.timeout_turn(game_id, version)``: the sweep found the seat to move past its
    deadline. Idempotent like a bot turn."""
    return _enqueue_turn(store, bots_queue(store), "workers.jobs.timeout_turn", timeout_job_id(game_id, version, attempt), game_id, version)


def webhooks_queue(store: Store) -> Queue:
    return Queue(store.settings.webhooks_queue, connection=store.rq_connection(), serializer=SERIALIZER)


def webhook_job_id(game_id: str, version: int, attempt: int) -> str:
    return f"hook-{game_id}-{version}-{attempt}"


def enqueue_webhook(store: Store, game_id: str, version: int, attempt: int = 0) -> Job:
    """Enqueue ``workers.jobs.deliver_webhook(game_id, version, attempt)``; retries are enqueued by the
    sweep after the back-off (``Settings.webhook_backoff``), each with its own id."""
    s = store.settings
    return webhooks_queue(store).enqueue(
        "workers.jobs.deliver_webhook",
        game_id,
        version,
        attempt,
        job_id=webhook_job_id(game_id, version, attempt),
        job_timeout=s.webhook_job_timeout,
        result_ttl=s.bot_result_ttl,
        failure_ttl=24 * 3600,
        description=f"webhook {game_id}@{version}#{attempt}",
    )

"""Queues by purpose, and the helpers that build job ids (bot turns, simulation chunks)."""

from __future__ import annotations

from rq import Callback, Queue, Retry
from rq.job import Job

from api.store import Store

BOTS = "bots"  # latency: computer players' turns (the name is Settings.bots_queue)
SIMULATIONS = "simulations"  # throughput
WEBHOOKS = "webhooks"

SERIALIZER = "json"  # RQ payloads are JSON, never pickles


def bots_queue(store: Store) -> Queue:
    return Queue(store.settings.bots_queue, connection=store.rq_connection(), serializer=SERIALIZER)


def bot_job_id(game_id: str, version: int, attempt: int) -> str:
    return f"bot-{game_id}-{version}-{attempt}"


def enqueue_bot_turn(store: Store, game_id: str, version: int, attempt: int = 0) -> Job:
    """Enqueue ``workers.jobs.bot_turn(game_id, version)``. No ``unique=True``: RQ 3 would refuse a re-enqueue
    while an old job hash lives; distinct attempts get distinct ids, and the job itself is idempotent."""
    s = store.settings
    return bots_queue(store).enqueue(
        "workers.jobs.bot_turn",
        game_id,
        version,
        job_id=bot_job_id(game_id, version, attempt),
        job_timeout=s.bot_job_timeout,
        result_ttl=s.bot_result_ttl,
        failure_ttl=24 * 3600,
        description=f"bot turn {game_id}@{version}#{attempt}",
    )


def simulations_queue(store: Store) -> Queue:
    return Queue(store.settings.simulations_queue, connection=store.rq_connection(), serializer=SERIALIZER)


def chunk_job_id(sim_id: str, chunk: int) -> str:
    return f"sim-{sim_id}-{chunk}"


def enqueue_chunks(store: Store, sim_id: str, chunks: int) -> None:
    """Enqueue ``workers.jobs.run_chunk(sim_id, c)`` for every chunk, in one pipeline. A failed chunk is
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
        for c in range(chunks)
    ]
    queue.enqueue_many(datas)  # one pipeline

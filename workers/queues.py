"""Queues by purpose, and the one helper that builds bot-turn job ids."""

from __future__ import annotations

from rq import Queue
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

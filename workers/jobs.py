"""Job functions: they take ids, never objects, and call api.service (or api.simulations)."""

from __future__ import annotations

import functools
from typing import Any

from api.config import Settings
from api.service import Service


@functools.cache
def service() -> Service:
    """One Service per worker process, configured from the environment (``DOMINO_*``)."""
    return Service(Settings.from_env())


def bot_turn(game_id: str, version: int) -> str:
    """Play one computer player's move if the game is still at ``version``; stale or duplicate jobs do
    nothing. ``service.play_move`` enqueues the next turn when a computer player is to move again."""
    from rq import get_current_job

    from api import metrics

    job = get_current_job()
    with metrics.bot_turn_timer(job.enqueued_at if job is not None else None) as out:
        out["outcome"] = result = service().play_bot_turn(game_id, version)
    if result == "played":
        metrics.move_played(_variant(game_id), "bot")
    return result


def _variant(game_id: str) -> str:
    rec = service().store.load(game_id)
    return str(rec.doc.get("variant", "unknown")) if rec is not None else "unknown"


def timeout_turn(game_id: str, version: int) -> str:
    """Move for the seat whose turn deadline passed at ``version`` (api.turns.play_timeout)."""
    from api import turns

    return turns.play_timeout(service(), game_id, version)


def deliver_webhook(game_id: str, version: int, attempt: int) -> str:
    """POST the turn of ``version`` to the hosted bot to move, signed (api.webhooks.deliver)."""
    from api import webhooks

    return webhooks.deliver(service(), game_id, version, attempt)


def run_chunk(sim_id: str, chunk: int) -> str:
    """Play one chunk of a simulation in memory and add its counts once (api.simulations.run_chunk)."""
    from api import simulations

    return simulations.run_chunk(service().store, sim_id, chunk)


def chunk_failed(job: Any, connection: Any, exc_type: Any = None, exc: Any = None, tb: Any = None) -> None:
    """RQ failure callback of a chunk: after its last attempt, the simulation is ``failed``."""
    if job.retries_left:
        return  # RQ retries it
    from api import simulations

    sim_id = job.args[0] if job.args else ""
    reason = f"chunk {job.args[1] if len(job.args) > 1 else '?'}: {getattr(exc_type, '__name__', 'failure')}: {exc}"
    simulations.chunk_failed(service().store, sim_id, reason)

"""RQ entry points: they take ids, never objects, and call one method of the Service.

``api.queues`` enqueues them by their dotted path (``workers.jobs.bot_turn``), so nothing imports this module
but RQ and ``workers.cli``, which hands it the worker process's one Service (``use_service``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from rq import get_current_job

from api.config import Settings
from api.service.metrics import bot_turn_timer
from api.service.service import Service
from workers import full

P = ParamSpec("P")
R = TypeVar("R")

_service: Service | None = None


def use_service(given: Service | None) -> None:
    """The Service the jobs of this process use: the worker's own (``workers.cli``), so that a worker process
    holds one Service, one set of connection pools (a forked work horse inherits it). None: build one from the
    environment when next needed (a test that changed it)."""
    global _service
    _service = given


def service() -> Service:
    """This process's Service: the worker's (``use_service``), or else one configured from the environment
    (``DOMINO_*``), built once (a test running jobs in its own process)."""
    global _service
    if _service is None:
        _service = Service(Settings.from_env())
    return _service


def outlasting_full(fn: Callable[P, R]) -> Callable[P, R]:
    """A job run again in place, after a back-off, while Redis is full (workers/full.py): jobs are idempotent."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        s = service().settings
        return full.outlasting(f"job {fn.__name__}{args}", s.full_backoff, s.full_backoff_max, lambda: fn(*args, **kwargs))

    return wrapper


@outlasting_full
def bot_turn(game_id: str, version: int) -> str:
    """Play one computer player's move if the game is still at ``version`` (timed from its enqueue)."""
    job = get_current_job()
    with bot_turn_timer(job.enqueued_at if job is not None else None) as out:
        out["outcome"] = result = service().play_bot_turn(game_id, version)
    return result


@outlasting_full
def timeout_turns(turns: list[list[Any]]) -> str:
    """Move for each seat past its deadline, ``[game id, version]`` pairs (each only if its game is still there)."""
    return service().play_timeouts([(str(game_id), int(version)) for game_id, version in turns])


@outlasting_full
def deliver_webhook(game_id: str, version: int, attempt: int) -> str:
    return service().deliver_webhook(game_id, version, attempt)


@outlasting_full
def rate_game(game_id: str) -> str:
    return service().rate_game(game_id)


@outlasting_full
def deliver_app_events() -> str:
    return service().deliver_app_events()


@outlasting_full
def match_pool(pool: str, ticket_id: str) -> str:
    return service().match_pool(pool, ticket_id)


def hint_moves(game_id: str, version: int, seat: int) -> dict[str, Any]:
    """The values of ``seat``'s legal moves at ``version`` (writes nothing: a full Redis does not hold it up)."""
    return service().hint_values(game_id, version, seat)


@outlasting_full
def archive_games() -> str:
    return service().archive_games()


@outlasting_full
def run_chunk(sim_id: str, chunk: int) -> str:
    return service().run_chunk(sim_id, chunk)


def chunk_failed(job: Any, connection: Any, exc_type: Any = None, exc: Any = None, tb: Any = None) -> None:
    """RQ failure callback of a chunk: after its last attempt, the simulation is ``failed``."""
    if job.retries_left:
        return  # RQ retries it
    sim_id = job.args[0] if job.args else ""
    reason = f"chunk {job.args[1] if len(job.args) > 1 else '?'}: {getattr(exc_type, '__name__', 'failure')}: {exc}"
    service().chunk_failed(sim_id, reason)


@outlasting_full
def run_analysis(game_id: str) -> str:
    return service().run_analysis(game_id)


def analysis_failed(job: Any, connection: Any, exc_type: Any = None, exc: Any = None, tb: Any = None) -> None:
    """RQ failure callback of an analysis: after its last attempt, the analysis is ``failed``."""
    if job.retries_left:
        return  # RQ retries it
    game_id = job.args[0] if job.args else ""
    service().analysis_failed(game_id, f"{getattr(exc_type, '__name__', 'failure')}: {exc}")


@outlasting_full
def run_fairplay(screen_id: str) -> str:
    return service().run_fairplay(screen_id)


def fairplay_failed(job: Any, connection: Any, exc_type: Any = None, exc: Any = None, tb: Any = None) -> None:
    """RQ failure callback of a fair-play screen: after its last attempt, the screen is ``failed``."""
    if job.retries_left:
        return  # RQ retries it
    screen_id = job.args[0] if job.args else ""
    service().fairplay_failed(screen_id, f"{getattr(exc_type, '__name__', 'failure')}: {exc}")

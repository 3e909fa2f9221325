from __future__ import annotations

import flask
from rq import Worker

from api import errors as E
from api.app import current_service
from api.extensions import Blueprint, problem_response
from api.resources.common import json_response
from api.resources.health.schemas import HealthSchema, ReadySchema
from api.store import StoreUnavailable, translated
from workers.queues import bot_games_queue, bots_queue, simulations_queue, webhooks_queue

blp = Blueprint("health", __name__, url_prefix="", description="Liveness and readiness.")


@blp.route("/healthz")
@blp.doc(operationId="getHealth")
@blp.response(200, HealthSchema, example={"status": "ok"})
@blp.problems(E.INTERNAL, path="/healthz")
def healthz() -> flask.Response:
    """Liveness: the process answers (checks nothing else)"""
    return json_response({"status": "ok"}, headers={"Cache-Control": "no-store"})


@blp.route("/readyz")
@blp.doc(operationId="getReadiness")
@blp.response(
    200,
    ReadySchema,
    example={
        "status": "ready",
        "checks": {
            "redis": {"ok": True, "redis_ms": 0.21},
            "bots_workers": 1,
            "bot_games_workers": 1,
            "simulations_workers": 2,
            "webhooks_workers": 1,
        },
    },
)
@blp.problems(E.UNAVAILABLE, path="/readyz")
def readyz() -> flask.Response:
    """Readiness: Redis answers and at least one worker listens on the `bots` queue

    `checks` also counts the workers on the `bot-games` (games of computer players only), `simulations` and
    `webhooks` queues, for information only: readiness never fails when they are 0, since a deployment may
    run without games of computer players only, simulations or hosted bots."""
    store = current_service().store
    checks: dict[str, object] = {}
    try:
        checks["redis"] = {"ok": True, **store.ping()}
        conn = store.rq_connection()
        with translated():
            workers = Worker.count(connection=conn, queue=bots_queue(store))
            checks["bots_workers"] = workers
            checks["bot_games_workers"] = Worker.count(connection=conn, queue=bot_games_queue(store))
            checks["simulations_workers"] = Worker.count(connection=conn, queue=simulations_queue(store))
            checks["webhooks_workers"] = Worker.count(connection=conn, queue=webhooks_queue(store))
    except StoreUnavailable as exc:
        checks.setdefault("redis", {"ok": False, "error": str(exc)})
        return problem_response(E.UNAVAILABLE, "Redis does not answer.", {"checks": checks}, {"Cache-Control": "no-store"})
    if workers < 1:
        return problem_response(
            E.UNAVAILABLE, "No worker listens on the bots queue.", {"checks": checks}, {"Cache-Control": "no-store"}
        )
    return json_response({"status": "ready", "checks": checks}, headers={"Cache-Control": "no-store"})

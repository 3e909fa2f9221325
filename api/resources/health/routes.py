from __future__ import annotations

import flask

from api import errors as E
from api.extensions import Blueprint, current_service, problem_response
from api.resources.common import json_response
from api.resources.health.schemas import HealthSchema, ReadySchema

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
            "archive_workers": 1,
            "analysis_workers": 1,
            "hints_workers": 1,
            "archive": {"ok": True, "dialect": "postgresql", "revision": "0001", "migrated": True},
        },
    },
)
@blp.problems(E.UNAVAILABLE, path="/readyz")
def readyz() -> flask.Response:
    """Readiness: Redis (the games' and the queues') takes reads and writes

    503 while Redis does not answer, or answers but refuses writes because it is full (`checks.redis.full`);
    nothing else makes it unready. `checks` counts the workers on each queue (`bots`, `bot-games` for games
    of computer players only, `simulations`, `webhooks`, `archive`) for information only: a missing worker
    delays play but refuses nothing. `checks.archive` reports the archive of finished games (`ok`, its
    dialect and migration, or the error): never a reason for a 503, since live play goes on without it
    (finished games wait in Redis until it is back)."""
    ready, why, checks = current_service().readiness()
    if not ready:
        return problem_response(E.UNAVAILABLE, why, {"checks": checks}, {"Cache-Control": "no-store"})
    return json_response({"status": "ready", "checks": checks}, headers={"Cache-Control": "no-store"})

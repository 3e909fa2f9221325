from __future__ import annotations

import flask

from api import errors as E
from api.callers import required_app
from api.extensions import Blueprint
from api.resources.apps.schemas import AppSchema
from api.resources.common import APP_KEY, json_response

blp = Blueprint("apps", __name__, url_prefix="/v1/app", description="The calling app.")


@blp.route("")
@blp.doc(operationId="getApp", security=APP_KEY)
@blp.response(
    200,
    AppSchema,
    example={
        "id": "q7m2c3x9b2rth4k2",
        "name": "tabletop",
        "webhook": "https://tabletop.example.com/domino-hooks",
        "rate_limit": "6000/60",
        "max_games": 100,
        "created_at": 1767268800.123,
        "revoked": False,
        "events": ["game.started", "round.ended", "game.ended", "turn.started"],
        "keys": [
            {"generation": "current", "expires_at": None, "in_use": True},
            {"generation": "previous", "expires_at": 1767355200.0, "in_use": False},
        ],
        "webhook_secrets": [{"generation": "current", "expires_at": None}],
    },
)
@blp.problems(E.UNAUTHORIZED, E.UNAVAILABLE, path="/v1/app")
def get_app() -> flask.Response:
    """The calling app: its name, limits, webhook and the events it subscribes to (never its key or secret)

    Send the app key as `Authorization: Bearer dsk_app_...`; without one, or with an unknown, revoked one or
    one rotated out (its grace over), the answer is 401. After a rotation, `keys` says until when the previous
    key works and which one this request carried."""
    return json_response(required_app().public(), headers={"Cache-Control": "no-store"})

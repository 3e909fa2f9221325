from __future__ import annotations

import flask

from typing import Any

from api import errors as E
from api.callers import required_app
from api.extensions import BODY_PROBLEMS, Blueprint, current_service, no_body
from api.resources.apps.schemas import (
    AppSchema, DeliveriesQuerySchema, DeliveryPageSchema, DeliverySchema, UpdateAppSchema, UpdatedAppSchema,
)  # fmt: skip
from api.resources.common import APP_KEY, json_response

blp = Blueprint("apps", __name__, url_prefix="/v1/app", description="The calling app, its webhook and its deliveries.")
PRIVATE = {"Cache-Control": "no-store"}
APP_EXAMPLE: dict[str, Any] = {
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
}
DELIVERY_EXAMPLE = {
    "id": "msg_h4k2mzq7c3x9b2rt_57_game_ended",
    "kind": "game.ended",
    "game_id": "h4k2mzq7c3x9b2rt",
    "status": "delivered",
    "attempts": 2,
    "code": 204,
    "duration_ms": 38,
    "created_at": 1767268800.5,
    "last_attempt_at": 1767268806.1,
}


@blp.route("")
@blp.doc(operationId="getApp", security=APP_KEY)
@blp.response(200, AppSchema, example=APP_EXAMPLE)
@blp.problems(E.UNAUTHORIZED, E.UNAVAILABLE, path="/v1/app")
def get_app() -> flask.Response:
    """Read the calling app: its name, limits, webhook, the events it subscribes to (never its key or secret)

    Send the app key as `Authorization: Bearer dsk_app_...`; without one, or with an unknown, revoked one or
    one rotated out (its grace over), the answer is 401. After a rotation, `keys` says until when the previous
    key works and which one this request carried."""
    return json_response(required_app().public(), headers=PRIVATE)


@blp.route("", methods=["PATCH"])
@blp.doc(operationId="updateApp", security=APP_KEY)
@blp.arguments(UpdateAppSchema(), example={"webhook": "https://tabletop.example.com/domino-hooks", "events": ["game.ended"]})
@blp.response(200, UpdatedAppSchema, example={**APP_EXAMPLE, "events": ["game.ended"]})
@blp.problems(*BODY_PROBLEMS, E.UNAUTHORIZED, E.UNAVAILABLE, path="/v1/app")
def update_app(body: dict[str, Any]) -> flask.Response:
    """Change the calling app's webhook and the events it subscribes to

    Only the members sent change. `webhook` passes the checks of the app's creation (an `http(s)` URL without
    credentials; public addresses only), `null` removes it (and its secret). A webhook set where there was
    none comes with a new `webhook_secret`, shown only here; another URL keeps the secret. The limits are
    the operator's (`domino-admin`): sending them is a 422, as is any other unknown member."""
    app, secret = current_service().change_app(required_app(), body)
    shown = app.public() if secret is None else {**app.public(), "webhook_secret": secret}
    return json_response(shown, headers=PRIVATE)


@blp.route("/deliveries")
@blp.doc(operationId="listAppDeliveries", security=APP_KEY)
@blp.arguments(DeliveriesQuerySchema(), location="query")
@blp.response(200, DeliveryPageSchema, example={"deliveries": [DELIVERY_EXAMPLE], "next_cursor": None, "next": None})
@blp.problems(E.INVALID_REQUEST, E.UNAUTHORIZED, E.UNAVAILABLE, path="/v1/app/deliveries")
def list_deliveries(query: dict[str, Any]) -> flask.Response:
    """List what the app's webhook was sent: the last 7 days, at most the last 1,000, newest first

    Each delivery: its `kind` (the event, or `ping`), `status`, `attempts`, the last answer's `code` and
    `duration_ms`. One page at a time (`limit`, default 50): follow `next`."""
    cursor = query.get("cursor")
    before = None if cursor is None else (float(cursor.partition("_")[0]), cursor.partition("_")[2])
    page, after = current_service().app_deliveries(required_app(), before, query["limit"])
    next_cursor = None if after is None else f"{after[0]:.6f}_{after[1]}"
    next_url = None if next_cursor is None else f"/v1/app/deliveries?limit={query['limit']}&cursor={next_cursor}"
    return json_response({"deliveries": page, "next_cursor": next_cursor, "next": next_url}, headers=PRIVATE)


@blp.route("/deliveries/<string:delivery_id>/redeliver", methods=["POST"])
@blp.doc(operationId="redeliverAppDelivery", security=APP_KEY)
@blp.response(202, DeliverySchema, example={**DELIVERY_EXAMPLE, "status": "pending"})
@blp.problems(E.UNAUTHORIZED, E.NOT_FOUND, E.NO_WEBHOOK, E.INVALID_REQUEST, E.UNAVAILABLE, path="/v1/app/deliveries/msg_x/redeliver")
@no_body
def redeliver(delivery_id: str) -> flask.Response:
    """Send a delivery again, while it is kept (7 days, the last 1,000)

    It goes out with its `webhook-id`, signed with the app's secrets as they are now, and is tried again after
    the back-off like any delivery; its entry in the deliveries shows the result. An id not kept for this app
    is a 404; an app without a webhook, a 409 `no-webhook`."""
    return json_response(current_service().redeliver(required_app(), delivery_id), status=202, headers=PRIVATE)


@blp.route("/webhook/test", methods=["POST"])
@blp.doc(operationId="testAppWebhook", security=APP_KEY)
@blp.response(202, DeliverySchema, example={**DELIVERY_EXAMPLE, "id": "msg_ping_b2rth4k2q7m2c3x9", "kind": "ping",
              "game_id": None, "status": "pending", "attempts": 0, "code": None, "duration_ms": None,
              "last_attempt_at": None})  # fmt: skip
@blp.problems(E.UNAUTHORIZED, E.NO_WEBHOOK, E.INVALID_REQUEST, E.UNAVAILABLE, path="/v1/app/webhook/test")
@no_body
def ping_webhook() -> flask.Response:
    """Queue a signed `ping` to the app's webhook; its result shows in the deliveries

    The body is `{"type": "ping", "timestamp": ..., "data": {"app": "<name>"}}`, signed as every delivery.
    An app without a webhook: 409 `no-webhook`."""
    return json_response(current_service().ping_webhook(required_app()), status=202, headers=PRIVATE)

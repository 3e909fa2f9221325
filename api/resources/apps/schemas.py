from __future__ import annotations

import re
from typing import Any

import marshmallow as ma

from api.resources.games.schemas import WEBHOOK_PATTERN
from api.service.app_events import WEBHOOK_EVENTS
from api.service.webhooks import check_url

# A position in the delivery log: the time a delivery was noted and its id, as the last page gave them.
CURSOR_PATTERN = r"^[0-9]{1,12}(\.[0-9]{1,6})?_msg_[A-Za-z0-9_]{1,80}$"
DELIVERY_STATUSES = ("pending", "delivered", "retrying", "failed")


class GenerationSchema(ma.Schema):
    """A key or webhook secret of the app: never the value, only when it stops working."""

    generation = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(["current", "previous"]),
        metadata={"description": "`current`, or `previous`: the one before the last rotation, during its grace"},
    )
    expires_at = ma.fields.Float(
        required=True, allow_none=True, metadata={"description": "Unix time it stops working (null: until rotated)"}
    )


class KeySchema(GenerationSchema):
    in_use = ma.fields.Boolean(required=True, metadata={"description": "this request carried this key"})


class AppSchema(ma.Schema):
    """The calling app as `domino-admin apps create` made it: never its key nor its webhook secret."""

    id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    webhook = ma.fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "where the `events` it subscribes to are delivered (null: nowhere)"},
    )
    rate_limit = ma.fields.String(
        required=True,
        metadata={"description": "the app's own rate limit, `<requests>/<seconds>` (`0`: none)", "example": "6000/60"},
    )
    max_games = ma.fields.Integer(
        required=True, metadata={"description": "games waiting or playing the app may hold at once (0: no cap)"}
    )
    created_at = ma.fields.Float(required=True, metadata={"description": "Unix time"})
    revoked = ma.fields.Boolean(required=True, metadata={"description": "always false here: a revoked key gets a 401"})
    events = ma.fields.List(
        ma.fields.String(validate=ma.validate.OneOf(WEBHOOK_EVENTS)),
        required=True,
        metadata={
            "description": "the webhook events the app subscribes to (`domino-admin apps create|update --events`); "
            "by default `game.started`, `round.ended`, `game.ended`"
        },
    )
    keys = ma.fields.List(
        ma.fields.Nested(KeySchema),
        required=True,
        metadata={
            "description": "the current key, then the previous one while its grace lasts (`domino-admin apps rotate "
            "--grace`): switch to the new key before the old one's `expires_at`"
        },
    )
    webhook_secrets = ma.fields.List(
        ma.fields.Nested(GenerationSchema),
        required=True,
        metadata={
            "description": "the current webhook secret, then the previous one while its grace lasts (`domino-admin apps "
            "rotate-secret`): meanwhile every delivery carries a signature by each; empty without a webhook"
        },
    )


def _events(**kwargs: Any) -> ma.fields.List[str]:
    return ma.fields.List(
        ma.fields.String(validate=ma.validate.OneOf(WEBHOOK_EVENTS)),
        validate=ma.validate.Length(min=1, max=len(WEBHOOK_EVENTS)),
        metadata={"description": "the webhook events to subscribe to, one or more"},
        **kwargs,
    )


class UpdateAppSchema(ma.Schema):
    """Only the members sent change; the limits are the operator's (`domino-admin`), not here."""

    webhook = ma.fields.String(
        allow_none=True,
        validate=[ma.validate.Length(min=1, max=2000), ma.validate.Regexp(WEBHOOK_PATTERN)],
        metadata={
            "pattern": WEBHOOK_PATTERN,
            "description": "where deliveries go (null: nowhere); public addresses only, as at the app's creation. "
            "A webhook where there was none comes with a new `webhook_secret`, shown once",
            "example": "https://tabletop.example.com/domino-hooks",
        },
    )
    events = _events()

    @ma.validates("webhook")
    def _webhook_url(self, value: str | None, **kwargs: object) -> None:
        problem = check_url(value) if value else None
        if problem:
            raise ma.ValidationError(problem)


class UpdatedAppSchema(AppSchema):
    webhook_secret = ma.fields.String(
        metadata={"description": "shown once, when a webhook is set where there was none: `whsec_...`"}
    )


class DeliveriesQuerySchema(ma.Schema):
    limit = ma.fields.Integer(load_default=50, validate=ma.validate.Range(min=1, max=200))
    cursor = ma.fields.String(
        validate=ma.validate.Regexp(re.compile(CURSOR_PATTERN)),
        metadata={"description": "`next_cursor` of the page before, as it came", "pattern": CURSOR_PATTERN},
    )


class DeliverySchema(ma.Schema):
    id = ma.fields.String(required=True, metadata={"description": "the `webhook-id` of every try of it"})
    kind = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf([*WEBHOOK_EVENTS, "ping"]),
        metadata={"description": "the event it carries (`type` in its body), or `ping`"},
    )
    game_id = ma.fields.String(required=True, allow_none=True, metadata={"description": "its game (null: a ping)"})
    status = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(DELIVERY_STATUSES),
        metadata={
            "description": "`pending` (queued), `delivered` (a 2xx), `retrying` (its last try failed; another "
            "follows after the back-off), `failed` (out of tries)"
        },
    )
    attempts = ma.fields.Integer(required=True, metadata={"description": "tries so far"})
    code = ma.fields.Integer(required=True, allow_none=True, metadata={"description": "the last answer's HTTP status (null: none came)"})
    duration_ms = ma.fields.Integer(required=True, allow_none=True, metadata={"description": "how long the last try took"})
    created_at = ma.fields.Float(required=True, metadata={"description": "Unix time it was first queued"})
    last_attempt_at = ma.fields.Float(required=True, allow_none=True, metadata={"description": "Unix time of the last try"})


class DeliveryPageSchema(ma.Schema):
    deliveries = ma.fields.List(ma.fields.Nested(DeliverySchema), required=True, metadata={"description": "newest first"})
    next_cursor = ma.fields.String(required=True, allow_none=True, metadata={"description": "the next page's `cursor`"})
    next = ma.fields.String(required=True, allow_none=True, metadata={"description": "the next page's URL (null: none)"})

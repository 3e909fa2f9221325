from __future__ import annotations

import marshmallow as ma

from api.service.app_events import WEBHOOK_EVENTS


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

from __future__ import annotations

import marshmallow as ma


class HealthSchema(ma.Schema):
    status = ma.fields.String(metadata={"example": "ok"})


class ReadyChecksSchema(ma.Schema):
    redis = ma.fields.Dict(
        metadata={"description": "`ok`, and the round trips in ms of the game (`redis_ms`) and queue (`queue_redis_ms`) connections"}
    )
    bots_workers = ma.fields.Integer(metadata={"description": "workers listening on `bots`: ready needs at least one"})
    bot_games_workers = ma.fields.Integer(
        metadata={"description": "workers listening on `bot-games`, games of computer players only (information only)"}
    )
    simulations_workers = ma.fields.Integer(
        metadata={"description": "workers listening on `simulations` (information only: 0 is still ready)"}
    )
    webhooks_workers = ma.fields.Integer(
        metadata={"description": "workers listening on `webhooks` (information only: 0 is still ready)"}
    )


class ReadySchema(ma.Schema):
    status = ma.fields.String(metadata={"example": "ready"})
    checks = ma.fields.Nested(ReadyChecksSchema, metadata={"description": "what was checked"})

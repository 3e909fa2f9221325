from __future__ import annotations

import marshmallow as ma


class HealthSchema(ma.Schema):
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(["ok"]))


class ReadyChecksSchema(ma.Schema):
    redis = ma.fields.Dict(
        required=True,
        metadata={
            "description": "`ok`, and the round trips in ms of the game (`redis_ms`) and queue (`queue_redis_ms`) "
            "connections, each a write; when not ok, `error`, and `full: true` when Redis refuses writes at its "
            "memory limit"
        },
    )
    bots_workers = ma.fields.Integer(required=True, metadata={"description": "workers listening on `bots` (information only: 0 is still ready)"})
    bot_games_workers = ma.fields.Integer(
        required=True,
        metadata={"description": "workers listening on `bot-games`, games of computer players only (information only)"},
    )
    simulations_workers = ma.fields.Integer(required=True, 
        metadata={"description": "workers listening on `simulations` (information only: 0 is still ready)"}
    )
    webhooks_workers = ma.fields.Integer(required=True, 
        metadata={"description": "workers listening on `webhooks` (information only: 0 is still ready)"}
    )
    archive_workers = ma.fields.Integer(
        required=True, metadata={"description": "workers listening on `archive` (information only: 0 is still ready)"}
    )
    analysis_workers = ma.fields.Integer(
        required=True, metadata={"description": "workers listening on `analysis` (information only: 0 is still ready)"}
    )
    hints_workers = ma.fields.Integer(
        required=True, metadata={"description": "workers listening on `hints` (information only: 0 is still ready)"}
    )
    archive = ma.fields.Dict(
        required=True,
        metadata={
            "description": "the archive of finished games: `ok`, `dialect`, `revision` and `migrated`, or `error`; "
            "reported only: an archive that is down leaves the service ready (finished games wait in Redis)"
        },
    )


class ReadySchema(ma.Schema):
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(["ready"]))
    checks = ma.fields.Nested(ReadyChecksSchema, required=True, metadata={"description": "what was checked"})

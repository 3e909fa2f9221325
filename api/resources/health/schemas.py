from __future__ import annotations

import marshmallow as ma


class HealthSchema(ma.Schema):
    status = ma.fields.String(metadata={"example": "ok"})


class ReadySchema(ma.Schema):
    status = ma.fields.String(metadata={"example": "ready"})
    checks = ma.fields.Dict(metadata={"description": "redis round trips (ms) and workers listening on `bots`"})

from __future__ import annotations

import marshmallow as ma

from api.resources.common import no_control_chars
from api.resources.games.schemas import GameViewSchema


class ClaimSeatSchema(ma.Schema):
    name = ma.fields.String(
        required=True,
        validate=[ma.validate.Length(min=1, max=40), no_control_chars],
        metadata={"description": "the claimant's name, 1-40 characters, no control characters", "example": "Bo"},
    )


class ClaimedSeatSchema(ma.Schema):
    game = ma.fields.Nested(GameViewSchema, metadata={"description": "the claimed seat's view"})
    seat = ma.fields.Integer()
    token = ma.fields.String(metadata={"description": "shown once; send as `Authorization: Bearer <token>`"})


class LobbyQuerySchema(ma.Schema):
    status = ma.fields.String(
        load_default="waiting",
        validate=ma.validate.OneOf(["waiting"]),
        metadata={"description": "only `waiting`: listed games with an open seat"},
    )
    limit = ma.fields.Integer(load_default=20, validate=ma.validate.Range(min=1, max=100))
    before = ma.fields.Float(
        metadata={"description": "the cursor of the next page (`next_before` of the previous one)"}
    )


class LobbySeatSchema(ma.Schema):
    seat = ma.fields.Integer(required=True)
    name = ma.fields.String(required=True, allow_none=True, metadata={"description": "null for an open seat"})
    kind = ma.fields.String(required=True, metadata={"enum": ["human", "bot", "hosted", "open"]})


class LobbyGameSchema(ma.Schema):
    id = ma.fields.String()
    variant = ma.fields.String()
    rules = ma.fields.Dict(metadata={"description": "the resolved options"})
    status = ma.fields.String(metadata={"enum": ["waiting"]})
    version = ma.fields.Integer()
    created_at = ma.fields.Float(metadata={"description": "Unix time"})
    seats = ma.fields.List(ma.fields.Nested(LobbySeatSchema))
    open_seats = ma.fields.List(ma.fields.Integer(), metadata={"description": "claim one with POST .../seats/{seat}"})
    turn_timeout_s = ma.fields.Float(allow_none=True)
    client_seeded = ma.fields.Boolean()


class LobbyPageSchema(ma.Schema):
    games = ma.fields.List(ma.fields.Nested(LobbyGameSchema), metadata={"description": "newest first"})
    next_before = ma.fields.Float(allow_none=True, metadata={"description": "pass as `before` for the next page"})
    next = ma.fields.String(allow_none=True, metadata={"description": "the next page's URL, or null"})

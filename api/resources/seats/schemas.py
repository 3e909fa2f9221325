from __future__ import annotations

import marshmallow as ma

import domino
from api.resources.common import name_field
from api.resources.games.schemas import SEAT_KINDS, GameViewSchema



class ClaimSeatSchema(ma.Schema):
    name = name_field("the claimant's name, 1-40 characters, no control characters", "Bo", required=True)


class ClaimedSeatSchema(ma.Schema):
    game = ma.fields.Nested(GameViewSchema, required=True, metadata={"description": "the claimed seat's view"})
    seat = ma.fields.Integer(required=True)
    token = ma.fields.String(required=True, metadata={"description": "shown once; send as `Authorization: Bearer <token>`"})
    client_seeded = ma.fields.Boolean(
        required=True,
        metadata={
            "description": "`true`: the game's creator chose its seed and can know every hand, yours included, "
            "and the draw order (such a game is never listed in the lobby; its link was shared with you)"
        },
    )


class LobbyQuerySchema(ma.Schema):
    status = ma.fields.String(
        load_default="waiting",
        validate=ma.validate.OneOf(["waiting"]),
        metadata={"description": "only `waiting`: listed games with an open seat"},
    )
    limit = ma.fields.Integer(load_default=20, validate=ma.validate.Range(min=1, max=100))
    before = ma.fields.Float(
        validate=ma.validate.Range(min=0, max=1e12),
        metadata={"description": "the cursor of the next page (`next_before` of the previous one): a Unix time"},
    )


class LobbySeatSchema(ma.Schema):
    seat = ma.fields.Integer(required=True)
    name = ma.fields.String(required=True, allow_none=True, metadata={"description": "null for an open seat"})
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(SEAT_KINDS))


class LobbyGameSchema(ma.Schema):
    id = ma.fields.String(required=True)
    variant = ma.fields.String(required=True, validate=ma.validate.OneOf(domino.PRESETS))
    rules = ma.fields.Dict(required=True, metadata={"description": "the resolved options"})
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(["waiting"]))
    version = ma.fields.Integer(required=True)
    created_at = ma.fields.Float(required=True, metadata={"description": "Unix time"})
    seats = ma.fields.List(ma.fields.Nested(LobbySeatSchema), required=True)
    open_seats = ma.fields.List(
        ma.fields.Integer(), required=True, metadata={"description": "claim one with POST .../seats/{seat}"}
    )
    turn_timeout_s = ma.fields.Float(required=True, allow_none=True)
    client_seeded = ma.fields.Boolean(required=True)


class LobbyPageSchema(ma.Schema):
    games = ma.fields.List(ma.fields.Nested(LobbyGameSchema), required=True, metadata={"description": "newest first"})
    next_before = ma.fields.Float(
        required=True, allow_none=True, metadata={"description": "pass as `before` for the next page; null on the last page"}
    )
    next = ma.fields.String(required=True, allow_none=True, metadata={"description": "the next page's URL, or null"})

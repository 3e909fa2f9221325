from __future__ import annotations

import marshmallow as ma

from api.resources.common import StrictFloat
from api.resources.games.schemas import GameViewSchema

REMATCH_STATUSES = ["none", "open", "creating", "created", "declined", "expired"]
MAX_REMATCH_TIMEOUT_S = 600


class RematchBodySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    rematch_timeout_s = StrictFloat(
        validate=ma.validate.Range(min=1, max=MAX_REMATCH_TIMEOUT_S),
        metadata={"description": "how long the offer stays open for the other seats (default 60 s, at most 600)", "example": 60},
    )


class RematchSchema(ma.Schema):
    status = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(REMATCH_STATUSES),
        metadata={"description": "`open` while seats may accept; `created` once the new game exists; `none`: never offered"},
    )
    expires_at = ma.fields.Float(required=True, allow_none=True, metadata={"description": "Unix time the offer closes"})
    accepted = ma.fields.List(ma.fields.Integer(), required=True, metadata={"description": "the seats that accepted"})
    next_game_id = ma.fields.String(required=True, allow_none=True, metadata={"description": "once created: the new game"})
    token = ma.fields.String(
        required=True, allow_none=True, metadata={"description": "once created: your seat's token in it (null: a bot's seat)"}
    )


class RematchCreatedSchema(ma.Schema):
    game = ma.fields.Nested(GameViewSchema, required=True, metadata={"description": "the new game, as your seat sees it"})
    token = ma.fields.String(required=True, allow_none=True, metadata={"description": "your seat's token in the new game"})
    version = ma.fields.Integer(required=True)

from __future__ import annotations

import marshmallow as ma

import domino
from api.resources.common import player_field

GAME_ID_PATTERN = r"^[a-z2-7]{16}$"
UNIX_TIME = ma.validate.Range(min=0, max=1e12)


class ExportQuerySchema(ma.Schema):
    since = ma.fields.Float(
        validate=UNIX_TIME, metadata={"description": "only games that ended at or after this Unix time", "example": 1764950000}
    )
    until = ma.fields.Float(validate=UNIX_TIME, metadata={"description": "only games that ended before this Unix time"})
    variant = ma.fields.String(validate=ma.validate.OneOf(domino.PRESETS), metadata={"description": "only this variant"})
    player = player_field(
        "with an app key only (422 with a bot token): only the app's games in which a seat names this player (its "
        "registered bots' games in other apps are then left out)"
    )
    rated = ma.fields.Boolean(metadata={"description": "only rated games (`true`) or only unrated ones (`false`)"})
    after = ma.fields.String(
        validate=ma.validate.Regexp(GAME_ID_PATTERN),
        metadata={
            "description": "the cursor: the `id` of the last record received; the export goes on with the games "
            "archived after it (422 if no archived game has this id)",
            "pattern": GAME_ID_PATTERN,
            "example": "h4k2mzq7c3x9b2rt",
        },
    )
    limit = ma.fields.Integer(
        validate=ma.validate.Range(min=1, max=10**9),
        metadata={"description": "at most this many games (default: every one); continue with `after`"},
    )

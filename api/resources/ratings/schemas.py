from __future__ import annotations

import base64
import binascii
import re
from typing import Any

import marshmallow as ma
import orjson

import domino

RATING_KINDS = ["builtin", "registered", "player"]


class RatingSchema(ma.Schema):
    """A player's rating in one variant (openskill's Plackett-Luce model)."""

    name = ma.fields.String(required=True, metadata={"description": "the bot's id or name, or the app's player id"})
    kind = ma.fields.String(
        required=True, validate=ma.validate.OneOf(RATING_KINDS), metadata={
            "description": "`builtin`: a strategy of `GET /v1/bots`; `registered`: a registered bot; `player`: an "
            "app's player (its `player` id, on the app's own leaderboard)"
        },
    )
    mu = ma.fields.Float(required=True, metadata={"description": "the estimated skill (25 before any game)"})
    sigma = ma.fields.Float(required=True, metadata={"description": "the uncertainty of `mu` (25/3 before any game)"})
    ordinal = ma.fields.Float(required=True, metadata={"description": "`mu - 3 sigma`: what the leaderboard is ordered by"})
    games = ma.fields.Integer(required=True, metadata={"description": "rated games counted"})
    last_game_at = ma.fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "Unix time its last rated game ended (null: rated before this was kept)"},
    )


# A leaderboard position: the last entry shown (its ordinal and who it is), opaque to clients.
BOARD_CURSOR_PATTERN = r"^[A-Za-z0-9_-]{8,400}$"
_BOARD_CURSOR = re.compile(BOARD_CURSOR_PATTERN)


def encode_board_cursor(position: tuple[float, str]) -> str:
    """The text of a leaderboard position (ordinal, player): clients pass it back as it came."""
    return base64.urlsafe_b64encode(orjson.dumps(list(position))).decode().rstrip("=")


class BoardCursor(ma.fields.Field[tuple[float, str]]):
    """A position from :func:`encode_board_cursor`; anything else fails validation (a 422, never a 500)."""

    default_error_messages = {"invalid": "not a cursor of this leaderboard: pass `next_cursor` as it came"}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> tuple[float, str]:
        if not isinstance(value, str) or not _BOARD_CURSOR.fullmatch(value):
            raise self.make_error("invalid")
        try:
            position = orjson.loads(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
        except (ValueError, binascii.Error):
            raise self.make_error("invalid") from None
        match position:
            case [int() | float() as ordinal, str() as player] if not isinstance(ordinal, bool):
                return float(ordinal), player
        raise self.make_error("invalid")


class LeaderboardSchema(ma.Schema):
    variant = ma.fields.String(required=True, validate=ma.validate.OneOf(domino.PRESETS))
    ratings = ma.fields.List(
        ma.fields.Nested(RatingSchema), required=True, metadata={"description": "best first (by `ordinal`)"}
    )
    next_cursor = ma.fields.String(
        required=True, allow_none=True, metadata={"description": "the cursor of the next page (null: the last page)"}
    )
    next = ma.fields.String(
        required=True, allow_none=True, metadata={"description": "the next page's URL (also in the `Link` header)"}
    )


class LeaderboardQuerySchema(ma.Schema):
    app = ma.fields.String(
        validate=ma.validate.Equal("me"),
        metadata={
            "description": "`me`: the calling app's players (seats with a `player` in its rated games) instead of "
            "the bots; needs the app key",
            "enum": ["me"],
        },
    )
    limit = ma.fields.Integer(
        load_default=100, validate=ma.validate.Range(min=1, max=1000), metadata={"description": "entries per page, best first"}
    )
    cursor = BoardCursor(
        metadata={
            "type": "string",
            "pattern": BOARD_CURSOR_PATTERN,
            "description": "the next page: `next_cursor` of the previous one, as it came",
        }
    )

from __future__ import annotations

import marshmallow as ma

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


class LeaderboardSchema(ma.Schema):
    variant = ma.fields.String(required=True, validate=ma.validate.OneOf(domino.PRESETS))
    ratings = ma.fields.List(
        ma.fields.Nested(RatingSchema), required=True, metadata={"description": "best first (by `ordinal`)"}
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
        load_default=100, validate=ma.validate.Range(min=1, max=1000), metadata={"description": "entries to show, best first"}
    )

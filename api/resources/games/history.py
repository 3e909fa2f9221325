"""A game's history, and its record (the history as everyone reads it once the game is over)."""

from __future__ import annotations

import marshmallow as ma

import domino
from api.resources.games.boards import REF
from api.resources.games.schemas import ARCHIVED, GAME_STATUSES, SEAT_KINDS, STATUS_DOC, LastRoundSchema


class HistorySeatSchema(ma.Schema):
    seat = ma.fields.Integer(required=True)
    name = ma.fields.String(required=True, allow_none=True)
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(SEAT_KINDS))
    hints_used = ma.fields.Integer(metadata={"description": "games with `hints` only: the hints this seat asked for"})
    player = ma.fields.String(metadata={"description": "the app's id of the seat's user, when it named one"})
    metadata = ma.fields.Dict(metadata={"description": "the seat's metadata, when it has some"})


class OutcomeSchema(ma.Schema):
    reason = ma.fields.String(required=True, validate=ma.validate.OneOf(["target_score", "fixed_rounds", "resigned", "expired", "aborted"]))
    winners = ma.fields.List(ma.fields.Integer(), required=True)
    team = ma.fields.Integer(required=True, allow_none=True)


class DealSchema(ma.Schema):
    round = ma.fields.Integer(required=True)
    hands = ma.fields.List(ma.fields.List(ma.fields.String()), required=True, metadata={"description": "every seat's deal"})
    boneyard = ma.fields.List(ma.fields.String(), required=True, metadata={"description": "in drawing order"})


class HistoryArenaSchema(ma.Schema):
    id = ma.fields.String(required=True)
    game = ma.fields.Integer(required=True)


class HistorySchema(ma.Schema):
    """Rounds, moves and results; before the end only what the caller may see, after it everything."""

    class Meta:
        unknown = ma.INCLUDE  # members may be added later: ignore those you do not know

    id = ma.fields.String(required=True)
    variant = ma.fields.String(required=True, validate=ma.validate.OneOf(domino.PRESETS))
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(GAME_STATUSES), metadata={"schema": STATUS_DOC})
    version = ma.fields.Integer(required=True)
    seat = ma.fields.Integer(required=True, allow_none=True)
    seats = ma.fields.List(ma.fields.Nested(HistorySeatSchema), required=True)
    rules = ma.fields.Dict(required=True)
    rounds = ma.fields.List(ma.fields.Nested(LastRoundSchema), required=True, metadata={"description": "the finished rounds"})
    events = ma.fields.Raw(
        required=True,
        metadata={
            "schema": {
                "description": "every event but `turn_started`; private details only the caller's seat may see, "
                "until the game is over",
                "type": "array",
                "items": {"$ref": REF + "Event"},
            }
        },
    )
    outcome = ma.fields.Nested(OutcomeSchema, required=True, allow_none=True, metadata={"description": "null until the end"})
    seed_commitment = ma.fields.String(required=True)
    client_seeded = ma.fields.Boolean(required=True)
    deals = ma.fields.List(ma.fields.Nested(DealSchema), metadata={"description": "finished games: every round's deal"})
    seed = ma.fields.String(metadata={"description": "finished games only"})
    salt = ma.fields.String(metadata={"description": "finished games only"})
    deal_version = ma.fields.Integer(
        validate=ma.validate.OneOf(domino.DEAL_VERSIONS),
        metadata={
            "description": "finished games only: the procedure that deals from the seed (2 for new games, 1 for "
            "games made before version 2), so that anyone can redo every deal"
        },
    )
    metadata = ma.fields.Dict(metadata={"description": "the game's metadata, when it was created with some"})
    created_at = ma.fields.Float(
        required=True, metadata={"description": "when the game was created, in seconds since the Unix epoch"}
    )
    arena = ma.fields.Nested(
        HistoryArenaSchema, metadata={"description": "an arena's game: the arena (`id`) and the game's number in it (`game`)"}
    )
    archived = ma.fields.Boolean(
        metadata={"description": f"the history only (a record is the same wherever it is kept): {ARCHIVED}"}
    )

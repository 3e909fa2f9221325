"""The boards of a game view, one schema per family of variants: the line games' line and Mexican Train's
trains."""

from __future__ import annotations

from typing import Any

import marshmallow as ma

REF = "#/components/schemas/"


def nullable_ref(ref: str, description: str) -> dict[str, Any]:
    """One named type or null: generators make one `X | None` (an inline nullable enum makes several)."""
    return {"anyOf": [{"$ref": REF + ref}, {"type": "null"}], "description": description}


class EndsSchema(ma.Schema):
    left = ma.fields.Integer(required=True, allow_none=True, metadata={"description": "the value the left end shows"})
    right = ma.fields.Integer(required=True, allow_none=True)
    up = ma.fields.Integer(allow_none=True, metadata={"description": "All Fives: the spinner's up arm (null until open)"})
    down = ma.fields.Integer(allow_none=True)


class ArmsSchema(ma.Schema):
    up = ma.fields.List(ma.fields.String(), required=True)
    down = ma.fields.List(ma.fields.String(), required=True)


class LineBoardSchema(ma.Schema):
    """The line games' table: tiles left to right, oriented so touching halves match; All Fives adds the
    spinner (also in `line`), its `up`/`down` arms (the tiles beyond its ends) and the current count."""

    class Meta:
        unknown = ma.INCLUDE  # members may be added later: ignore those you do not know

    line = ma.fields.List(ma.fields.String(), required=True, metadata={"example": ["6-6", "6-4", "4-1"]})
    ends = ma.fields.Nested(EndsSchema, required=True)
    spinner = ma.fields.String(allow_none=True, metadata={"description": "All Fives: the spinner tile"})
    spinner_index = ma.fields.Integer(allow_none=True, metadata={"description": "its position in `line`"})
    arms = ma.fields.Nested(
        ArmsSchema, metadata={"description": "All Fives: `up` and `down`, each the tiles outward from the spinner"}
    )
    count = ma.fields.Integer(metadata={"description": "All Fives: the sum of the open ends (scores when a multiple of 5)"})


class TrainSchema(ma.Schema):
    owner = ma.fields.Integer(required=True, allow_none=True, metadata={"description": "the seat it belongs to; null: the Mexican train"})
    tiles = ma.fields.List(ma.fields.String(), required=True, metadata={"description": "from the hub outward, oriented"})
    end = ma.fields.Integer(required=True, metadata={"description": "the value a tile must match (the engine's when empty)"})
    marker = ma.fields.Boolean(required=True, metadata={"description": "open to everyone (always true for the Mexican train)"})


class ActiveDoubleSchema(ma.Schema):
    train = ma.fields.String(required=True, metadata={"example": "train:2"})
    tile = ma.fields.String(required=True, metadata={"example": "7-7"})


TURN_PHASES = ["start", "first", "sequence", "cover", "play", "follow"]


class TrainBoardSchema(ma.Schema):
    """Mexican Train's table: the engine double in the hub and one train per seat plus the Mexican train."""

    class Meta:
        unknown = ma.INCLUDE  # members may be added later: ignore those you do not know

    engine_double = ma.fields.String(required=True, metadata={"example": "12-12"})
    trains = ma.fields.List(ma.fields.Nested(TrainSchema), required=True)
    pending_doubles = ma.fields.List(
        ma.fields.String(), required=True, metadata={"description": "uncovered doubles still to be covered, oldest first"}
    )
    active_double = ma.fields.Nested(
        ActiveDoubleSchema, required=True, allow_none=True, metadata={"description": "the double the seat to move must cover"}
    )
    first_turn_pending = ma.fields.List(
        ma.fields.Integer(), required=True, metadata={"description": "seats yet to take their first turn"}
    )
    phase = ma.fields.String(
        required=True,
        allow_none=True,
        validate=ma.validate.OneOf(TURN_PHASES),
        metadata={"schema": nullable_ref("TurnPhase", "which kind of turn the seat to move has (null: none)")},
    )

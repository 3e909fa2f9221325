from __future__ import annotations

import marshmallow as ma

from api.resources.moves.schemas import MoveSchema


class HintBodySchema(ma.Schema):
    """No members: send no body, or `{}`."""

    class Meta:
        unknown = ma.RAISE


class ValuedMoveSchema(ma.Schema):
    move = ma.fields.Nested(MoveSchema, required=True, metadata={"description": "as in `legal_moves`: post it back as it is"})
    value = ma.fields.Float(
        required=True,
        metadata={
            "description": "the expected final point margin of the current round for the seat's side (its points "
            "minus the best other side's), from what the seat can see, as an analysis values a move"
        },
    )


class HintSchema(ma.Schema):
    version = ma.fields.Integer(
        required=True,
        metadata={"description": "the hint's commit (event `hint_used`): the next move's `expected_version`"},
    )
    seat = ma.fields.Integer(required=True, metadata={"description": "the seat that asked (the token's)"})
    hints_used = ma.fields.Integer(required=True, metadata={"description": "the hints that seat has asked for, this one included"})
    moves = ma.fields.List(
        ma.fields.Nested(ValuedMoveSchema),
        required=True,
        metadata={"description": "every legal move with its value, best first"},
    )

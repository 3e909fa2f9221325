from __future__ import annotations

import marshmallow as ma

from api.resources.moves.schemas import MoveSchema

ANALYSIS_STATUSES = ["queued", "running", "done", "failed"]


class AnalysisBodySchema(ma.Schema):
    """No options: an analysis always uses the service's budget (`DOMINO_ANALYSIS_NODES`)."""

    class Meta:
        unknown = ma.RAISE


class AnalysisQuerySchema(ma.Schema):
    wait = ma.fields.Float(
        load_default=0.0,
        validate=ma.validate.Range(min=0, max=30),
        metadata={"description": "seconds to wait while the analysis is queued or running (a long poll), at most 30"},
    )


class MoveValueSchema(ma.Schema):
    move = ma.fields.Nested(MoveSchema, required=True, metadata={"description": "as `legal_moves` lists it"})
    value = ma.fields.Float(
        required=True,
        metadata={"description": "expected final point margin of the round for the mover's side after this move, "
                  "from the mover's information (docs/analysis.md)"},
    )  # fmt: skip


class AnalysedMoveSchema(ma.Schema):
    version = ma.fields.Integer(required=True, metadata={"description": "the game's version the move made"})
    seat = ma.fields.Integer(required=True)
    played = ma.fields.Nested(MoveSchema, required=True)
    best = ma.fields.Nested(MoveSchema, required=True, metadata={"description": "the legal move of highest value"})
    values = ma.fields.List(
        ma.fields.Nested(MoveValueSchema), required=True, metadata={"description": "every legal move, in `legal_moves` order"}
    )
    loss = ma.fields.Float(required=True, metadata={"description": "value(best) - value(played), in points; never negative"})


class SeatAccuracySchema(ma.Schema):
    seat = ma.fields.Integer(required=True)
    count = ma.fields.Integer(required=True, metadata={"description": "the seat's moves with a choice"})
    mean_loss = ma.fields.Float(required=True, allow_none=True, metadata={"description": "null when `count` is 0"})
    accuracy = ma.fields.Float(
        required=True, allow_none=True,
        metadata={"description": "percentage of the seat's moves with a choice that lost at most 0.5 point"},
    )  # fmt: skip


class AnalysisSchema(ma.Schema):
    game_id = ma.fields.String(required=True)
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(ANALYSIS_STATUSES))
    progress = ma.fields.Float(required=True, metadata={"description": "the share of the moves with a choice analysed, 0 to 1"})
    moves_done = ma.fields.Integer(required=True)
    moves_total = ma.fields.Integer(
        required=True, allow_none=True, metadata={"description": "the game's moves with a choice; null until a worker counted them"}
    )
    nodes = ma.fields.Integer(required=True, metadata={"description": "the search budget per move (simulator moves)"})
    error = ma.fields.String(metadata={"description": "`failed`: why"})
    moves = ma.fields.List(
        ma.fields.Nested(AnalysedMoveSchema), metadata={"description": "`done`: every move with a choice, of every seat, in order"}
    )
    seats = ma.fields.List(ma.fields.Nested(SeatAccuracySchema), metadata={"description": "`done`: one per seat"})

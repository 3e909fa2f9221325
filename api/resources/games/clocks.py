"""A game's clock in the API: a fixed `turn_timeout_s` of at most 14 days, or a Fischer time bank per seat."""

from __future__ import annotations

import marshmallow as ma

from api.resources.common import StrictFloat

MAX_TURN_TIMEOUT = 14 * 24 * 3600  # correspondence play: the longest of Lichess's days per move


class ClockSchema(ma.Schema):
    initial_s = StrictFloat(
        required=True,
        validate=ma.validate.Range(min=10, max=MAX_TURN_TIMEOUT),
        metadata={"description": "each seat's time bank at the start, 10 s to 14 days", "example": 600},
    )
    increment_s = StrictFloat(
        load_default=0.0,
        validate=ma.validate.Range(min=0, max=86400),
        metadata={"description": "added to a seat's bank after each of its turns, 0 to 1 day", "example": 5},
    )


class ClockViewSchema(ma.Schema):
    initial_s = ma.fields.Float(required=True)
    increment_s = ma.fields.Float(required=True)
    remaining = ma.fields.List(
        ma.fields.Float(), required=True, metadata={"description": "each seat's time bank, seconds, at the last commit"}
    )
    turn_started_at = ma.fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "Unix time the seat to move began its turn (its bank runs down from then; null: none runs)"},
    )

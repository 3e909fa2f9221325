from __future__ import annotations

from typing import Any

import marshmallow as ma

from domino.moves import END_PATTERN

TILE_PATTERN = r"^\d{1,2}-\d{1,2}$"


class MoveSchema(ma.Schema):
    """A play, a draw or a pass. A legal move from the view (or a `turn_started` event) can be posted back as
    it is."""

    type = ma.fields.String(required=True, validate=ma.validate.OneOf(["play", "draw", "pass"]))
    tile = ma.fields.String(
        validate=ma.validate.Regexp(TILE_PATTERN), metadata={"description": "plays: the tile, e.g. `6-4`", "example": "6-4"}
    )
    end = ma.fields.String(
        allow_none=True,
        validate=ma.validate.Regexp(END_PATTERN),
        metadata={
            "description": "plays: where. Line games: `left` or `right` (All Fives: also `up`/`down` on the "
            "spinner). Mexican Train: `train:<seat>` (that seat's train) or `mexican` (the Mexican train). Omit "
            "(or null) for the round's opening tile or when only one place fits",
            "example": "left",
        },
    )
    expected_version = ma.fields.Integer(
        strict=True,
        validate=ma.validate.Range(min=0, max=2**53),
        metadata={"description": "optional: 412 unless the game is at this version"},
    )

    @ma.validates_schema
    def _tile_for_plays(self, data: dict[str, Any], **kwargs: object) -> None:
        if data.get("type") == "play" and "tile" not in data:
            raise ma.ValidationError("a play names its tile", "tile")
        if data.get("type") in ("draw", "pass") and ("tile" in data or data.get("end") is not None):
            raise ma.ValidationError(f"a {data['type']} has no tile or end", "tile")


class LogEntrySchema(MoveSchema):
    """A move of the current round, as everyone saw it: the seat and its move (a draw shows no tile)."""

    class Meta:
        exclude = ("expected_version",)

    seat = ma.fields.Integer(required=True)

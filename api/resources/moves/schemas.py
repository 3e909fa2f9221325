from __future__ import annotations

from typing import Any

import marshmallow as ma


class MoveSchema(ma.Schema):
    """A play, a draw or a pass. A legal move from the view can be posted back as it is."""

    type = ma.fields.String(required=True, validate=ma.validate.OneOf(["play", "draw", "pass"]))
    tile = ma.fields.String(
        validate=ma.validate.Length(min=1, max=8), metadata={"description": "plays: the tile, e.g. `6-4`"}
    )
    end = ma.fields.String(
        allow_none=True,
        validate=ma.validate.Length(min=1, max=16),
        metadata={"description": "`left`/`right` (`up`/`down` on the spinner); omit for the opening or when only one place fits"},
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

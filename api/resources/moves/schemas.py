from __future__ import annotations

import inspect
import re
from typing import Any

import marshmallow as ma
from apispec import APISpec

from api.resources.common import WholeNumber
from domino.moves import END_PATTERN

TILE_PATTERN = r"^[0-9]{1,2}-[0-9]{1,2}$"  # ASCII digits: Python's \\d also takes "٥"
MAX_VERSION = 2**53  # a version a JSON number holds exactly


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
    expected_version = WholeNumber(
        validate=ma.validate.Range(min=0, max=MAX_VERSION),
        metadata={
            "description": "optional: 412 unless the game is at this version; with `If-Match` too, both name the "
            "same version (else 422 `invalid-request`)"
        },
    )

    @ma.validates_schema
    def _tile_for_plays(self, data: dict[str, Any], **kwargs: object) -> None:
        if data.get("type") == "play" and "tile" not in data:
            raise ma.ValidationError("a play names its tile", "tile")
        if data.get("type") in ("draw", "pass") and ("tile" in data or "end" in data):
            raise ma.ValidationError(f"a {data['type']} has no tile or end", "tile")


MOVE_FIELDS = tuple(MoveSchema._declared_fields)  # in the order MoveSchema loads them
_FIELD_SET = frozenset(MOVE_FIELDS)
_TILE, _END = re.compile(TILE_PATTERN), re.compile(END_PATTERN)


def well_formed_move(body: Any) -> dict[str, Any] | None:
    """``body`` as MoveSchema loads it, when it is a move with nothing wrong (a move's usual body, checked in a
    few comparisons instead of a schema load); None for any other body, which MoveSchema then loads, with its
    own messages when it refuses it. Stricter than MoveSchema, never looser (``"6-4\\n"`` or
    ``17.0`` are left to it)."""
    if type(body) is not dict or not body.keys() <= _FIELD_SET:
        return None
    version = body.get("expected_version", 0)
    if type(version) is not int or not 0 <= version <= MAX_VERSION:
        return None
    kind = body.get("type")
    if kind == "play":
        tile, end = body.get("tile"), body.get("end")
        if type(tile) is not str or not _TILE.fullmatch(tile):
            return None
        if end is not None and (type(end) is not str or not _END.fullmatch(end)):
            return None
    elif kind not in ("draw", "pass") or "tile" in body or "end" in body:
        return None
    move = {}  # in MoveSchema's order (a loop: a comprehension is a function call of its own)
    for name in MOVE_FIELDS:
        if name in body:
            move[name] = body[name]
    return move


class PlayMoveSchema(MoveSchema):
    """A play: a tile, and where it goes."""

    type = ma.fields.String(required=True, validate=ma.validate.OneOf(["play"]))
    tile = ma.fields.String(required=True, validate=ma.validate.Regexp(TILE_PATTERN), metadata=MoveSchema._declared_fields["tile"].metadata)


class DrawOrPassSchema(MoveSchema):
    """A draw from the boneyard, or a pass: nothing more."""

    class Meta:
        exclude = ("tile", "end")

    type = ma.fields.String(required=True, validate=ma.validate.OneOf(["draw", "pass"]))


def document(spec: APISpec) -> None:
    """`Move` is one of `PlayMove` and `DrawOrPass` (MoveSchema checks the same when it loads a move)."""
    spec.components.schema("PlayMove", {"description": PlayMoveSchema.__doc__}, schema=PlayMoveSchema)
    spec.components.schema("DrawOrPass", {"description": DrawOrPassSchema.__doc__}, schema=DrawOrPassSchema)
    spec.components.schemas["Move"] = {
        "description": (MoveSchema.__doc__ or "").replace("\n   ", ""),
        "oneOf": [{"$ref": "#/components/schemas/PlayMove"}, {"$ref": "#/components/schemas/DrawOrPass"}],
        "discriminator": {
            "propertyName": "type",
            "mapping": {t: f"#/components/schemas/{'PlayMove' if t == 'play' else 'DrawOrPass'}" for t in ("play", "draw", "pass")},
        },
    }
    minimal = {"description": inspect.cleandoc(MinimalViewSchema.__doc__ or "")}
    spec.components.schema("MinimalGameView", minimal, schema=MinimalViewSchema)
    spec.components.schemas["MoveAnswer"] = {
        "description": "The seat's new `GameView`; with `Prefer: return=minimal`, a `MinimalGameView`.",
        "anyOf": [{"$ref": "#/components/schemas/GameView"}, {"$ref": "#/components/schemas/MinimalGameView"}],
    }


class MinimalViewSchema(ma.Schema):
    """A move's answer under `Prefer: return=minimal`: only which game, its new version, whose view and the
    game's status (the events carry the rest)."""

    class Meta:
        unknown = ma.INCLUDE  # members may be added later: ignore those you do not know

    id = ma.fields.String(required=True)
    variant = ma.fields.String(required=True, metadata={"description": "the preset"})
    version = ma.fields.Integer(required=True, metadata={"description": "the game's version after the move"})
    seat = ma.fields.Integer(required=True, metadata={"description": "the seat that moved"})
    status = ma.fields.String(required=True, metadata={"schema": {"$ref": "#/components/schemas/GameStatus"}})


class LogEntrySchema(MoveSchema):
    """A move of the current round, as everyone saw it: the seat and its move (a draw shows no tile)."""

    class Meta:
        exclude = ("expected_version",)

    seat = ma.fields.Integer(required=True)

from __future__ import annotations

import marshmallow as ma

import domino
from api.resources.common import PLAYER_PATTERN, name_field, player_field
from api.resources.games.schemas import GAME_STATUSES, SEAT_KINDS, STATUS_DOC, GameViewSchema



class ClaimSeatSchema(ma.Schema):
    name = name_field("the claimant's name, 1-40 characters, no control characters", "Bo", required=True)


class ResignSchema(ma.Schema):
    seat = ma.fields.Integer(
        strict=True,
        metadata={
            "description": "with the owning app's key: the seat it resigns (required then); a seat token resigns its "
            "own seat and sends no body"
        },
    )


class ClaimedSeatSchema(ma.Schema):
    game = ma.fields.Nested(GameViewSchema, required=True, metadata={"description": "the claimed seat's view"})
    seat = ma.fields.Integer(required=True)
    token = ma.fields.String(required=True, metadata={"description": "shown once; send as `Authorization: Bearer <token>`"})
    client_seeded = ma.fields.Boolean(
        required=True,
        metadata={
            "description": "`true`: the game's creator chose its seed and can know every hand, yours included, "
            "and the draw order (such a game is never listed in the lobby; its link was shared with you)"
        },
    )


class LobbyQuerySchema(ma.Schema):
    owner = ma.fields.String(
        validate=ma.validate.OneOf(["me"]),
        metadata={
            "description": "`me`: the games the calling app created (its app key is needed), of any status, "
            "newest first; without it, the lobby"
        },
    )
    status = ma.fields.String(
        validate=ma.validate.OneOf(GAME_STATUSES),
        metadata={
            "description": "the lobby: only `waiting` (the default; another status is a 422 without `owner`), listed "
            "games with an open seat; with `owner=me`: only the app's games of this status (default: any)",
            "schema": STATUS_DOC,
        },
    )
    player = player_field("with `owner=me` only (422 without it): the games in which a seat names this player")
    to_move = ma.fields.Boolean(
        metadata={
            "description": "with `owner=me` and `player` only (422 otherwise): only the games in which it is that "
            "player's turn, soonest deadline first (games without one after them, oldest first); pages follow "
            "`cursor`"
        }
    )
    cursor = ma.fields.String(
        validate=ma.validate.Length(min=1, max=400),
        metadata={
            "description": "where the next page starts: `next_cursor` of the previous page, as given (opaque; exact "
            "where games share a creation time, which `before` is not). Not with `before`."
        },
    )
    limit = ma.fields.Integer(load_default=20, validate=ma.validate.Range(min=1, max=100))
    before = ma.fields.Float(
        validate=ma.validate.Range(min=0, max=1e12),
        metadata={"description": "the games created strictly before this Unix time (`next_before` of the previous page)"},
    )


class LobbySeatSchema(ma.Schema):
    seat = ma.fields.Integer(required=True)
    name = ma.fields.String(required=True, allow_none=True, metadata={"description": "null for an open seat"})
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(SEAT_KINDS))
    player = ma.fields.String(metadata={"description": "the app's id of the seat's user, when it named one"})
    metadata = ma.fields.Dict(metadata={"description": "the seat's metadata, when it has some"})
    hints_used = ma.fields.Integer(metadata={"description": "games with `hints` only: the hints this seat asked for"})


class LobbyGameSchema(ma.Schema):
    id = ma.fields.String(required=True)
    variant = ma.fields.String(required=True, validate=ma.validate.OneOf(domino.PRESETS))
    rules = ma.fields.Dict(required=True, metadata={"description": "the resolved options"})
    status = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(GAME_STATUSES),
        metadata={"description": "`waiting` in the lobby; any in an app's listing", "schema": STATUS_DOC},
    )
    version = ma.fields.Integer(required=True)
    created_at = ma.fields.Float(required=True, metadata={"description": "Unix time"})
    seats = ma.fields.List(ma.fields.Nested(LobbySeatSchema), required=True)
    open_seats = ma.fields.List(
        ma.fields.Integer(), required=True, metadata={"description": "claim one with POST .../seats/{seat}"}
    )
    turn_timeout_s = ma.fields.Float(required=True, allow_none=True)
    client_seeded = ma.fields.Boolean(required=True)
    round = ma.fields.Integer(metadata={"description": "`owner=me` only: the round being played (or the last)"})
    scores = ma.fields.List(ma.fields.Integer(), metadata={"description": "`owner=me` only: per seat"})
    winners = ma.fields.List(ma.fields.Integer(), metadata={"description": "`owner=me` only: seats; empty until the end"})
    metadata = ma.fields.Dict(
        allow_none=True, metadata={"description": "`owner=me` only: the game's metadata (null: none)"}
    )
    turn = ma.fields.Integer(
        allow_none=True, metadata={"description": "`owner=me` only: the seat to move (null: waiting or over)"}
    )
    deadline = ma.fields.Float(
        allow_none=True, metadata={"description": "`owner=me` only: Unix time by which it moves (null: no clock)"}
    )


class LobbyPageSchema(ma.Schema):
    games = ma.fields.List(ma.fields.Nested(LobbyGameSchema), required=True, metadata={"description": "newest first"})
    next_before = ma.fields.Float(
        required=True, allow_none=True, metadata={"description": "pass as `before` for the next page; null on the last page"}
    )
    next_cursor = ma.fields.String(
        required=True, allow_none=True, metadata={"description": "pass as `cursor` for the next page; null on the last page"}
    )
    next = ma.fields.String(required=True, allow_none=True, metadata={"description": "the next page's URL, or null"})

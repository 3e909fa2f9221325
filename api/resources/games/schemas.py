from __future__ import annotations

from typing import Any

import marshmallow as ma

from api.resources.common import no_control_chars
from api.service.webhooks import check_url


class SeatSchema(ma.Schema):
    """A human (`name`) or a computer player (`bot`); exactly one of the two."""

    name = ma.fields.String(
        validate=[ma.validate.Length(min=1, max=40), no_control_chars],
        metadata={"description": "a human's name, 1-40 characters, no control characters", "example": "Ana"},
    )
    bot = ma.fields.String(
        validate=ma.validate.Length(min=1, max=64),
        metadata={"description": "a strategy id from `GET /v1/bots`", "example": "greedy"},
    )
    think_ms = ma.fields.Integer(
        validate=ma.validate.Range(min=1, max=1000),
        metadata={
            "description": "with `bot`: milliseconds the computer player may think per move (default: the "
            "strategy's own, see `GET /v1/bots`)",
            "example": 100,
        },
    )
    open = ma.fields.Boolean(
        metadata={"description": "`true`: an open seat, claimed later with `POST /v1/games/{id}/seats/{seat}`"}
    )
    webhook = ma.fields.String(
        validate=ma.validate.Length(min=1, max=2000),
        metadata={
            "description": "with `name`: a hosted bot. On its turn a worker POSTs its view here, signed as Standard "
            "Webhooks with the seat's `webhook_secret` (returned once in `tokens`); the protocol: docs/hosted-bots.md",
            "example": "https://bots.example.com/domino",
        },
    )

    @ma.validates_schema
    def _one_kind(self, data: dict[str, Any], **kwargs: object) -> None:
        if sum(1 for k in ("name", "bot") if k in data) + (1 if data.get("open") else 0) != 1:
            raise ma.ValidationError("a seat has exactly one of `name`, `bot` or `open: true`")
        if "think_ms" in data and "bot" not in data:
            raise ma.ValidationError("only a computer player (`bot`) has a think time", "think_ms")
        if "webhook" in data:
            if "name" not in data:
                raise ma.ValidationError("a hosted bot has a `name` and a `webhook`", "webhook")
            problem = check_url(data["webhook"])
            if problem:
                raise ma.ValidationError(problem, "webhook")


class CreateGameSchema(ma.Schema):
    variant = ma.fields.String(
        required=True,
        validate=ma.validate.Length(min=1, max=64),
        metadata={"description": "a preset from `GET /v1/variants` (its rules: docs/rules.md)"},
    )
    rules = ma.fields.Dict(
        keys=ma.fields.String(validate=ma.validate.Length(max=64)),
        load_default=dict,
        metadata={"description": "option overrides (docs/rules.md#options); `players` comes from the seats"},
    )
    seats = ma.fields.List(
        ma.fields.Nested(SeatSchema),
        required=True,
        validate=ma.validate.Length(min=2, max=10),
        metadata={"description": "2-4 seats for line games, 2-10 for Mexican Train"},
    )
    seed = ma.fields.String(
        validate=ma.validate.Length(min=1, max=256),
        metadata={"description": "optional; the game is then marked `client_seeded`"},
    )
    unlisted = ma.fields.Boolean(load_default=False, metadata={"description": "`true`: never in the lobby"})
    turn_timeout_s = ma.fields.Float(
        allow_none=True,
        validate=ma.validate.Range(min=0, max=7 * 24 * 3600, min_inclusive=False),
        metadata={
            "description": "seconds a human or hosted-bot seat has for each move; past it the server moves for "
            "it (the events say `auto: true`). Views and events carry the `deadline`",
            "example": 60,
        },
    )


class ViewSeatSchema(ma.Schema):
    seat = ma.fields.Integer()
    name = ma.fields.String(allow_none=True, metadata={"description": "null for an open seat"})
    kind = ma.fields.String(metadata={"enum": ["human", "bot", "hosted", "open"]})
    hand_count = ma.fields.Integer()


class EndsSchema(ma.Schema):
    left = ma.fields.Integer(allow_none=True, metadata={"description": "the value the left end shows"})
    right = ma.fields.Integer(allow_none=True)
    up = ma.fields.Integer(allow_none=True, metadata={"description": "All Fives: the spinner's up arm (null until open)"})
    down = ma.fields.Integer(allow_none=True)


class LineBoardSchema(ma.Schema):
    """The line games' table: tiles left to right, oriented so touching halves match; All Fives adds the
    spinner (also in `line`), its `up`/`down` arms (the tiles beyond its ends) and the current count."""

    class Meta:
        unknown = ma.INCLUDE

    line = ma.fields.List(ma.fields.String(), required=True, metadata={"example": ["6-6", "6-4", "4-1"]})
    ends = ma.fields.Nested(EndsSchema, required=True)
    spinner = ma.fields.String(allow_none=True, metadata={"description": "All Fives: the spinner tile"})
    spinner_index = ma.fields.Integer(allow_none=True, metadata={"description": "its position in `line`"})
    arms = ma.fields.Dict(
        keys=ma.fields.String(), values=ma.fields.List(ma.fields.String()),
        metadata={"description": "All Fives: `up` and `down`, each the tiles outward from the spinner"},
    )  # fmt: skip
    count = ma.fields.Integer(metadata={"description": "All Fives: the sum of the open ends (scores when a multiple of 5)"})


class TrainSchema(ma.Schema):
    owner = ma.fields.Integer(allow_none=True, metadata={"description": "the seat it belongs to; null: the Mexican train"})
    tiles = ma.fields.List(ma.fields.String(), metadata={"description": "from the hub outward, oriented"})
    end = ma.fields.Integer(metadata={"description": "the value a tile must match (the engine's when empty)"})
    marker = ma.fields.Boolean(metadata={"description": "open to everyone (always true for the Mexican train)"})


class ActiveDoubleSchema(ma.Schema):
    train = ma.fields.String(metadata={"example": "train:2"})
    tile = ma.fields.String(metadata={"example": "7-7"})


class TrainBoardSchema(ma.Schema):
    """Mexican Train's table: the engine double in the hub and one train per seat plus the Mexican train."""

    class Meta:
        unknown = ma.INCLUDE

    engine_double = ma.fields.String(required=True, metadata={"example": "12-12"})
    trains = ma.fields.List(ma.fields.Nested(TrainSchema), required=True)
    pending_doubles = ma.fields.List(
        ma.fields.String(), metadata={"description": "uncovered doubles still to be covered, oldest first"}
    )
    active_double = ma.fields.Nested(
        ActiveDoubleSchema, allow_none=True, metadata={"description": "the double the seat to move must cover"}
    )
    first_turn_pending = ma.fields.List(ma.fields.Integer(), metadata={"description": "seats yet to take their first turn"})
    phase = ma.fields.String(
        allow_none=True, metadata={"enum": ["start", "first", "sequence", "cover", "play", "follow", None], "description": "which kind of turn the seat to move has"}
    )


class GameViewSchema(ma.Schema):
    """A seat's or the spectator's view of a game."""

    class Meta:
        unknown = ma.INCLUDE

    id = ma.fields.String()
    variant = ma.fields.String()
    rules = ma.fields.Dict(metadata={"description": "the resolved options (docs/rules.md#options)"})
    status = ma.fields.String(metadata={"enum": ["waiting", "playing", "finished", "aborted"]})
    version = ma.fields.Integer()
    round = ma.fields.Integer()
    turn = ma.fields.Integer(allow_none=True)
    seat = ma.fields.Integer(allow_none=True, metadata={"description": "whose view this is; null: a spectator"})
    seats = ma.fields.List(ma.fields.Nested(ViewSeatSchema))
    scores = ma.fields.List(ma.fields.Integer())
    team_scores = ma.fields.List(ma.fields.Integer(), allow_none=True)
    boneyard_count = ma.fields.Integer()
    out_of_play_count = ma.fields.Integer()
    board = ma.fields.Dict(
        metadata={
            "description": "everything on the table, each tile once: a line game's `LineBoard` or Mexican Train's "
            "`TrainBoard`",
            "oneOf": [{"$ref": "#/components/schemas/LineBoard"}, {"$ref": "#/components/schemas/TrainBoard"}],
        }
    )
    log = ma.fields.List(ma.fields.Dict(), metadata={"description": "the current round's public moves"})
    hand = ma.fields.List(ma.fields.String(), metadata={"description": "seat views only"})
    legal_moves = ma.fields.List(ma.fields.Dict(), metadata={"description": "seat views only; [] when not its turn"})
    last_round = ma.fields.Dict(allow_none=True)
    winners = ma.fields.List(ma.fields.Integer())
    seed_commitment = ma.fields.String(metadata={"description": "SHA-256 hex of `<seed>:<salt>`"})
    client_seeded = ma.fields.Boolean()
    turn_timeout_s = ma.fields.Float(allow_none=True, metadata={"description": "seconds per move, or null"})
    deadline = ma.fields.Float(
        allow_none=True, metadata={"description": "Unix time by which the seat to move must move (null: no clock)"}
    )


class TokenSchema(ma.Schema):
    seat = ma.fields.Integer()
    token = ma.fields.String(metadata={"description": "shown once; send as `Authorization: Bearer <token>`"})
    webhook_secret = ma.fields.String(
        metadata={"description": "hosted bots only, shown once: `whsec_...`, verifies the webhook signatures"}
    )


class CreatedGameSchema(ma.Schema):
    game = ma.fields.Nested(GameViewSchema)
    tokens = ma.fields.List(ma.fields.Nested(TokenSchema))


class HistorySchema(ma.Schema):
    """Rounds, moves and results; before the end only what the caller may see, after it everything."""

    class Meta:
        unknown = ma.INCLUDE

    id = ma.fields.String()
    variant = ma.fields.String()
    status = ma.fields.String()
    version = ma.fields.Integer()
    seat = ma.fields.Integer(allow_none=True)
    seats = ma.fields.List(ma.fields.Dict())
    rules = ma.fields.Dict()
    rounds = ma.fields.List(ma.fields.Dict(), metadata={"description": "results of the finished rounds"})
    events = ma.fields.Raw(
        metadata={
            "description": "every event but `turn_started`; private details only the caller's seat may see, "
            "until the game is over",
            "type": "array",
            "items": {"$ref": "#/components/schemas/Event"},
        }
    )
    outcome = ma.fields.Dict(allow_none=True)
    seed_commitment = ma.fields.String()
    client_seeded = ma.fields.Boolean()
    deals = ma.fields.List(ma.fields.Dict(), metadata={"description": "finished games: every round's deal"})
    seed = ma.fields.String(metadata={"description": "finished games only"})
    salt = ma.fields.String(metadata={"description": "finished games only"})


VIEW_EXAMPLE = {
    "id": "h4k2mzq7c3x9b2rt",
    "variant": "draw",
    "rules": {"hand_size": 7, "target_score": 100},
    "status": "playing",
    "version": 17,
    "round": 2,
    "turn": 0,
    "seat": 0,
    "seats": [
        {"seat": 0, "name": "Ana", "kind": "human", "hand_count": 2},
        {"seat": 1, "name": "greedy", "kind": "bot", "hand_count": 6},
    ],
    "scores": [12, 40],
    "team_scores": None,
    "boneyard_count": 9,
    "out_of_play_count": 0,
    "board": {"line": ["6-6", "6-4", "4-1"], "ends": {"left": 6, "right": 1}},
    "log": [{"seat": 1, "type": "play", "tile": "4-1", "end": "right"}, {"seat": 0, "type": "draw"}],
    "hand": ["5-2", "3-3"],
    "legal_moves": [{"type": "draw"}],
    "last_round": {"round": 1, "end": "domino", "pips_left": [0, 17], "hands": [[], ["6-6", "3-2"]], "points": [17, 0]},
    "winners": [],
    "seed_commitment": "9f2c5e0d3b8a4c61e7f0a9b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6",
    "client_seeded": False,
}

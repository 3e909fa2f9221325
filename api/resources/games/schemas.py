from __future__ import annotations

import inspect
from typing import Any

import marshmallow as ma
from apispec import APISpec

import domino
from api.resources.common import Metadata, StrictBoolean, StrictFloat, WholeNumber, bot_ids, name_field, one_clock, player_field
from api.resources.games.clocks import MAX_TURN_TIMEOUT, ClockSchema, ClockViewSchema
from api.resources.games.boards import REF, TURN_PHASES, LineBoardSchema, TrainBoardSchema
from api.resources.moves.schemas import LogEntrySchema, MoveSchema
from api.resources.variants.schemas import RULES_SCHEMA, rules_by_variant
from api.service.registered_bots import BOT_NAME_PATTERN
from api.service.webhooks import check_url


SEAT_KINDS = ["human", "bot", "hosted", "registered", "open"]


def _bot(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=ma.validate.Regexp(BOT_NAME_PATTERN),
        metadata={
            "description": f"an `id` from `GET /v1/bots`: a computer player ({', '.join(bot_ids())}) or a registered "
            "bot's name (seated only with its owner's app key, else 403; only in a variant it plays, while "
            "available, once per game; it moves with its own token, so its seat gets none)",
            "pattern": BOT_NAME_PATTERN,
            "example": "greedy",
        },
        **kwargs,
    )


def _think_ms() -> ma.fields.Integer:
    return WholeNumber(
        validate=ma.validate.Range(min=1, max=1000),
        metadata={
            "description": "milliseconds the computer player may think per move (default: the strategy's own, "
            "see `GET /v1/bots`); at most 250 in a game of computer players only (`DOMINO_BOT_GAME_MAX_THINK_MS`), "
            "which also caps `target_score` (250) and `rounds` (16)",
            "example": 100,
        },
    )


def _open(**kwargs: Any) -> StrictBoolean:
    return StrictBoolean(
        validate=ma.validate.Equal(True),
        metadata={"description": "`true`: claimed later with `POST /v1/games/{id}/seats/{seat}`", "enum": [True]},
        **kwargs,
    )


# An http(s) URL naming a host (a DNS name or an IPv4 address) and no credentials, in printable ASCII.
_PORT = r"6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}"  # 1 to 65535
WEBHOOK_PATTERN = rf"^https?://[A-Za-z0-9.-]+(:({_PORT}))?([/?#][!-~]*)?$"


def _webhook() -> ma.fields.String:
    return ma.fields.String(
        validate=[ma.validate.Length(min=1, max=2000), ma.validate.Regexp(WEBHOOK_PATTERN)],
        metadata={
            "pattern": WEBHOOK_PATTERN,
            "description": "a hosted bot: on its turn a worker POSTs a `turn` delivery here (see `webhooks` in "
            "this document), signed as Standard Webhooks with the seat's `webhook_secret` (returned once in "
            "`tokens`); the protocol: docs/hosted-bots.md",
            "example": "https://bots.example.com/domino",
        },
    )


def _name(**kwargs: Any) -> ma.fields.String:
    return name_field("a human's (or hosted bot's) name, 1-40 characters, no control characters", "Ana", **kwargs)


class SeatSchema(ma.Schema):
    """A human (`name`; with `webhook` a hosted bot), a computer player (`bot`) or an open seat (`open: true`):
    exactly one of the three. Documented as the `oneOf` of `HumanSeat`, `BotSeat` and `OpenSeat`."""

    name = _name()
    webhook = _webhook()
    bot = _bot()
    think_ms = _think_ms()
    open = _open()
    player = player_field()
    metadata = Metadata("the seat's")

    @ma.validates_schema
    def _one_kind(self, data: dict[str, Any], **kwargs: object) -> None:
        if sum(1 for k in ("name", "bot", "open") if k in data) != 1:
            raise ma.ValidationError("a seat has exactly one of `name`, `bot` or `open: true`")
        if "think_ms" in data and "bot" not in data:
            raise ma.ValidationError("only a computer player (`bot`) has a think time", "think_ms")
        if "webhook" in data:
            if "name" not in data:
                raise ma.ValidationError("a hosted bot has a `name` and a `webhook`", "webhook")
            problem = check_url(data["webhook"])
            if problem:
                raise ma.ValidationError(problem, "webhook")


class HumanSeatSchema(ma.Schema):
    """A human, or with `webhook` a hosted bot."""

    name = _name(required=True)
    webhook = _webhook()
    player = player_field()
    metadata = Metadata("the seat's")


class BotSeatSchema(ma.Schema):
    """A computer player."""

    bot = _bot(required=True)
    think_ms = _think_ms()
    player = player_field()
    metadata = Metadata("the seat's")


class OpenSeatSchema(ma.Schema):
    """An open seat, claimed later (its `player` and `metadata` stay with it)."""

    open = _open(required=True)
    player = player_field()
    metadata = Metadata("the seat's")


SEAT_DOCS = {"HumanSeat": HumanSeatSchema, "BotSeat": BotSeatSchema, "OpenSeat": OpenSeatSchema}


class CreateGameSchema(ma.Schema):
    variant = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(domino.PRESETS),
        metadata={"description": "a preset from `GET /v1/variants` (its rules: docs/rules.md)"},
    )
    rules = ma.fields.Dict(
        keys=ma.fields.String(validate=ma.validate.Length(max=64)),
        load_default=dict,
        metadata={"schema": {**RULES_SCHEMA, "description": "option overrides; `players` comes from the seats"}},
    )
    seats = ma.fields.List(
        ma.fields.Nested(SeatSchema),
        required=True,
        validate=ma.validate.Length(min=2, max=10),
        metadata={
            "schema": {
                "type": "array",
                "minItems": 2,
                "maxItems": 10,
                "description": "2-4 seats for line games, 2-10 for Mexican Train; each exactly one kind",
                "items": {"oneOf": [{"$ref": REF + name} for name in SEAT_DOCS]},
            }
        },
    )
    seed = ma.fields.String(
        validate=ma.validate.Length(min=1, max=256),
        metadata={
            "description": "optional; the game is then marked `client_seeded` (its creator can know every hand) "
            "and is never listed in the lobby"
        },
    )
    unlisted = StrictBoolean(
        load_default=False, metadata={"description": "`true`: never in the lobby (a game with a `seed` never is)"}
    )
    rated = StrictBoolean(
        load_default=False,
        metadata={
            "description": "`true`: when the game ends, its players' ratings in this variant are updated, once "
            "(`GET /v1/ratings/{variant}`). Every seat must be a player that can be rated: a computer player "
            "(`bot`: built-in or registered) or an app's player (a seat with `player`); no `seed` (422 otherwise)"
        },
    )
    hints = StrictBoolean(
        load_default=False,
        metadata={
            "description": "`true`: a practice game; the seat to move may ask for its legal moves valued "
            "(`POST /v1/games/{id}/hint`), each hint seen by everyone (event `hint_used`, `hints_used` per seat). "
            "Never with `rated` (422)"
        },
    )
    metadata = Metadata("the game's")
    turn_timeout_s = StrictFloat(
        allow_none=True,
        validate=ma.validate.Range(min=0, max=MAX_TURN_TIMEOUT, min_inclusive=False),
        metadata={
            "schema": {
                "type": ["number", "null"],
                "minimum": 1,
                "maximum": MAX_TURN_TIMEOUT,
                "description": "seconds a human or hosted-bot seat has for each move, up to 14 days (correspondence "
                "play); past it the server moves for it (the events say `auto: true`). Views and events carry the "
                "`deadline`; the game lives at least until then. The least a server accepts is its "
                "`DOMINO_MIN_TURN_TIMEOUT` (1 s unless configured)",
                "example": 60,
            }
        },
    )
    clock = ma.fields.Nested(
        ClockSchema,
        allow_none=True,
        metadata={
            "description": "a Fischer clock instead of `turn_timeout_s` (not both: 422): each human or hosted seat has a "
            "time bank; its turn's `deadline` is when the bank runs out, then the server moves for it; after each "
            "turn the seat gets `increment_s`"
        },
    )

    @ma.validates_schema
    def _one_clock(self, data: dict[str, Any], **kwargs: object) -> None:
        one_clock(data, "a game")


class ViewSeatSchema(ma.Schema):
    seat = ma.fields.Integer(required=True)
    name = ma.fields.String(required=True, allow_none=True, metadata={"description": "null for an open seat"})
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(SEAT_KINDS))
    hand_count = ma.fields.Integer(required=True, allow_none=True, metadata={"description": "tiles in that seat's hand"})
    hints_used = ma.fields.Integer(metadata={"description": "games with `hints` only: the hints this seat asked for"})
    player = ma.fields.String(metadata={"description": "the app's id of the seat's user, when it named one"})
    metadata = ma.fields.Dict(metadata={"description": "the seat's metadata, when it has some"})


class LastRoundSchema(ma.Schema):
    """A finished round: how it ended, every hand revealed, and what each seat gained."""

    round = ma.fields.Integer(required=True)
    end = ma.fields.String(required=True, validate=ma.validate.OneOf(["domino", "blocked", "abandoned"]))
    winner = ma.fields.Integer(required=True, allow_none=True, metadata={"description": "null: a tie, or abandoned"})
    pips_left = ma.fields.List(ma.fields.Integer(), required=True, metadata={"description": "per seat"})
    hands = ma.fields.List(ma.fields.List(ma.fields.String()), required=True, metadata={"description": "every seat's hand"})
    points = ma.fields.List(ma.fields.Integer(), required=True, metadata={"description": "what each seat gained"})
    award = ma.fields.List(ma.fields.Integer(), required=True, metadata={"description": "the end-of-round part of `points`"})
    why = ma.fields.String(required=True)
    team = ma.fields.Integer(metadata={"description": "team games: the team that won the round (absent on a tie)"})


GAME_STATUSES = ["waiting", "playing", "finished", "aborted"]
STATUS_DOC = {"$ref": REF + "GameStatus"}


ARCHIVED = (
    "the archive holds the finished game (the only change to a view without a new version: the `ETag` then ends "
    "in `.a`); a finished game is read from the archive once Redis has let it go (`DOMINO_ARCHIVED_TTL`)"
)


class GameViewSchema(ma.Schema):
    """A seat's or the spectator's view of a game."""

    class Meta:
        unknown = ma.INCLUDE  # members may be added later: ignore those you do not know

    id = ma.fields.String(required=True)
    variant = ma.fields.String(required=True, validate=ma.validate.OneOf(domino.PRESETS))
    rules = ma.fields.Dict(required=True, metadata={"description": "the resolved options (docs/rules.md#options)"})
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(GAME_STATUSES), metadata={"schema": STATUS_DOC})
    version = ma.fields.Integer(required=True)
    round = ma.fields.Integer(required=True)
    turn = ma.fields.Integer(required=True, allow_none=True)
    seat = ma.fields.Integer(required=True, allow_none=True, metadata={"description": "whose view this is; null: a spectator"})
    seats = ma.fields.List(ma.fields.Nested(ViewSeatSchema), required=True)
    scores = ma.fields.List(ma.fields.Integer(), required=True)
    team_scores = ma.fields.List(ma.fields.Integer(), required=True, allow_none=True)
    boneyard_count = ma.fields.Integer(required=True)
    out_of_play_count = ma.fields.Integer(required=True)
    board = ma.fields.Dict(
        required=True,
        metadata={
            "schema": {
                "description": "everything on the table, each tile once: a line game's `LineBoard` or Mexican "
                "Train's `TrainBoard`",
                "oneOf": [{"$ref": REF + "LineBoard"}, {"$ref": REF + "TrainBoard"}],
            }
        },
    )
    log = ma.fields.List(ma.fields.Nested(LogEntrySchema), required=True, metadata={"description": "the current round's public moves"})
    hand = ma.fields.List(ma.fields.String(), metadata={"description": "seat views only"})
    legal_moves = ma.fields.List(
        ma.fields.Nested(MoveSchema), metadata={"description": "seat views only; [] when not its turn"}
    )
    last_round = ma.fields.Nested(LastRoundSchema, required=True, allow_none=True, metadata={"description": "null in round 1"})
    winners = ma.fields.List(ma.fields.Integer(), required=True)
    seed_commitment = ma.fields.String(required=True, metadata={"description": "SHA-256 hex of `<seed>:<salt>`"})
    client_seeded = ma.fields.Boolean(
        required=True,
        metadata={"description": "the creator chose the seed, so it can know every hand and the draw order"},
    )
    rated = ma.fields.Boolean(
        required=True,
        metadata={"description": "its end updates its players' ratings (`GET /v1/ratings/{variant}`)"},
    )
    hints = ma.fields.Boolean(
        required=True,
        metadata={"description": "a practice game with hints (`POST .../hint`): each seat's `hints_used` is in `seats`"},
    )
    turn_timeout_s = ma.fields.Float(required=True, allow_none=True, metadata={"description": "seconds per move, or null"})
    clock = ma.fields.Nested(
        ClockViewSchema,
        required=True,
        allow_none=True,
        metadata={"description": "a Fischer clock's banks as of the last commit (null: none); clients count down"},
    )
    deadline = ma.fields.Float(
        required=True, allow_none=True, metadata={"description": "Unix time by which the seat to move must move (null: no clock)"}
    )
    metadata = ma.fields.Dict(metadata={"description": "the game's metadata, when it was created with some"})
    next_game_id = ma.fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "after it finished: the game its table plays next (`POST .../rematch`; event `rematch_created`)"},
    )
    archived = ma.fields.Boolean(required=True, metadata={"description": ARCHIVED})


class TokenSchema(ma.Schema):
    seat = ma.fields.Integer(required=True)
    token = ma.fields.String(required=True, metadata={"description": "shown once; send as `Authorization: Bearer <token>`"})
    webhook_secret = ma.fields.String(
        metadata={"description": "hosted bots only, shown once: `whsec_...`, verifies the webhook signatures"}
    )


class CreatedGameSchema(ma.Schema):
    game = ma.fields.Nested(GameViewSchema, required=True)
    tokens = ma.fields.List(ma.fields.Nested(TokenSchema), required=True)


def document(spec: APISpec) -> None:
    """The named types the schemas above refer to by reference (`$ref`) only."""
    spec.components.schema("LineBoard", schema=LineBoardSchema)
    spec.components.schema("TrainBoard", schema=TrainBoardSchema)
    for name, schema in SEAT_DOCS.items():
        spec.components.schema(name, {"description": inspect.cleandoc(schema.__doc__ or "")}, schema=schema)
    spec.components.schema("GameStatus", {"type": "string", "enum": GAME_STATUSES})
    rules_by_variant(spec, "CreateGame", "seats")
    del spec.components.schemas["Seat"]  # the request's seats are documented as the three kinds above
    spec.components.schema("TurnPhase", {"type": "string", "enum": TURN_PHASES})


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
    "last_round": {
        "round": 1,
        "end": "domino",
        "winner": 0,
        "pips_left": [0, 17],
        "hands": [[], ["6-6", "3-2"]],
        "points": [17, 0],
        "award": [17, 0],
        "why": "seat 0 went out",
    },
    "winners": [],
    "deadline": None,
    "turn_timeout_s": None,
    "clock": None,
    "seed_commitment": "9f2c5e0d3b8a4c61e7f0a9b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6",
    "client_seeded": False,
    "rated": False,
    "hints": False,
    "next_game_id": None,
    "archived": False,
}

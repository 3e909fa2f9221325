from __future__ import annotations

import marshmallow as ma
from apispec import APISpec

import domino
from api.resources.common import StrictBoolean, WholeNumber
from api.resources.simulations.schemas import before_field
from api.resources.variants.schemas import RULES_SCHEMA, rules_by_variant
from api.resources.ratings.schemas import RatingSchema
from api.service.registered_bots import BOT_NAME_PATTERN

ARENA_STATUSES = ["running", "finished", "cancelled", "failed"]
GAME_STATUSES = ["pending", "playing", "finished"]


def _interval(description: str) -> ma.fields.List[float]:
    return ma.fields.List(ma.fields.Float(), required=True, allow_none=True, metadata={"description": description})


class CreateArenaSchema(ma.Schema):
    variant = ma.fields.String(
        required=True, validate=ma.validate.OneOf(domino.PRESETS), metadata={"description": "a preset from `GET /v1/variants`"}
    )
    bots = ma.fields.List(
        ma.fields.String(validate=ma.validate.Regexp(BOT_NAME_PATTERN), metadata={"pattern": BOT_NAME_PATTERN}),
        required=True,
        validate=ma.validate.Length(min=2, max=10),
        metadata={
            "description": "the bots that play, each once: ids from `GET /v1/bots`: computer players, the "
            "caller's own registered bots (the bot itself, with a bot token), and registered bots their owners "
            "opened to arenas (`arenas: open`; any other is a 403). A registered bot must play the variant and "
            "be available (422 at `bots[i]`). Every game seats all of them, so their number is the number of "
            "players (4 with `teams: partners_opposite`)",
            "example": ["greedy", "random"],
            "uniqueItems": True,
        },
    )
    deals = WholeNumber(
        required=True,
        validate=ma.validate.Range(min=1),
        metadata={
            "description": "deals to play: at most `DOMINO_ARENA_MAX_DEALS` (100), and the games they make (deals "
            "times seatings) at most `DOMINO_ARENA_MAX_GAMES` (1000); 422 beyond"
        },
    )
    duplicate = StrictBoolean(
        load_default=True,
        metadata={
            "description": "`true`: every deal is played in every seating of the bots (every order over the seats: "
            "2 games a deal for 2 bots, 6 for 3, 24 for 4), so the luck of the deal cancels out, and a registered "
            "bot is trusted not to remember a deal's hands from one of its seatings to the next; `false`: each "
            "deal once, the bots a seat further round each deal"
        },
    )
    rules = ma.fields.Dict(
        keys=ma.fields.String(validate=ma.validate.Length(max=64)),
        load_default=dict,
        metadata={
            "schema": {
                **RULES_SCHEMA,
                "description": "option overrides as for a game; a game of computer players only has the usual "
                "caps (`target_score`, `rounds`)",
            }
        },
    )


class ArenaGameSchema(ma.Schema):
    index = ma.fields.Integer(required=True)
    deal = ma.fields.Integer(required=True)
    seats = ma.fields.List(ma.fields.String(), required=True, metadata={"description": "the bot on each seat"})
    id = ma.fields.String(required=True, allow_none=True, metadata={"description": "the game (`GET /v1/games/{id}`), once started"})
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(GAME_STATUSES))
    scores = ma.fields.List(ma.fields.Integer(), metadata={"description": "finished games: the final scores, per seat"})
    winners = ma.fields.List(ma.fields.Integer(), metadata={"description": "finished games: the winning seats"})


class ArenaByDealSchema(ma.Schema):
    deals = ma.fields.Integer(required=True, metadata={"description": "deals whose every seating has ended"})
    win_rate = ma.fields.Float(required=True, allow_none=True, metadata={"description": "mean of the per-deal win rates"})
    win_rate_ci95 = _interval("its 95% interval, clustered by deal (the luck of the deal cancels out)")


class StandingSchema(ma.Schema):
    bot = ma.fields.String(required=True)
    games = ma.fields.Integer(required=True, metadata={"description": "its finished games"})
    wins = ma.fields.Integer(required=True, metadata={"description": "games it won (alone or sharing the win)"})
    win_rate = ma.fields.Float(required=True, allow_none=True)
    win_rate_ci95 = _interval("Wilson 95% interval")
    points_mean = ma.fields.Float(required=True, allow_none=True, metadata={"description": "mean final score"})
    points_mean_ci95 = _interval("normal 95% interval")
    place_mean = ma.fields.Float(required=True, allow_none=True, metadata={"description": "mean place (0: first)"})
    rating = ma.fields.Nested(
        RatingSchema, required=True, allow_none=True, metadata={"description": "its rating in the variant now"}
    )
    by_deal = ma.fields.Nested(ArenaByDealSchema, metadata={"description": "duplicate mode only"})


class ArenaSchema(ma.Schema):
    id = ma.fields.String(required=True)
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(ARENA_STATUSES))
    variant = ma.fields.String(required=True, validate=ma.validate.OneOf(domino.PRESETS))
    rules = ma.fields.Dict(required=True, metadata={"description": "the overrides asked for"})
    bots = ma.fields.List(ma.fields.String(), required=True)
    duplicate = ma.fields.Boolean(required=True)
    deals = ma.fields.Integer(required=True)
    seatings = ma.fields.Integer(required=True, metadata={"description": "games per deal"})
    games_per_bot = ma.fields.Integer(
        required=True,
        metadata={"description": "the arena's games in play at once, at most (each seats every bot; other arenas do not count)"},
    )
    games_total = ma.fields.Integer(required=True)
    games_started = ma.fields.Integer(required=True)
    games_done = ma.fields.Integer(required=True)
    games_playing = ma.fields.Integer(required=True)
    created_at = ma.fields.String(required=True, metadata={"description": "ISO 8601, UTC"})
    finished_at = ma.fields.String(required=True, allow_none=True)
    elapsed_seconds = ma.fields.Float(required=True)
    standings = ma.fields.List(
        ma.fields.Nested(StandingSchema), required=True, metadata={"description": "per bot, the best win rate first"}
    )
    games = ma.fields.List(ma.fields.Nested(ArenaGameSchema), required=True, metadata={"description": "in the order they are played"})
    error = ma.fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "`failed`: why the next game could not start (a registered bot retired, or unavailable "
            "after missing its deadlines); the games already started still end and count (as they do in a "
            "`cancelled` arena)"
        },
    )



class ArenaListQuerySchema(ma.Schema):
    owner = ma.fields.String(
        required=True,
        validate=ma.validate.Equal("me"),
        metadata={"description": "`me`: the arenas the caller (its app key or bot token) created", "enum": ["me"]},
    )
    limit = ma.fields.Integer(
        load_default=20, validate=ma.validate.Range(min=1, max=100), metadata={"description": "arenas per page"}
    )
    before = before_field()


class ArenaPageSchema(ma.Schema):
    arenas = ma.fields.List(ma.fields.Nested(ArenaSchema), required=True, metadata={"description": "newest first"})
    next_before = ma.fields.String(
        required=True, allow_none=True, metadata={"description": "the cursor of the next page (null: the last page)"}
    )
    next = ma.fields.String(required=True, allow_none=True, metadata={"description": "the next page's URL"})


def document(spec: APISpec) -> None:
    rules_by_variant(spec, "CreateArena", "bots")

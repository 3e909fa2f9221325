from __future__ import annotations

import re
from typing import Any

import marshmallow as ma
from apispec import APISpec

import domino
from api.resources.common import StrictBoolean, WholeNumber, bot_ids
from api.resources.variants.schemas import RULES_SCHEMA, rules_by_variant
from api.service.simulations.runner import STATUSES

# A list position: the creation time (Unix seconds, to the microsecond) and the id of the last simulation
# shown. Every text of this form is a position (the page after it), so the document's pattern is exact.
CURSOR_PATTERN = r"^[0-9]{1,12}(\.[0-9]{1,6})?_[a-z2-7]{16}$"
_CURSOR = re.compile(CURSOR_PATTERN)


def encode_cursor(position: tuple[float, str]) -> str:
    """The text of a list position (created_at, id): clients pass it back as it came."""
    created_at, sim_id = position
    return f"{created_at:.6f}_{sim_id}"


class Cursor(ma.fields.Field[tuple[float, str]]):
    """A list position from :func:`encode_cursor`; anything else fails validation (a 422, never a 500)."""

    default_error_messages = {"invalid": "not a cursor of this list: pass `next_before` as it came"}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> tuple[float, str]:
        if not isinstance(value, str) or not _CURSOR.fullmatch(value):
            raise self.make_error("invalid")
        created, _, sim_id = value.partition("_")
        return float(created), sim_id


def before_field() -> Cursor:
    """The ``before`` query parameter of a list paged by :func:`encode_cursor` positions."""
    return Cursor(
        metadata={
            "type": "string",
            "pattern": CURSOR_PATTERN,
            "description": "the cursor of the next page: `next_before` of the previous one, as it came",
        }
    )


class CreateSimulationSchema(ma.Schema):
    variant = ma.fields.String(
        required=True, validate=ma.validate.OneOf(domino.PRESETS), metadata={"description": "a preset from `GET /v1/variants`"}
    )
    rules = ma.fields.Dict(
        keys=ma.fields.String(validate=ma.validate.Length(max=64)),
        load_default=dict,
        metadata={"schema": {**RULES_SCHEMA, "description": "option overrides as for a game; `players` comes from `strategies`"}},
    )
    strategies = ma.fields.List(
        ma.fields.String(validate=ma.validate.OneOf(bot_ids())),
        required=True,
        validate=ma.validate.Length(min=2, max=10),
        metadata={
            "description": "a strategy id from `GET /v1/bots` for each seat; with `teams: partners_opposite`, "
            "either four (one per seat) or two (one per team: seats 0 and 2, seats 1 and 3)",
            "example": ["greedy", "random"],
        },
    )
    games = WholeNumber(
        required=True,
        validate=ma.validate.Range(min=1, max=10_000_000),
        metadata={"description": "games (whole matches) to play; in duplicate mode a multiple of `rotations`"},
    )
    seed = ma.fields.String(
        validate=ma.validate.Length(min=1, max=256),
        metadata={"description": "optional: the same seed gives the same results, however many workers run it"},
    )
    duplicate = StrictBoolean(
        load_default=False,
        metadata={
            "description": "play every deal once per distinct rotation of the strategies over the seats (same "
            "deal seed), so the luck of the deal cancels out"
        },
    )
    deal_version = WholeNumber(
        load_default=domino.DEAL_VERSION,
        validate=ma.validate.OneOf(domino.DEAL_VERSIONS),
        metadata={
            "description": "how each game's seed deals: 2 (the default, as new games) or 1 (as games made before "
            "version 2), so that a seed gives the same results as an earlier run"
        },
    )


INTERVAL = {"description": "a 95% interval [low, high], or null without games"}


def _interval(description: str, **kwargs: Any) -> ma.fields.List[float]:
    return ma.fields.List(ma.fields.Float(), allow_none=True, metadata={"description": description}, **kwargs)


class ByDealSchema(ma.Schema):
    win_rate_ci95 = _interval("95% interval of the win rate, clustered by deal", required=True)
    points_mean_ci95 = _interval("95% interval of the mean points, clustered by deal", required=True)
    points_vs_table = ma.fields.Float(required=True, allow_none=True, metadata={"description": "mean points per game above the table's average"})
    points_vs_table_ci95 = _interval("its 95% interval", required=True)


class ResultSchema(ma.Schema):
    seat = ma.fields.Integer(
        metadata={"description": "without teams: the request's seat; in duplicate mode its strategy rotates over the seats"}
    )
    team = ma.fields.Integer(metadata={"description": "with teams: 0 (seats 0 and 2) or 1 (seats 1 and 3)"})
    seats = ma.fields.List(ma.fields.Integer(), metadata={"description": "with teams: the team's seats"})
    strategy = ma.fields.String(required=True)
    games = ma.fields.Integer(required=True)
    wins = ma.fields.Integer(required=True, metadata={"description": "games won alone (a team's win counts once)"})
    shared_wins = ma.fields.Integer(required=True, metadata={"description": "games won jointly with another seat (counted as draws)"})
    win_rate = ma.fields.Float(required=True, allow_none=True)
    win_rate_ci95 = _interval("Wilson 95% interval", required=True)
    points_mean = ma.fields.Float(required=True, allow_none=True, metadata={"description": "mean final score per game"})
    points_mean_ci95 = _interval("normal 95% interval", required=True)
    by_deal = ma.fields.Nested(
        ByDealSchema,
        metadata={
            "description": "duplicate mode: 95% intervals clustered by deal (all rotations of a deal together), "
            "and the mean points per game above the table's average with its interval: the luck of the deal "
            "cancels out of these"
        },
    )


class RoundsSchema(ma.Schema):
    total = ma.fields.Integer(required=True)
    per_game = ma.fields.Float(required=True, allow_none=True)
    blocked = ma.fields.Integer(required=True)
    blocked_share = ma.fields.Float(required=True, allow_none=True)
    moves_per_round = ma.fields.Float(required=True, allow_none=True)


class LineupSchema(ma.Schema):
    rotation = ma.fields.Integer(required=True)
    seats = ma.fields.List(ma.fields.String(), required=True, metadata={"description": "the strategy in each seat"})
    games = ma.fields.Integer(required=True)


class SimulationSchema(ma.Schema):
    id = ma.fields.String(required=True)
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(STATUSES))
    variant = ma.fields.String(required=True, validate=ma.validate.OneOf(domino.PRESETS))
    rules = ma.fields.Dict(required=True, metadata={"description": "the resolved options"})
    strategies = ma.fields.List(ma.fields.String(), required=True, metadata={"description": "one per seat, as requested"})
    teams = ma.fields.Boolean(required=True)
    mode = ma.fields.String(required=True, validate=ma.validate.OneOf(["independent", "duplicate"]))
    duplicate = ma.fields.Boolean(required=True)
    rotations = ma.fields.Integer(required=True, metadata={"description": "seatings each deal is played in (1 unless duplicate)"})
    seed = ma.fields.String(required=True)
    client_seeded = ma.fields.Boolean(required=True)
    deal_version = ma.fields.Integer(
        required=True, metadata={"description": "how each game's seed was dealt (1 for simulations made before version 2)"}
    )
    engine = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(["playout", "engine"]),
        metadata={"description": "`playout` (the fast core) or `engine` (the public engine loop, for search bots and Mexican Train)"},
    )
    search_nodes = ma.fields.Dict(
        required=True,
        keys=ma.fields.String(),
        values=ma.fields.Integer(),
        allow_none=True,
        metadata={"description": "each search bot's node budget per move (deterministic; by default the budget "
                  "its strength in `GET /v1/bots` was measured with)"},
    )  # fmt: skip
    games = ma.fields.Integer(required=True, metadata={"description": "the games requested (`games` of the request)"})
    games_done = ma.fields.Integer(required=True)
    deals_total = ma.fields.Integer(required=True)
    deals_done = ma.fields.Integer(required=True)
    chunks_total = ma.fields.Integer(required=True)
    chunks_done = ma.fields.Integer(required=True)
    chunk_games = ma.fields.Integer(required=True)
    created_at = ma.fields.String(required=True, metadata={"description": "ISO 8601, UTC"})
    started_at = ma.fields.String(required=True, allow_none=True)
    finished_at = ma.fields.String(required=True, allow_none=True)
    elapsed_seconds = ma.fields.Float(required=True, metadata={"description": "from the first chunk's start to the end (or now)"})
    games_per_second = ma.fields.Float(required=True, allow_none=True)
    worker_seconds = ma.fields.Float(required=True, metadata={"description": "time the workers spent in counted chunks"})
    worker_cpu_seconds = ma.fields.Float(required=True, metadata={"description": "CPU time of the counted chunks"})
    results = ma.fields.List(ma.fields.Nested(ResultSchema), required=True, metadata={"description": "per seat (or team) and strategy"})
    draws = ma.fields.Integer(required=True, metadata={"description": "games without a single winner; wins of all entries + draws = games"})
    draw_rate = ma.fields.Float(required=True, allow_none=True)
    rounds = ma.fields.Nested(RoundsSchema, required=True)
    lineups = ma.fields.List(
        ma.fields.Nested(LineupSchema), required=True, metadata={"description": "each rotation's strategy per seat and games played"}
    )
    error = ma.fields.String(required=True, allow_none=True)


def document(spec: APISpec) -> None:
    rules_by_variant(spec, "CreateSimulation", "strategies")


class SimulationListQuerySchema(ma.Schema):
    status = ma.fields.String(
        validate=ma.validate.OneOf(STATUSES), metadata={"description": "only the simulations in this status"}
    )
    limit = ma.fields.Integer(
        load_default=20,
        validate=ma.validate.Range(min=1, max=100),
        metadata={"description": "simulations per page (with `status`, a page may hold fewer; follow `next`)"},
    )
    before = before_field()


class CreatedSimulationSchema(SimulationSchema):
    token = ma.fields.String(
        required=True,
        metadata={
            "description": "shown once: the creator's token, needed to cancel the simulation "
            "(`Authorization: Bearer <token>`)"
        }
    )


class SimulationPageSchema(ma.Schema):
    simulations = ma.fields.List(
        ma.fields.Nested(SimulationSchema),
        required=True,
        metadata={"description": "newest first, each as `GET /v1/simulations/{id}` shows it"},
    )
    next_before = ma.fields.String(
        required=True, allow_none=True, metadata={"description": "pass as `before` for the next page; null on the last page"}
    )
    next = ma.fields.String(required=True, allow_none=True, metadata={"description": "the next page's URL, or null"})

from __future__ import annotations

import base64
import math
import re
from typing import Any

import marshmallow as ma

from api.service.simulations.runner import STATUSES

_SIM_ID = re.compile(r"[a-z2-7]{16}")


def encode_cursor(position: tuple[float, str]) -> str:
    """The opaque text of a list position (created_at, id): clients pass it back, never read it."""
    created_at, sim_id = position
    return base64.urlsafe_b64encode(f"{created_at!r}:{sim_id}".encode()).decode().rstrip("=")


class Cursor(ma.fields.Field[tuple[float, str]]):
    """A list position from :func:`encode_cursor`; anything else fails validation (a 422, never a 500)."""

    default_error_messages = {"invalid": "not a cursor of this list: pass `next_before` as it came"}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> tuple[float, str]:
        if not isinstance(value, str) or len(value) > 200:
            raise self.make_error("invalid")
        try:
            raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode("ascii")
            created, _, sim_id = raw.rpartition(":")
            created_at = float(created)
        except ValueError:  # not base64, not ASCII, or no number (binascii.Error is a ValueError too)
            raise self.make_error("invalid") from None
        if not math.isfinite(created_at) or not _SIM_ID.fullmatch(sim_id):
            raise self.make_error("invalid")
        return created_at, sim_id


class CreateSimulationSchema(ma.Schema):
    variant = ma.fields.String(
        required=True, validate=ma.validate.Length(min=1, max=64), metadata={"description": "a preset from `GET /v1/variants`"}
    )
    rules = ma.fields.Dict(
        keys=ma.fields.String(validate=ma.validate.Length(max=64)),
        load_default=dict,
        metadata={"description": "option overrides (docs/rules.md#options), as for a game; `players` comes from `strategies`"},
    )
    strategies = ma.fields.List(
        ma.fields.String(validate=ma.validate.Length(min=1, max=64)),
        required=True,
        validate=ma.validate.Length(min=2, max=10),
        metadata={
            "description": "a strategy id from `GET /v1/bots` for each seat; with `teams: partners_opposite`, "
            "either four (one per seat) or two (one per team: seats 0 and 2, seats 1 and 3)",
            "example": ["greedy", "random"],
        },
    )
    games = ma.fields.Integer(
        required=True,
        strict=True,
        validate=ma.validate.Range(min=1, max=10_000_000),
        metadata={"description": "games (whole matches) to play; in duplicate mode a multiple of `rotations`"},
    )
    seed = ma.fields.String(
        validate=ma.validate.Length(min=1, max=256),
        metadata={"description": "optional: the same seed gives the same results, however many workers run it"},
    )
    duplicate = ma.fields.Boolean(
        load_default=False,
        metadata={
            "description": "play every deal once per distinct rotation of the strategies over the seats (same "
            "deal seed), so the luck of the deal cancels out"
        },
    )


class ResultSchema(ma.Schema):
    seat = ma.fields.Integer(
        metadata={"description": "the request's seat (without teams); in duplicate mode its strategy rotates over the seats"}
    )
    team = ma.fields.Integer(metadata={"description": "with teams: 0 (seats 0 and 2) or 1 (seats 1 and 3)"})
    seats = ma.fields.List(ma.fields.Integer(), metadata={"description": "with teams: the team's seats"})
    strategy = ma.fields.String()
    games = ma.fields.Integer()
    wins = ma.fields.Integer(metadata={"description": "games won alone (a team's win counts once)"})
    shared_wins = ma.fields.Integer(metadata={"description": "games won jointly with another seat (counted as draws)"})
    win_rate = ma.fields.Float(allow_none=True)
    win_rate_ci95 = ma.fields.List(ma.fields.Float(), allow_none=True, metadata={"description": "Wilson 95% interval"})
    points_mean = ma.fields.Float(allow_none=True, metadata={"description": "mean final score per game"})
    points_mean_ci95 = ma.fields.List(ma.fields.Float(), allow_none=True, metadata={"description": "normal 95% interval"})
    by_deal = ma.fields.Dict(
        metadata={
            "description": "duplicate mode: 95% intervals clustered by deal (all rotations of a deal together), "
            "and the mean points per game above the table's average with its interval: the luck of the deal "
            "cancels out of these"
        }
    )


class SimulationSchema(ma.Schema):
    id = ma.fields.String()
    status = ma.fields.String(validate=ma.validate.OneOf(STATUSES))
    variant = ma.fields.String()
    rules = ma.fields.Dict(metadata={"description": "the resolved options"})
    strategies = ma.fields.List(ma.fields.String(), metadata={"description": "one per seat, as requested"})
    teams = ma.fields.Boolean()
    mode = ma.fields.String(validate=ma.validate.OneOf(["independent", "duplicate"]))
    duplicate = ma.fields.Boolean()
    rotations = ma.fields.Integer(metadata={"description": "seatings each deal is played in (1 unless duplicate)"})
    seed = ma.fields.String()
    client_seeded = ma.fields.Boolean()
    engine = ma.fields.String(
        metadata={"description": "`playout` (the fast core) or `engine` (the public engine loop, for search bots and Mexican Train)"}
    )
    search_nodes = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Integer(),
        allow_none=True,
        metadata={"description": "each search bot's node budget per move (deterministic; by default the budget "
                  "its strength in `GET /v1/bots` was measured with)"},
    )
    games_total = ma.fields.Integer()
    games_done = ma.fields.Integer()
    deals_total = ma.fields.Integer()
    deals_done = ma.fields.Integer()
    chunks_total = ma.fields.Integer()
    chunks_done = ma.fields.Integer()
    chunk_games = ma.fields.Integer()
    created_at = ma.fields.String()
    started_at = ma.fields.String(allow_none=True)
    finished_at = ma.fields.String(allow_none=True)
    elapsed_seconds = ma.fields.Float(metadata={"description": "from the first chunk's start to the end (or now)"})
    games_per_second = ma.fields.Float(allow_none=True)
    worker_seconds = ma.fields.Float(metadata={"description": "time the workers spent in counted chunks"})
    worker_cpu_seconds = ma.fields.Float(metadata={"description": "CPU time of the counted chunks"})
    results = ma.fields.List(ma.fields.Nested(ResultSchema), metadata={"description": "per seat (or team) and strategy"})
    draws = ma.fields.Integer(metadata={"description": "games without a single winner; wins of all entries + draws = games"})
    draw_rate = ma.fields.Float(allow_none=True)
    rounds = ma.fields.Dict(metadata={"description": "`total`, `per_game`, `blocked`, `blocked_share`, `moves_per_round`"})
    lineups = ma.fields.List(ma.fields.Dict(), metadata={"description": "each rotation's strategy per seat and games played"})
    error = ma.fields.String(allow_none=True)


class SimulationListQuerySchema(ma.Schema):
    status = ma.fields.String(
        validate=ma.validate.OneOf(STATUSES), metadata={"description": "only the simulations in this status"}
    )
    limit = ma.fields.Integer(
        load_default=20,
        validate=ma.validate.Range(min=1, max=100),
        metadata={"description": "simulations per page (with `status`, a page may hold fewer; follow `next`)"},
    )
    before = Cursor(
        metadata={"type": "string", "description": "the cursor of the next page (`next_before` of the previous one); opaque"}
    )


class SimulationPageSchema(ma.Schema):
    simulations = ma.fields.List(
        ma.fields.Nested(SimulationSchema),
        metadata={"description": "newest first, each as `GET /v1/simulations/{id}` shows it"},
    )
    next_before = ma.fields.String(
        allow_none=True, metadata={"description": "pass as `before` for the next page; null on the last page"}
    )
    next = ma.fields.String(allow_none=True, metadata={"description": "the next page's URL, or null"})

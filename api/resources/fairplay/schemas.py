from __future__ import annotations

import marshmallow as ma

from api.resources.analysis.schemas import ANALYSIS_STATUSES
from api.resources.common import player_field

GAMES_MAX = 100


def _games() -> ma.fields.Integer:
    return ma.fields.Integer(
        load_default=20, validate=ma.validate.Range(min=1, max=GAMES_MAX),
        metadata={"description": f"how many of the last finished games to screen, 1 to {GAMES_MAX}"},
    )  # fmt: skip


def _wait() -> ma.fields.Float:
    return ma.fields.Float(
        load_default=0.0, validate=ma.validate.Range(min=0, max=30),
        metadata={"description": "seconds to wait while the screen is queued or running (a long poll), at most 30"},
    )  # fmt: skip


class PlayerScreenQuerySchema(ma.Schema):
    player = player_field("your app's own id of the user, as its seats named it (`player`)", required=True)
    games = _games()
    wait = _wait()


class BotScreenQuerySchema(ma.Schema):
    games = _games()
    wait = _wait()


class ScreenedGameSchema(ma.Schema):
    game_id = ma.fields.String(required=True)
    seats = ma.fields.List(ma.fields.Integer(), required=True, metadata={"description": "the seats the subject held"})
    partners = ma.fields.List(
        ma.fields.Integer(), required=True, metadata={"description": "in a team game, its partners' seats (read for `team`)"}
    )


def _share(description: str) -> ma.fields.Float:
    return ma.fields.Float(required=True, metadata={"description": description})


class ScreenFiguresSchema(ma.Schema):
    games = ma.fields.Integer(required=True, metadata={"description": "games read"})
    positions = ma.fields.Integer(required=True, metadata={"description": "moves with a choice (two legal moves or more)"})
    telling_positions = ma.fields.Integer(
        required=True, metadata={"description": "of which with a move best only with the hidden tiles in sight"}
    )
    seat_count = ma.fields.Integer(required=True, metadata={"description": "positions where such a move was played"})
    expert_count = ma.fields.Integer(required=True, metadata={"description": "positions where `expert` picked one"})
    rate = _share("`seat_count` / `positions`")
    expert_rate = _share("`expert_count` / `positions`: the honest reference on the same positions")
    difference = _share("`rate` - `expert_rate`")
    interval = ma.fields.List(ma.fields.Float(), required=True, metadata={"description": "98% interval of `difference`"})
    p_value = _share("one-sided exact (McNemar) test that the subject took such moves more often than expert")
    gain = _share("mean points the played moves were worth more with the hidden tiles in sight than from what the seat saw")
    gain_interval = ma.fields.List(
        ma.fields.Float(allow_none=True),
        required=True,
        metadata={"description": "98% interval of `gain` (both ends null with fewer than two positions: no interval)"},
    )
    gain_p_value = _share("one-sided test that `gain` is above 0")
    confidence = _share("the intervals' level (0.98: their lower ends are the one-sided 99% bounds)")
    flag = ma.fields.Boolean(
        required=True, metadata={"description": "both tests significant at the 1% level: a reason to look, not a verdict"}
    )
    explains = ma.fields.String(required=True, metadata={"description": "what the figures say, in words"})


class ScreenSchema(ma.Schema):
    id = ma.fields.String(required=True, metadata={"description": "the screen's id: whose, how many games asked, which games"})
    subject = ma.fields.Dict(
        keys=ma.fields.String(), values=ma.fields.String(), required=True,
        metadata={"description": "`{\"player\": id}` or `{\"bot\": name}`"},
    )  # fmt: skip
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(ANALYSIS_STATUSES))
    progress = ma.fields.Float(required=True, metadata={"description": "the share of the positions read, 0 to 1"})
    positions_done = ma.fields.Integer(required=True)
    positions_total = ma.fields.Integer(
        required=True, allow_none=True,
        metadata={"description": "positions to read (those of games read before for another screen are not); null until counted"},
    )  # fmt: skip
    nodes = ma.fields.Integer(required=True, metadata={"description": "the search budget per position (simulator moves)"})
    games_asked = ma.fields.Integer(required=True)
    games = ma.fields.List(ma.fields.Nested(ScreenedGameSchema), required=True, metadata={"description": "newest first"})
    error = ma.fields.String(metadata={"description": "`failed`: why"})
    skipped = ma.fields.List(
        ma.fields.String(), metadata={"description": "`done`: games not read (an arena's, until the arena ends)"}
    )
    seat = ma.fields.Nested(ScreenFiguresSchema, metadata={"description": "`done`: the subject's own moves"})
    team = ma.fields.Nested(
        ScreenFiguresSchema, allow_none=True,
        metadata={"description": "`done`: the subject's side in its team games (its partners' moves too); null without one"},
    )  # fmt: skip

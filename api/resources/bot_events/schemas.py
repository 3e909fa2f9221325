from __future__ import annotations

import marshmallow as ma

from api.resources.challenges.schemas import ChallengeSchema
from api.resources.games.schemas import GameViewSchema
from api.resources.moves.schemas import MoveSchema
from api.service.events import STREAM_ID

NOTICE_TYPES = ["turn", "game_started", "game_ended", "match", "challenge"]


class BotEventsQuerySchema(ma.Schema):
    after = ma.fields.String(
        validate=ma.validate.Regexp(STREAM_ID),
        metadata={
            "description": "the notices after this id (the page's `last_id`, or any notice's `id`); omit it for "
            "every notice kept (the newest `DOMINO_BOT_STREAM_MAX`, 1000)",
            "pattern": STREAM_ID.pattern,
            "example": "1764614400000-0",
        },
    )
    wait = ma.fields.Float(
        load_default=0.0,
        validate=ma.validate.Range(min=0, max=30),
        metadata={"description": "long poll: seconds to wait when there is no notice yet (at most 30; default 0)"},
    )


class BotEventsHeadersSchema(ma.Schema):
    last_event_id = ma.fields.String(
        data_key="Last-Event-ID",
        validate=ma.validate.Regexp(STREAM_ID),
        metadata={
            "description": "resume after this notice id (`EventSource` sends it when it reconnects); overrides "
            "`after`",
            "pattern": STREAM_ID.pattern,
            "example": "1764614400000-0",
        },
    )


class BotNoticeSchema(ma.Schema):
    """One notice on a registered bot's stream: `turn` (it is to move: post one of `legal_moves` to
    `move_url` with `expected_version` = `version` and the bot token), `game_started`, `game_ended`, `match`
    (a matchmaking ticket the bot holds was matched: the game and its seat), and `challenge` (someone challenges
    the bot: `challenge`, to accept or decline before its `expires_at`, no game yet; again when the other party
    answers: the challenger bot's challenge accepted, with its game, or declined; the addressee's cancelled)."""

    class Meta:
        unknown = ma.INCLUDE  # notices may gain members and types: ignore those you do not know

    id = ma.fields.String(required=True, metadata={"description": "the notice's id: `after` / `Last-Event-ID`"})
    type = ma.fields.String(required=True, metadata={"description": f"one of {NOTICE_TYPES} (more may come)"})
    game_id = ma.fields.String(metadata={"description": "the game (every type but `challenge`)"})
    seat = ma.fields.Integer(metadata={"description": "the bot's seat in that game (every type but `challenge`)"})
    version = ma.fields.Integer(metadata={"description": "the game's version the notice is about (every type but `challenge`)"})
    variant = ma.fields.String(metadata={"description": "`game_started`, `game_ended`: the game's variant"})
    deadline = ma.fields.Float(
        allow_none=True, metadata={"description": "`turn`: Unix time by which to move, else the server moves for it"}
    )
    legal_moves = ma.fields.List(ma.fields.Nested(MoveSchema), metadata={"description": "`turn`: post one of these"})
    move_url = ma.fields.String(metadata={"description": "`turn`: where to post the move", "example": "/v1/games/h4k2mzq7c3x9b2rt/moves"})
    view = ma.fields.Nested(GameViewSchema, metadata={"description": "`turn`: the seat's view at `version`"})
    winners = ma.fields.List(ma.fields.Integer(), metadata={"description": "`game_ended`: the winning seats"})
    scores = ma.fields.List(ma.fields.Integer(), allow_none=True, metadata={"description": "`game_ended`: final scores"})
    reason = ma.fields.String(allow_none=True, metadata={"description": "`game_ended`: why it ended"})
    ticket = ma.fields.String(metadata={"description": "`match`: the ticket matched"})
    challenge_id = ma.fields.String(metadata={"description": "`challenge`: accept or decline it at `/v1/challenges/{id}`"})
    expires_at = ma.fields.Float(metadata={"description": "`challenge`: Unix time until which it may be accepted"})
    challenge = ma.fields.Nested(
        ChallengeSchema, metadata={"description": "`challenge`: the challenge as the bot reads it (`GET /v1/challenges/{id}`)"}
    )


class BotEventsPageSchema(ma.Schema):
    bot = ma.fields.String(required=True, metadata={"description": "the bot the token is for"})
    events = ma.fields.List(ma.fields.Nested(BotNoticeSchema), required=True, metadata={"description": "oldest first, at most 100"})
    last_id = ma.fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "pass as `after` next time (the `after` given when nothing came; null when neither)"},
    )

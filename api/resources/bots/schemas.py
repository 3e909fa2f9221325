from __future__ import annotations

import re
from typing import Any

import marshmallow as ma

import domino
from api.resources.common import NAME_PATTERN, StrictFloat, WholeNumber
from api.resources.games.clocks import MAX_TURN_TIMEOUT
from api.resources.games.schemas import WEBHOOK_PATTERN
from api.resources.ratings.schemas import RatingSchema
from api.service.apps import MAX_GRACE_S
from api.service.registered_bots import ARENA_ENTRY, BOT_NAME_PATTERN
from api.service.webhooks import check_url


class BotSchema(ma.Schema):
    """A computer player (`kind: builtin`) or a registered bot (`kind: registered`)."""

    class Meta:
        unknown = ma.INCLUDE  # members may be added later (ratings, ...): ignore those you do not know

    id = ma.fields.String(required=True, metadata={"description": "use as `{\"bot\": id}` in a seat"})
    kind = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(["builtin", "registered"]),
        metadata={"description": "`builtin`: a computer player the workers run; `registered`: a bot an app registered"},
    )
    description = ma.fields.String(required=True)
    ratings = ma.fields.Dict(
        required=True,
        keys=ma.fields.String(),
        values=ma.fields.Nested(RatingSchema),
        metadata={"description": "its rating in each variant it has played rated games of, by variant (`GET /v1/ratings/{variant}`)"},
    )
    strength = ma.fields.String(metadata={"description": "built-in: measured strength, in words"})
    owner = ma.fields.String(metadata={"description": "registered: the name of the app that registered it"})
    variants = ma.fields.List(ma.fields.String(), metadata={"description": "registered: the variants it plays"})
    delivery = ma.fields.String(
        validate=ma.validate.OneOf(["webhook", "stream"]),
        metadata={"description": "registered: where its turns go, its webhook or its stream (`GET /v1/bot/events`)"},
    )
    available = ma.fields.Boolean(
        metadata={
            "description": "registered: seatable in new games; false after it missed its turn deadlines "
            "`DOMINO_BOT_MAX_MISSES` (3) times in a row, until it is back (it moves, its stream reconnects, its "
            "webhook answers, or its owner updates it)"
        }
    )
    missed_turns = ma.fields.Integer(metadata={"description": "registered: turn deadlines it missed in a row"})
    arenas = ma.fields.String(
        validate=ma.validate.OneOf(ARENA_ENTRY),
        metadata={
            "description": "registered: `open`: any app or bot may enter it in an arena; `closed` (the default): only "
            "its owner's arenas"
        },
    )
    created_at = ma.fields.Float(metadata={"description": "registered: Unix time it was registered"})
    max_games = ma.fields.Integer(
        allow_none=True, metadata={"description": "registered: the games it plays at once, at most (null: no cap)"}
    )
    min_turn_timeout_s = ma.fields.Float(
        allow_none=True, metadata={"description": "registered: the shortest time per move it plays with (null: any)"}
    )


def _variants(**kwargs: Any) -> ma.fields.List[str]:
    return ma.fields.List(
        ma.fields.String(validate=ma.validate.OneOf(domino.PRESETS)),
        validate=ma.validate.Length(min=1, max=len(domino.PRESETS)),
        metadata={"description": "the variants it plays (`GET /v1/variants`): it is seated only in those"},
        **kwargs,
    )


def _description(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=[
            ma.validate.Length(min=1, max=200),
            ma.validate.Regexp(re.compile(NAME_PATTERN), error="must not be blank or contain control or format characters"),
        ],
        metadata={
            "description": "what it is, 1-200 characters, as a seat's name may hold them",
            "example": "Plays the heaviest tile.",
            "pattern": NAME_PATTERN,
        },
        **kwargs,
    )


def _webhook(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=[ma.validate.Length(min=1, max=2000), ma.validate.Regexp(WEBHOOK_PATTERN)],
        metadata={
            "pattern": WEBHOOK_PATTERN,
            "description": "optional: its turns are POSTed here (signed with its `webhook_secret`, as a hosted "
            "seat's: see `webhooks` in this document); without it the bot plays from its stream "
            "(`GET /v1/bot/events`). Public addresses only, as for a hosted seat",
            "example": "https://bots.example.com/domino",
        },
        **kwargs,
    )


MAX_BOT_GAMES = 10_000


class _WebhookChecked(ma.Schema):
    @ma.validates("webhook")
    def _webhook_url(self, value: str | None, **kwargs: object) -> None:
        problem = check_url(value) if value else None
        if problem:
            raise ma.ValidationError(problem)


class RegisterBotSchema(_WebhookChecked):
    name = ma.fields.String(
        required=True,
        validate=ma.validate.Regexp(BOT_NAME_PATTERN),
        metadata={
            "description": "unique in the service, never reused, not a computer player's id; seats name it as "
            "`{\"bot\": name}`",
            "pattern": BOT_NAME_PATTERN,
            "example": "mybot",
        },
    )
    description = _description(required=True)
    variants = _variants(required=True)
    webhook = _webhook()


class UpdateBotSchema(_WebhookChecked):
    """Only the members sent change."""

    description = _description()
    variants = _variants()
    webhook = _webhook(allow_none=True)
    arenas = ma.fields.String(
        validate=ma.validate.OneOf(ARENA_ENTRY),
        metadata={
            "description": "`open`: any app or bot may enter it in an arena (its rated games there are consented "
            "to); `closed`: only its owner's arenas (games already started go on)"
        },
    )
    max_games = WholeNumber(
        allow_none=True,
        validate=ma.validate.Range(min=1, max=MAX_BOT_GAMES),
        metadata={
            "description": f"the games it plays at once, at most (1-{MAX_BOT_GAMES}; null: no cap): a challenge to it, "
            "a ticket it holds or a game seating it beyond that is 409 `bot-busy`",
            "example": 8,
        },
    )
    min_turn_timeout_s = StrictFloat(
        allow_none=True,
        validate=ma.validate.Range(min=0, max=MAX_TURN_TIMEOUT),
        metadata={
            "description": "the shortest time per move it plays with (`turn_timeout_s`, or a clock's `initial_s`; null: "
            "any): a challenge to it or a ticket it holds with less is 422 `deadline-too-short`",
            "example": 5,
        },
    )


class RegisteredBotSchema(BotSchema):
    """A registered bot as its owner sees it when registering or updating it."""

    token = ma.fields.String(
        metadata={
            "description": "registration only, shown once: `dsk_bot_...`; the bot moves in every game it sits in "
            "with `Authorization: Bearer <token>`, and reads its stream with it"
        }
    )
    webhook_secret = ma.fields.String(
        metadata={"description": "shown once, when a webhook is set where there was none: `whsec_...`, verifies deliveries"}
    )


class RotateTokenSchema(ma.Schema):
    grace_s = WholeNumber(
        validate=ma.validate.Range(min=0, max=MAX_GRACE_S),
        metadata={
            "description": "seconds the old token keeps working (at most 30 days); without it, or 0, it stops at once",
            "example": 3600,
        },
    )


class RotatedTokenSchema(RegisteredBotSchema):
    previous_token_expires_at = ma.fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "Unix time the old token stops working (null: it already has)"},
    )


# A position in the listing: the registration time of the last bot shown (0 for a computer player) and its id.
LIST_CURSOR_PATTERN = r"^[0-9]{1,12}(\.[0-9]{1,6})?_[a-z][a-z0-9_-]{1,31}$"


class BotsQuerySchema(ma.Schema):
    limit = ma.fields.Integer(
        load_default=100, validate=ma.validate.Range(min=1, max=500), metadata={"description": "bots per page"}
    )
    cursor = ma.fields.String(
        validate=ma.validate.Regexp(re.compile(LIST_CURSOR_PATTERN)),
        metadata={"description": "where the page starts: from the `Link` header's `next` URL, as it came", "pattern": LIST_CURSOR_PATTERN},
    )
    owner = ma.fields.String(
        validate=ma.validate.OneOf(["me"]),
        metadata={"description": "`me`: only the registered bots of the calling app (its app key needed; 401 without)"},
    )

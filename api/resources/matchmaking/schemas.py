from __future__ import annotations

from typing import Any

import marshmallow as ma
from apispec import APISpec

import domino
from api.resources.common import StrictBoolean, StrictFloat, WholeNumber, bot_ids, name_field, one_clock, player_field
from api.resources.games.clocks import MAX_TURN_TIMEOUT, ClockSchema
from api.resources.variants.schemas import RULES_SCHEMA, rules_by_variant

TICKET_STATUSES = ["waiting", "matched", "cancelled", "expired"]
MAX_BOTS_AFTER_S = 600


class CreateTicketSchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    variant = ma.fields.String(
        required=True, validate=ma.validate.OneOf(list(domino.PRESETS)), metadata={"description": "a `GET /v1/variants` name"}
    )
    players = WholeNumber(
        required=True,
        validate=ma.validate.Range(min=2, max=10),
        metadata={"description": "the table size: 2-4 for line games, 2-10 for Mexican Train", "example": 2},
    )
    rules = ma.fields.Dict(
        keys=ma.fields.String(validate=ma.validate.Length(max=64)),
        load_default=dict,
        metadata={
            "schema": {
                **RULES_SCHEMA,
                "description": "option overrides (`players` comes from `players`); tickets are matched when their "
                "rules are the same once defaults are filled in",
            }
        },
    )
    rated = StrictBoolean(
        load_default=False,
        metadata={"description": "`true`: a rated table (an app's player or a registered bot only; never filled with bots)"},
    )
    rating_range = ma.fields.List(
        StrictFloat(),
        validate=ma.validate.Length(equal=2),
        metadata={
            "description": "rated tickets: `[lo, hi]`, the ordinals of the players this one accepts; it widens by "
            "`DOMINO_MATCH_WIDEN` (0.5 by default) on each side per second waited",
            "example": [-5, 20],
        },
    )
    bots_after_s = StrictFloat(
        validate=ma.validate.Range(min=0, max=MAX_BOTS_AFTER_S),
        metadata={
            "description": "after this many seconds without a full table, the seats still empty get computer "
            "players (`bot`); the game starts with whoever was matched so far",
            "example": 10,
        },
    )
    bot = ma.fields.String(
        validate=ma.validate.OneOf(bot_ids()),
        metadata={"description": "the computer player that fills the table (with `bots_after_s`; default `greedy`)"},
    )
    turn_timeout_s = StrictFloat(
        validate=ma.validate.Range(min=1, max=MAX_TURN_TIMEOUT),
        metadata={"description": "seconds per move, as for a game; tickets are matched with the same timing"},
    )
    clock = ma.fields.Nested(ClockSchema, metadata={"description": "a Fischer clock, as for a game (not with `turn_timeout_s`)"})
    party = ma.fields.String(
        validate=ma.validate.Regexp(r"^(new|[a-z2-7]{16})$"),
        metadata={
            "description": "team games (`teams: partners_opposite`): `new` opens a party, whose code is the ticket's "
            "`party`; the partner's ticket names that code. Neither is matched until both wait; they sit as partners",
            "pattern": r"^(new|[a-z2-7]{16})$",
            "example": "new",
        },
    )
    player = player_field("an app's ticket: its player (with the app's key; rated on the app's own leaderboard)")
    name = name_field("an anonymous ticket: the name shown at the table (default `Player`)", "Ada")

    @ma.validates_schema
    def _one_clock(self, data: dict[str, Any], **kwargs: object) -> None:
        one_clock(data, "a ticket")


class TicketHolderSchema(ma.Schema):
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(["anonymous", "player", "bot"]))
    name = ma.fields.String(required=True, metadata={"description": "the client's address, the player id, the bot's name"})
    app = ma.fields.String(metadata={"description": "an app's player: the app's id"})


class MatchTicketSchema(ma.Schema):
    id = ma.fields.String(required=True)
    status = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(TICKET_STATUSES),
        metadata={"description": "`waiting`, then `matched` (see `game_id`, `seat`, `token`), `cancelled` or `expired`"},
    )
    variant = ma.fields.String(required=True)
    players = ma.fields.Integer(required=True)
    rules = ma.fields.Dict(required=True)
    rated = ma.fields.Boolean(required=True)
    rating_range = ma.fields.List(ma.fields.Float(), required=True, allow_none=True)
    bots_after_s = ma.fields.Float(required=True, allow_none=True)
    bot = ma.fields.String(required=True, allow_none=True)
    party = ma.fields.String(required=True, allow_none=True, metadata={"description": "the party's code (team games)"})
    turn_timeout_s = ma.fields.Float()
    clock = ma.fields.Nested(ClockSchema)
    holder = ma.fields.Nested(TicketHolderSchema, required=True)
    created_at = ma.fields.String(required=True)
    game_id = ma.fields.String(required=True, allow_none=True, metadata={"description": "once matched: the game"})
    seat = ma.fields.Integer(required=True, allow_none=True, metadata={"description": "once matched: the holder's seat"})
    token = ma.fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "once matched: the seat's token (a registered bot moves with its own: null)"},
    )


class CreatedMatchTicketSchema(ma.Schema):
    ticket = ma.fields.Nested(MatchTicketSchema, required=True)
    token = ma.fields.String(
        required=True, metadata={"description": "the ticket's token (`dtk_...`), shown once: read and cancel it with it"}
    )


class TicketQuerySchema(ma.Schema):
    wait = ma.fields.Float(
        load_default=0.0,
        validate=ma.validate.Range(min=0, max=30),
        metadata={"description": "seconds to wait while the ticket waits (a long poll), at most 30"},
    )


def document(spec: APISpec) -> None:
    rules_by_variant(spec, "CreateTicket", "players")

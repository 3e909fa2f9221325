from __future__ import annotations

from typing import Any

import marshmallow as ma
from apispec import APISpec

import domino
from api.resources.common import StrictBoolean, StrictFloat, name_field, one_clock, player_field
from api.resources.games.clocks import MAX_TURN_TIMEOUT, ClockSchema
from api.resources.matchmaking.schemas import TicketHolderSchema
from api.resources.variants.schemas import RULES_SCHEMA

CHALLENGE_STATUSES = ["open", "accepted", "declined", "cancelled", "expired"]
MAX_EXPIRES_IN_S = 86400


class AddresseeSchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    bot = ma.fields.String(metadata={"description": "a registered bot's name", "example": "mybot"})
    player = player_field("a player of the challenger's app (an app's player challenges)")

    @ma.validates_schema
    def _one(self, data: dict[str, Any], **kwargs: object) -> None:
        if ("bot" in data) == ("player" in data):
            raise ma.ValidationError("`to` names a `bot` or a `player`, one of them")


class CreateChallengeSchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    to = ma.fields.Nested(AddresseeSchema, required=True, metadata={"description": "whom: `{\"bot\": name}` or `{\"player\": id}`"})
    variant = ma.fields.String(
        required=True, validate=ma.validate.OneOf(list(domino.PRESETS)), metadata={"description": "a `GET /v1/variants` name"}
    )
    rules = ma.fields.Dict(
        keys=ma.fields.String(validate=ma.validate.Length(max=64)),
        load_default=dict,
        metadata={"schema": {**RULES_SCHEMA, "description": "option overrides, as for a game of two seats"}},
    )
    rated = StrictBoolean(
        load_default=False,
        metadata={"description": "`true`: a rated game (an app's player or a registered bot challenges; never anonymous)"},
    )
    turn_timeout_s = StrictFloat(
        validate=ma.validate.Range(min=1, max=MAX_TURN_TIMEOUT), metadata={"description": "seconds per move, as for a game"}
    )
    clock = ma.fields.Nested(ClockSchema, metadata={"description": "a Fischer clock, as for a game (not with `turn_timeout_s`)"})
    expires_in_s = StrictFloat(
        validate=ma.validate.Range(min=1, max=MAX_EXPIRES_IN_S),
        metadata={
            "description": "how long the challenge stays open for an answer: 1 s to a day (default 60 s, "
            "`DOMINO_CHALLENGE_EXPIRY`)",
            "example": 60,
        },
    )
    player = player_field("an app's challenge: the challenging player (with the app's key)")
    name = name_field("an anonymous challenge: the name shown at the table (default `Player`)", "Ada")

    @ma.validates_schema
    def _one_clock(self, data: dict[str, Any], **kwargs: object) -> None:
        one_clock(data, "a challenge")


class ChallengeToSchema(ma.Schema):
    bot = ma.fields.String(metadata={"description": "the registered bot challenged"})
    player = ma.fields.String(metadata={"description": "the app's player challenged"})


class ChallengeSchema(ma.Schema):
    id = ma.fields.String(required=True)
    status = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(CHALLENGE_STATUSES),
        metadata={"description": "`open`, then `accepted` (see `game_id`, `seat`, `token`), `declined`, `cancelled` or `expired`"},
    )
    from_ = ma.fields.Nested(TicketHolderSchema, required=True, data_key="from", metadata={"description": "the challenger"})
    to = ma.fields.Nested(ChallengeToSchema, required=True, metadata={"description": "the addressee"})
    variant = ma.fields.String(required=True)
    rules = ma.fields.Dict(required=True)
    rated = ma.fields.Boolean(required=True)
    turn_timeout_s = ma.fields.Float()
    clock = ma.fields.Nested(ClockSchema)
    created_at = ma.fields.String(required=True)
    expires_at = ma.fields.String(required=True, metadata={"description": "until when it may be accepted (UTC)"})
    game_id = ma.fields.String(required=True, allow_none=True, metadata={"description": "once accepted: the game"})
    seat = ma.fields.Integer(
        required=True, allow_none=True, metadata={"description": "once accepted: the reader's seat (the challenger 0, the addressee 1)"}
    )
    token = ma.fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "once accepted: the reader's seat token (a registered bot moves with its own: null)"},
    )
    reason = ma.fields.String(
        required=True, allow_none=True, metadata={"description": "`cancelled` after an accept: why its game could not be made"}
    )


class CreatedChallengeSchema(ma.Schema):
    challenge = ma.fields.Nested(ChallengeSchema, required=True)
    token = ma.fields.String(
        required=True, metadata={"description": "the challenge's token (`dch_...`), shown once: read and cancel it with it"}
    )


class ChallengePartySchema(ma.Schema):
    player = player_field("with the app's key: which of its players calls (the challenger or the addressee)")


class ChallengeQuerySchema(ChallengePartySchema):
    wait = ma.fields.Float(
        load_default=0.0,
        validate=ma.validate.Range(min=0, max=30),
        metadata={"description": "seconds to wait while the challenge is open (a long poll), at most 30"},
    )


def document(spec: APISpec) -> None:
    """What marshmallow cannot say of a challenge's addressee: exactly one of `bot` and `player`."""
    spec.components.schemas["Addressee"].update(minProperties=1, maxProperties=1)

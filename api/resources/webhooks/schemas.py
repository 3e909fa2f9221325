"""The parts of the OpenAPI document no route describes (the document's `webhooks`): the turn delivery to a
hosted seat's or a registered bot's webhook, and an app's lifecycle deliveries."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from apispec import APISpec

from api.resources.challenges.schemas import ChallengeSchema
from api.resources.games.history import HistorySeatSchema
from api.resources.games.schemas import GAME_STATUSES, STATUS_DOC, GameViewSchema, LastRoundSchema
from api.resources.moves.schemas import MoveSchema
from api.service.app_events import CHALLENGE_RECEIVED, EVENT_TYPES, MATCH_FOUND, TURN_REMINDER, TURN_STARTED


class TurnDeliverySchema(ma.Schema):
    """What a hosted seat's or a registered bot's webhook receives on its turn (a registered bot's stream
    carries the same notice, as a `BotNotice` of type `turn`)."""

    type = ma.fields.String(required=True, validate=ma.validate.OneOf(["turn"]))
    game_id = ma.fields.String(required=True)
    seat = ma.fields.Integer(required=True, metadata={"description": "the bot's seat, the one to move"})
    version = ma.fields.Integer(
        required=True, metadata={"description": "the game's version: post the move with `expected_version` = this"}
    )
    deadline = ma.fields.Float(
        required=True, allow_none=True, metadata={"description": "Unix time by which to move (null: no clock)"}
    )
    legal_moves = ma.fields.List(
        ma.fields.Nested(MoveSchema), required=True, metadata={"description": "the seat's legal moves (as in `view`)"}
    )
    move_url = ma.fields.String(
        required=True,
        metadata={
            "description": "the path to post the move to, with the seat token (a registered bot: its bot token)",
            "example": "/v1/games/h4k2mzq7c3x9b2rt/moves",
        },
    )
    view = ma.fields.Nested(GameViewSchema, required=True, metadata={"description": "the seat's view, with its legal moves"})


class AppEventDataSchema(ma.Schema):
    """The game as a spectator sees it when the event happened: no hidden tile until the game ends."""

    game_id = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True, metadata={"description": "the game's version the event belongs to"})
    variant = ma.fields.String(required=True)
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(GAME_STATUSES), metadata={"schema": STATUS_DOC})
    round = ma.fields.Integer(required=True)
    scores = ma.fields.List(ma.fields.Integer(), required=True, metadata={"description": "per seat"})
    team_scores = ma.fields.List(ma.fields.Integer(), required=True, allow_none=True)
    winners = ma.fields.List(ma.fields.Integer(), required=True, metadata={"description": "seats; empty until the end"})
    seats = ma.fields.List(ma.fields.Nested(HistorySeatSchema), required=True, metadata={"description": "with `player` and `metadata` where set"})
    players = ma.fields.List(
        ma.fields.String(allow_none=True), required=True, metadata={"description": "per seat: its `player`, or null"}
    )
    metadata = ma.fields.Dict(required=True, allow_none=True, metadata={"description": "the game's metadata (null: none)"})
    result = ma.fields.Dict(
        metadata={"description": "`round.ended`: the round's result, as in the `round_ended` event (its remaining hands are public now)"}
    )
    outcome = ma.fields.Dict(
        metadata={"description": "`game.ended`: `reason`, `winners`, `team` and the final `scores`, as in the `game_ended` event"}
    )
    last_round = ma.fields.Nested(
        LastRoundSchema, allow_none=True, metadata={"description": "`game.ended`: the last round's result"}
    )


class AppEventSchema(ma.Schema):
    """What an app's webhook receives when one of its games starts, ends a round, or ends."""

    type = ma.fields.String(required=True, validate=ma.validate.OneOf(EVENT_TYPES))
    timestamp = ma.fields.String(required=True, metadata={"description": "ISO 8601, UTC: when the event was committed"})
    data = ma.fields.Nested(AppEventDataSchema, required=True)


class AppTurnDataSchema(ma.Schema):
    game_id = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True, metadata={"description": "the game's version whose turn this is"})
    variant = ma.fields.String(required=True)
    seat = ma.fields.Integer(required=True, metadata={"description": "the human seat to move"})
    name = ma.fields.String(required=True, allow_none=True)
    player = ma.fields.String(required=True, allow_none=True, metadata={"description": "the app's id of the seat's user"})
    deadline = ma.fields.Float(
        required=True, allow_none=True, metadata={"description": "Unix time by which the seat moves (null: no clock)"}
    )
    metadata = ma.fields.Dict(required=True, allow_none=True, metadata={"description": "the game's metadata"})


class AppTurnEventSchema(ma.Schema):
    """What an app's webhook receives when a human seat of one of its games is to move (`turn.started`), and
    once when that turn's time is running out (`turn.reminder`)."""

    type = ma.fields.String(required=True, validate=ma.validate.OneOf([TURN_STARTED, TURN_REMINDER]))
    timestamp = ma.fields.String(required=True, metadata={"description": "ISO 8601, UTC: when it was sent first"})
    data = ma.fields.Nested(AppTurnDataSchema, required=True)


class PingDataSchema(ma.Schema):
    app = ma.fields.String(required=True, metadata={"description": "the app's name"})


class PingSchema(ma.Schema):
    """What `POST /v1/app/webhook/test` sends the app's webhook."""

    type = ma.fields.String(required=True, validate=ma.validate.OneOf(["ping"]))
    timestamp = ma.fields.String(required=True, metadata={"description": "ISO 8601, UTC: when it was queued"})
    data = ma.fields.Nested(PingDataSchema, required=True)


class MatchedPlayerSchema(ma.Schema):
    player = ma.fields.String(required=True, metadata={"description": "the app's id of the player"})
    seat = ma.fields.Integer(required=True)
    ticket = ma.fields.String(required=True, metadata={"description": "the ticket matched: its holder reads the seat's token there"})


class AppMatchDataSchema(ma.Schema):
    game_id = ma.fields.String(required=True)
    players = ma.fields.List(ma.fields.Nested(MatchedPlayerSchema), required=True)


class AppMatchEventSchema(ma.Schema):
    """What an app's webhook receives when matchmaking seats its players (`match.found`)."""

    type = ma.fields.String(required=True, validate=ma.validate.OneOf([MATCH_FOUND]))
    timestamp = ma.fields.String(required=True, metadata={"description": "ISO 8601, UTC: when it was sent first"})
    data = ma.fields.Nested(AppMatchDataSchema, required=True)


class AppChallengeDataSchema(ma.Schema):
    player = ma.fields.String(required=True, metadata={"description": "the app's player challenged"})
    challenge = ma.fields.Nested(
        ChallengeSchema,
        required=True,
        metadata={"description": "the challenge as its addressee reads it: accept or decline it with the app's key and `player`"},
    )


class AppChallengeEventSchema(ma.Schema):
    """What an app's webhook receives when one of its players is challenged (`challenge.received`)."""

    type = ma.fields.String(required=True, validate=ma.validate.OneOf([CHALLENGE_RECEIVED]))
    timestamp = ma.fields.String(required=True, metadata={"description": "ISO 8601, UTC: when it was sent first"})
    data = ma.fields.Nested(AppChallengeDataSchema, required=True)


def _header(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "header", "required": True, "description": description, "schema": schema}


HEADERS = [
    _header("webhook-id", "the delivery's id: the same on every retry", {"type": "string"}),
    _header("webhook-timestamp", "Unix seconds of this attempt", {"type": "string", "pattern": r"^\d+$"}),
    _header(
        "webhook-signature",
        "`v1,<base64 HMAC-SHA256 of \"<id>.<timestamp>.<body>\">` with the secret; during a secret's grace after "
        "`domino-admin apps rotate-secret`, two of them, space-separated (by the old secret, then the new): accept "
        "the delivery when one checks out",
        {"type": "string"},
    ),
    _header("webhook-attempt", "1 for the first delivery, 2 for the first retry, ...", {"type": "string", "pattern": r"^\d+$"}),
]
APP_EVENT_WHEN = {
    "game.started": "a game of the app starts: created with no open seat, or when its last open seat is taken",
    "round.ended": "a round of one of the app's games ends (also the last one, just before `game.ended`)",
    "game.ended": "one of the app's games ends (`data.outcome`, `data.winners`, the final `data.scores`)",
    TURN_STARTED: "a human seat of one of the app's games is to move (only when the app subscribes to it)",
    TURN_REMINDER: "once per turn of at least `DOMINO_REMINDER_MIN_TURN` (600 s), when `DOMINO_REMINDER_FRACTION` "
    "(0.2) of its time is left and the seat has not moved; on a clock, a turn's time is the seat's bank as it starts "
    "(only when the app subscribes to it)",
    "ping": "the app asked for a test delivery (`POST /v1/app/webhook/test`); its `webhook-id` is `msg_ping_<id>`",
    MATCH_FOUND: "matchmaking seated some of the app's players in a game (only when the app subscribes to it)",
    CHALLENGE_RECEIVED: "another player of the app challenged one of its players (`POST /v1/challenges`); its "
    "`webhook-id` is `msg_<challenge id>_0_challenge_received` (only when the app subscribes to it)",
}


def _app_event(event_type: str) -> dict[str, Any]:
    return {
        "post": {
            "operationId": "appEvent" + "".join(part.title() for part in event_type.split(".")),
            "summary": f"`{event_type}`: {APP_EVENT_WHEN[event_type]}",
            "description": "Sent to the app's `webhook` (`domino-admin apps create --webhook URL`), signed as Standard "
            "Webhooks with the app's webhook secret (shown once by `apps create`, `apps rotate-secret` and `PATCH "
            "/v1/app` when it sets a first webhook). The "
            "`webhook-id` (`msg_<game id>_<version>_<event>`, the event with `_` for `.`) is the same on every "
            "retry of one event: drop duplicates by it. Any 2xx counts as delivered; anything else, a timeout or a "
            "refused connection is "
            "retried after each step of `DOMINO_WEBHOOK_BACKOFF`. Events of one game may arrive out of order "
            "after a retry: order them by `data.version`. Nothing is sent for a revoked app. Each delivery shows in "
            "`GET /v1/app/deliveries`, and `POST /v1/app/deliveries/{id}/redeliver` sends it again with its id.",
            "parameters": HEADERS,
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/" + _schema(event_type)}}},
            },
            "responses": {"2XX": {"description": "Delivered"}},
        }
    }


def _schema(event_type: str) -> str:
    if event_type == "ping":
        return "AppPing"
    if event_type == MATCH_FOUND:
        return "AppMatchEvent"
    if event_type == CHALLENGE_RECEIVED:
        return "AppChallengeEvent"
    return "AppTurnEvent" if event_type in (TURN_STARTED, TURN_REMINDER) else "AppEvent"


def document(spec: APISpec) -> None:
    """The `webhooks` section: the `turn` delivery a worker POSTs to a hosted bot's `webhook` URL, and the
    lifecycle events POSTed to an app's."""
    spec.components.schema("TurnDelivery", schema=TurnDeliverySchema)
    spec.components.schema("AppEvent", schema=AppEventSchema)
    spec.components.schema("AppTurnEvent", schema=AppTurnEventSchema)
    spec.components.schema("AppPing", schema=PingSchema)
    spec.components.schema("AppMatchEvent", schema=AppMatchEventSchema)
    spec.components.schema("AppChallengeEvent", schema=AppChallengeEventSchema)
    spec.options["webhooks"] = {
        **{event_type: _app_event(event_type) for event_type in (*EVENT_TYPES, TURN_STARTED, TURN_REMINDER, MATCH_FOUND, CHALLENGE_RECEIVED, "ping")},
        "turn": {
            "post": {
                "operationId": "hostedBotTurn",
                "summary": "A hosted seat's or a registered bot's turn: its view, to answer with a move",
                "description": "Sent to the seat's `webhook` (created with `{\"name\", \"webhook\"}`), or to a "
                "registered bot's (`POST /v1/bots` with `webhook`), when it is to move, signed as Standard Webhooks "
                "with that `webhook_secret`. The bot answers by posting one of `legal_moves` to `move_url` with its "
                "seat token, or a registered bot with its bot token (`expected_version` = `version`). Any "
                "2xx counts as delivered; anything else, a timeout (`DOMINO_WEBHOOK_TIMEOUT`, 3 s) or a refused "
                "connection is retried after each step of `DOMINO_WEBHOOK_BACKOFF` (1, 5, 15, 60 s by default, "
                "counted from the failure), with the same `webhook-id`. Redirects are not followed.",
                "parameters": [
                    _header("webhook-id", "`turn_<game id>_<version>`: the same on every retry", {"type": "string"}),
                    *HEADERS[1:],
                ],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TurnDelivery"}}},
                },
                "responses": {"2XX": {"description": "Delivered; the move itself comes by `POST {move_url}`"}},
            }
        }
    }

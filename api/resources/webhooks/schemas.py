"""The parts of the OpenAPI document no route describes: the turn delivery to a hosted seat's or a registered
bot's webhook (the document's `webhooks`)."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from apispec import APISpec

from api.resources.games.schemas import GameViewSchema
from api.resources.moves.schemas import MoveSchema


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


def _header(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "header", "required": True, "description": description, "schema": schema}


def document(spec: APISpec) -> None:
    """The `webhooks` section: the `turn` delivery a worker POSTs to a hosted bot's `webhook` URL."""
    spec.components.schema("TurnDelivery", schema=TurnDeliverySchema)
    spec.options["webhooks"] = {
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
                    _header("webhook-timestamp", "Unix seconds of this attempt", {"type": "string", "pattern": r"^\d+$"}),
                    _header(
                        "webhook-signature",
                        "`v1,<base64 HMAC-SHA256 of \"<id>.<timestamp>.<body>\">` with the secret",
                        {"type": "string"},
                    ),
                    _header("webhook-attempt", "1 for the first delivery, 2 for the first retry, ...", {"type": "string", "pattern": r"^\d+$"}),
                ],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TurnDelivery"}}},
                },
                "responses": {"2XX": {"description": "Delivered; the move itself comes by `POST {move_url}`"}},
            }
        }
    }

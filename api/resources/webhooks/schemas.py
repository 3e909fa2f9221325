"""The parts of the OpenAPI document no route describes: the hosted-bot delivery (the document's `webhooks`)."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from apispec import APISpec

from api.resources.games.schemas import GameViewSchema


class TurnDeliverySchema(ma.Schema):
    """What a hosted bot's webhook receives on its turn."""

    type = ma.fields.String(required=True, validate=ma.validate.OneOf(["turn"]))
    game_id = ma.fields.String(required=True)
    seat = ma.fields.Integer(required=True, metadata={"description": "the bot's seat, the one to move"})
    version = ma.fields.Integer(
        required=True, metadata={"description": "the game's version: post the move with `expected_version` = this"}
    )
    deadline = ma.fields.Float(
        required=True, allow_none=True, metadata={"description": "Unix time by which to move (null: no clock)"}
    )
    move_url = ma.fields.String(
        required=True,
        metadata={"description": "the path to post the move to, with the seat token", "example": "/v1/games/h4k2mzq7c3x9b2rt/moves"},
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
                "summary": "A hosted bot's turn: its view, to answer with a move",
                "description": "Sent to the seat's `webhook` (created with `{\"name\", \"webhook\"}`) when it is to "
                "move, signed as Standard Webhooks with the seat's `webhook_secret`. The bot answers by posting one "
                "of `view.legal_moves` to `move_url` with its seat token (`expected_version` = `version`). Any "
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

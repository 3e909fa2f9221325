
from __future__ import annotations

import flask

from api import errors as E
from api.extensions import Blueprint, current_service
from api.resources.bots.schemas import BotSchema
from api.resources.common import json_response

blp = Blueprint(
    "bots", __name__, url_prefix="/v1/bots", description="Computer players, and the bots apps register (`kind: registered`)."
)

LIST_EXAMPLE = [
    {"id": "greedy", "kind": "builtin", "description": "Plays the heaviest legal tile.", "strength": "beats random"},
    {
        "id": "mybot",
        "kind": "registered",
        "description": "Plays from its stream.",
        "owner": "acme",
        "variants": ["draw"],
        "delivery": "stream",
        "available": True,
        "missed_turns": 0,
        "created_at": 1764614400.0,
    },
]


@blp.route("")
@blp.doc(operationId="listBots")
@blp.response(200, BotSchema(many=True), example=LIST_EXAMPLE)
@blp.problems(E.UNAVAILABLE, path="/v1/bots")
def list_bots() -> flask.Response:
    """List the bots a seat can name: the computer players, then the registered bots

    Seat one as `{"bot": "<id>"}`. Computer players (`kind: builtin`) are run by the workers; registered
    bots (`kind: registered`) play on their owners' machines, from their webhook or their stream, and are
    seated only in the `variants` they play and while `available`. Retired bots are not listed."""
    return json_response(current_service().bots(), headers={"Cache-Control": "no-cache"})


@blp.route("/<string:name>")
@blp.doc(operationId="getBot")
@blp.response(200, BotSchema, example=LIST_EXAMPLE[1])
@blp.problems(E.NOT_FOUND, E.UNAVAILABLE, path="/v1/bots/mybot")
def get_bot(name: str) -> flask.Response:
    """Read one registered bot: its variants, where its turns go, whether it is available"""
    return json_response(current_service().bot(name), headers={"Cache-Control": "no-cache"})

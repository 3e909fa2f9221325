from __future__ import annotations

import flask

from api import errors as E
from api.extensions import Blueprint, current_service
from api.resources.bots.schemas import BotSchema
from api.resources.common import json_response

blp = Blueprint("bots", __name__, url_prefix="/v1/bots", description="Computer-player strategies.")


@blp.route("")
@blp.doc(operationId="listBots")
@blp.response(
    200,
    BotSchema(many=True),
    example=[{"id": "greedy", "description": "Plays its heaviest legal tile.", "strength": None}],
)
@blp.problems(E.INTERNAL, path="/v1/bots")
def list_bots() -> flask.Response:
    """List the computer-player strategies: id, description and measured strength"""
    return json_response(current_service().bots(), headers={"Cache-Control": "public, max-age=300"})

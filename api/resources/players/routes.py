from __future__ import annotations

import re

import flask
import marshmallow as ma

from api import errors as E
from api.callers import required_app
from api.extensions import Blueprint, current_service
from api.resources.common import APP_KEY, PLAYER_PATTERN, json_response
from api.service.errors import InvalidRequest

blp = Blueprint("players", __name__, url_prefix="/v1/app/players", description="The calling app's players.")

PLAYER = {
    "name": "player",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": PLAYER_PATTERN},
    "description": "your app's own id of the user, as its seats named it (`player`)",
    "example": "user:4711",
}


class ErasedSchema(ma.Schema):
    games = ma.fields.Integer(
        required=True,
        metadata={"description": "the games, live and archived, in which a seat named the player (0 when none is left)"},
    )


@blp.route("/<string:player>", methods=["DELETE"])
@blp.doc(operationId="erasePlayer", security=APP_KEY, parameters=[PLAYER])
@blp.response(200, ErasedSchema, example={"games": 3})
@blp.problems(E.UNAUTHORIZED, E.INVALID_REQUEST, E.UNAVAILABLE, path="/v1/app/players/user:4711")
def erase_player(player: str) -> flask.Response:
    """Erase one of your players from every game of your app (a deletion request)

    In every game your app created, live or archived, each seat whose `player` is this id gets `"erased"`
    for its `player` and for its name (a seat never claimed keeps its null name) and loses its `metadata`; the
    events that named it (`game_created`, `seat_claimed`) say `"erased"` too, in views, histories, records
    and exports alike. The moves and the scores stay. A game in play gets a new `version` for it, with no event
    (a move sent with the `expected_version` before it answers 412: read the view again). Afterwards no listing
    finds the id (`player=` lists nothing), and calling again answers `games: 0`. Other apps' games are never
    touched; first answers kept for `Idempotency-Key` retries expire as usual (`DOMINO_IDEMPOTENCY_TTL`)."""
    app = required_app()
    if not re.match(PLAYER_PATTERN, player):
        why = "1-64 of A-Z a-z 0-9 . _ : @ -"
        raise InvalidRequest(f"Not a player id: {why}.", errors={"path": {"player": [why]}})
    games = current_service().erase_player(app, player)
    return json_response({"games": games}, headers={"Cache-Control": "no-store"})

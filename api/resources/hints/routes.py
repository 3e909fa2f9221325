from __future__ import annotations

from typing import Any

import flask

from api import errors as E
from api.extensions import BODY_PROBLEMS, Blueprint, current_service, optional_body
from api.resources.common import SEAT_TOKEN, bearer_token, json_response
from api.resources.hints.schemas import HintBodySchema, HintSchema

blp = Blueprint("hints", __name__, url_prefix="/v1/games", description="Hints in practice games.")

EXAMPLE = {
    "version": 18,
    "seat": 0,
    "hints_used": 1,
    "moves": [
        {"move": {"type": "play", "tile": "5-2", "end": "right"}, "value": 6.4},
        {"move": {"type": "play", "tile": "3-3", "end": "left"}, "value": -1.75},
    ],
}


@blp.route("/<string:game_id>/hint", methods=["POST"])
@blp.doc(operationId="askHint", security=SEAT_TOKEN)
@blp.arguments(HintBodySchema(), required=False, example={})
@blp.response(200, HintSchema, example=EXAMPLE)
@blp.problems(
    *BODY_PROBLEMS,
    E.UNAUTHORIZED,
    E.FORBIDDEN,
    E.NOT_FOUND,
    E.HINTS_OFF,
    E.NOT_YOUR_TURN,
    E.NOT_STARTED,
    E.GAME_OVER,
    E.VERSION_MISMATCH,
    E.UNAVAILABLE,
    path="/v1/games/h4k2mzq7c3x9b2rt/hint",
)
@optional_body
def ask_hint(body: dict[str, Any], game_id: str) -> flask.Response:
    """Ask for a hint: the seat to move's legal moves, valued and ranked (a seat token; games with `hints`)

    A game created with `"hints": true` (a practice game, never rated) lets the seat to move ask for its legal
    moves with their values, best first: the expected final point margin of the current round for its side,
    from what it can see (the same values as an analysis; a search of about 50 ms on a hints worker, the same
    answer for the same position). A hint is a commit that everyone sees: the event `hint_used`, and one more
    in the seat's `hints_used` (views and history); the turn goes on as it was (same deadline, the clock still
    running). The answer's `version` is that commit's. 409 `hints-off` in a game without hints,
    `not-your-turn` when another seat is to move; 412 `version-mismatch` when the game moved on while the hint
    was searched (ask again); 503 `unavailable` (`Retry-After`) when no hints worker answered in time (nothing
    was counted)."""
    hint = current_service().hint(game_id, bearer_token())
    return json_response(hint, headers={"Cache-Control": "no-store"})

from __future__ import annotations

from typing import Any

import flask

from api import errors as E
from api.extensions import BODY_PROBLEMS, Blueprint, current_service, no_body, optional_body
from api.resources.common import SEAT_TOKEN, bearer_token, json_response
from api.resources.games.schemas import VIEW_EXAMPLE
from api.resources.rematch.schemas import RematchBodySchema, RematchCreatedSchema, RematchSchema

blp = Blueprint(
    "rematch", __name__, url_prefix="/v1/games", description="The same table again after a game ends."
)

PATH = "/v1/games/h4k2mzq7c3x9b2rt/rematch"
OPEN = {"status": "open", "expires_at": 1764614460.0, "accepted": [0], "next_game_id": None, "token": None}
CREATED = {**OPEN, "status": "created", "accepted": [0, 1], "next_game_id": "m3x7kq2zc4n9b2rt", "token": "q8Yf3kTz0c9PaLm2"}


@blp.route("/<string:game_id>/rematch", methods=["POST"])
@blp.doc(operationId="offerRematch", tags=["matchmaking"], security=SEAT_TOKEN, responses={202: {"description": "accepted; others must too"}})
@blp.arguments(RematchBodySchema(), required=False, example={"rematch_timeout_s": 60})
@blp.response(201, RematchCreatedSchema, example={"game": VIEW_EXAMPLE, "token": "q8Yf3kTz0c9PaLm2", "version": 0})
@blp.alt_response(202, schema=RematchSchema, example=OPEN)
@blp.problems(*BODY_PROBLEMS, E.UNAUTHORIZED, E.NOT_FOUND, E.GAME_NOT_OVER, E.OFFER_CLOSED, E.BOT_BUSY, E.UNAVAILABLE, path=PATH)
@optional_body
def offer_rematch(body: dict[str, Any], game_id: str) -> flask.Response:
    """Offer the same table again, or accept the offer (a seat token of the finished game)

    The first call makes the offer (open `rematch_timeout_s` seconds, 60 by default); each other human seat
    accepts with the same call and its own token, a registered bot with its bot token (it hears a `rematch`
    notice on its stream); computer players and hosted seats accept at once. The call that completes the
    acceptances answers 201 with the new game (same variant, rules, seats in the same places, timing and
    rated; a new seed) and the caller's new seat token; earlier accepters get 202 and read their new token
    with `GET .../rematch` once the game exists. The finished game then has the event `rematch_created` and
    `next_game_id` in its view. One new game per finished game: accepting twice, after a decline or after
    the offer expired is 409 `offer-closed`; before the game is over, 409 `game-not-over`."""
    status, answer = current_service().rematch(game_id, bearer_token(), body.get("rematch_timeout_s"))
    headers = {"Cache-Control": "no-store"}
    if status == 201:
        headers["Location"] = f"/v1/games/{answer['game']['id']}"
    return json_response(answer, status=status, headers=headers)


@blp.route("/<string:game_id>/rematch")
@blp.doc(operationId="getRematch", tags=["matchmaking"], security=SEAT_TOKEN)
@blp.response(200, RematchSchema, example=CREATED)
@blp.problems(E.UNAUTHORIZED, E.NOT_FOUND, E.GAME_NOT_OVER, E.UNAVAILABLE, path=PATH)
def get_rematch(game_id: str) -> flask.Response:
    """Read the rematch offer of a finished game (a seat token): once created, the new game and your seat's token"""
    return json_response(current_service().rematch_offer(game_id, bearer_token()), headers={"Cache-Control": "no-store"})


@blp.route("/<string:game_id>/rematch/decline", methods=["POST"])
@blp.doc(operationId="declineRematch", tags=["matchmaking"], security=SEAT_TOKEN)
@blp.response(200, RematchSchema, example={**OPEN, "status": "declined"})
@blp.problems(E.UNAUTHORIZED, E.NOT_FOUND, E.GAME_NOT_OVER, E.OFFER_CLOSED, E.UNAVAILABLE, path=f"{PATH}/decline")
@no_body
def decline_rematch(game_id: str) -> flask.Response:
    """Decline the open rematch offer (a seat token): no new game is made"""
    return json_response(current_service().decline_rematch(game_id, bearer_token()), headers={"Cache-Control": "no-store"})

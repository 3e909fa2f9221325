from __future__ import annotations

from typing import Any

import flask

import domino
from api import errors as E
from api.callers import calling_app
from api.extensions import BODY_PROBLEMS, Blueprint, current_service
from api.ratelimit import client_id
from api.resources.common import (
    IDEMPOTENCY_KEY,
    SEAT_TOKEN_OPTIONAL,
    VIEW_HEADERS,
    bearer_token,
    etag,
    idempotency_key,
    if_none_match_hits,
    json_response,
    view_headers,
)
from api.service.create import GameRequest
from api.resources.games.history import HistorySchema
from api.resources.games.record_example import RECORD_EXAMPLE, TEXT_EXAMPLE
from api.resources.games.schemas import VIEW_EXAMPLE, CreatedGameSchema, CreateGameSchema, GameViewSchema

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Create games; read views and history.")

IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "schema": {"type": "string"},
    "description": 'The view\'s ETag (`"<version>"`): 304 when unchanged.',
}
CREATE_EXAMPLE = {
    "variant": "draw",
    "rules": {"target_score": 100},
    "seats": [{"name": "Ana"}, {"bot": "greedy"}],
}


GAME_ID = "$response.body#/game/id"
FIRST_TOKEN = "Bearer {$response.body#/tokens/0/token}"  # the first human seat's token
# From a new game to what can be done with it (typed clients and stateful fuzzing follow these).
CREATED_LINKS = {
    "GetGame": {"operationId": "getGame", "parameters": {"game_id": GAME_ID, "header.Authorization": FIRST_TOKEN},
                "description": "the first human seat's view"},
    "PlayMove": {"operationId": "playMove", "parameters": {"game_id": GAME_ID, "header.Authorization": FIRST_TOKEN},
                 "description": "a move for the first human seat"},
    "GetEvents": {"operationId": "getGameEvents", "parameters": {"game_id": GAME_ID}, "description": "the public events"},
    "GetHistory": {"operationId": "getGameHistory", "parameters": {"game_id": GAME_ID}},
    "ClaimSeat": {"operationId": "claimSeat", "parameters": {"game_id": GAME_ID}, "description": "an open seat"},
    "CreateStreamTicket": {"operationId": "createStreamTicket",
                           "parameters": {"game_id": GAME_ID, "header.Authorization": FIRST_TOKEN}},
    "Resign": {"operationId": "resignGame", "parameters": {"game_id": GAME_ID, "header.Authorization": FIRST_TOKEN}},
    "AskHint": {"operationId": "askHint", "parameters": {"game_id": GAME_ID, "header.Authorization": FIRST_TOKEN}},
    "OfferRematch": {"operationId": "offerRematch",
                     "parameters": {"game_id": GAME_ID, "header.Authorization": FIRST_TOKEN}},
    "GetRematch": {"operationId": "getRematch", "parameters": {"game_id": GAME_ID, "header.Authorization": FIRST_TOKEN}},
    "DeclineRematch": {"operationId": "declineRematch",
                       "parameters": {"game_id": GAME_ID, "header.Authorization": FIRST_TOKEN}},
}  # fmt: skip


@blp.route("", methods=["POST"])
@blp.doc(operationId="createGame", parameters=[IDEMPOTENCY_KEY], responses={201: {"links": CREATED_LINKS}})
@blp.arguments(CreateGameSchema(), example=CREATE_EXAMPLE)
@blp.response(
    201,
    CreatedGameSchema,
    example={"game": VIEW_EXAMPLE, "tokens": [{"seat": 0, "token": "q1V0cX2b...43 characters"}]},
    headers={
        "Location": {"description": "the game's URL", "schema": {"type": "string"}},
        "ETag": VIEW_HEADERS["ETag"],
    },
)
@blp.problems(
    *BODY_PROBLEMS, E.UNAUTHORIZED, E.FORBIDDEN, E.IDEMPOTENCY_KEY_REUSED, E.BOT_BUSY, E.TOO_MANY_GAMES, E.TOO_MANY_APP_GAMES,
    E.UNAVAILABLE, path="/v1/games",
)  # fmt: skip
def create_game(body: dict[str, Any]) -> flask.Response:
    """Create a game: a variant, rule overrides, seats (humans by name, bots by id) and an optional seed

    Answers with the first human seat's view (else the spectator's) and one token per human seat.
    The tokens are shown only here. A retry with the same `Idempotency-Key` gets the first answer only from
    the same caller (the same address, and the same `Authorization` header if one was sent); from anyone
    else the key is unknown. A client may have `DOMINO_GAMES_PER_CLIENT` games waiting or playing at once
    (429 `too-many-games` beyond). A game with a `seed` is never listed in the lobby.

    With an app key (`Authorization: Bearer dsk_app_...`) the game belongs to the app: it is listed by
    `GET /v1/games?owner=me`, counts against the app's own cap of games waiting or playing (429
    `too-many-app-games` beyond) instead of the address's, and the app's webhook hears of its lifecycle. The
    game and each seat may carry `metadata`, and a seat a `player` (the app's id of its user). An unknown,
    rotated or revoked app key is a 401; so is a request without one when the server requires app keys
    (`DOMINO_REQUIRE_APP_KEY`).

    A registered bot is seated only with its owner's app key (403 `forbidden` otherwise, and nothing is
    created). A `rated` game updates its players' ratings when it ends (`GET /v1/ratings/{variant}`): it seats
    only computer players (built-in, or registered with consent) and app players (seats with a `player`), and
    has no `seed`; its open seats are not listed in the lobby. A game with `hints` is a practice game: the seat
    to move may ask `POST /v1/games/{id}/hint`; it is never rated (`rated` and `hints` together: 422)."""
    request = GameRequest(
        body["variant"],
        body["seats"],
        rules=body.get("rules"),
        seed=body.get("seed"),
        unlisted=body.get("unlisted", False),
        turn_timeout_s=body.get("turn_timeout_s"),
        clock=body.get("clock"),
        rated=body.get("rated", False),
        hints=body.get("hints", False),
        metadata=body.get("metadata"),
    )
    view, tokens, version, game_id = current_service().create_game(
        request, client_id(), idempotency_key(), bearer_token(), calling_app()
    )
    headers = {"Location": f"/v1/games/{game_id}", "ETag": etag(version), "Cache-Control": "no-store"}
    return json_response({"game": view, "tokens": tokens}, status=201, headers=headers)


@blp.route("/<string:game_id>")
@blp.doc(operationId="getGame", security=SEAT_TOKEN_OPTIONAL, parameters=[IF_NONE_MATCH])
@blp.response(200, GameViewSchema, example=VIEW_EXAMPLE, headers=VIEW_HEADERS)
@blp.alt_response(304, description="Not modified (If-None-Match matched the current version)")
@blp.problems(E.UNAUTHORIZED, E.NOT_FOUND, E.UNAVAILABLE, path="/v1/games/h4k2mzq7c3x9b2rt")
def get_game(game_id: str) -> flask.Response:
    """Read a game: a seat's view with its seat token, else the spectator's

    A seat's view shows its hand and, on its turn, its legal moves; nobody sees another seat's tiles."""
    view, version, seat, archived = current_service().view(game_id, bearer_token(), if_none_match_hits)
    if view is None:
        return flask.Response(status=304, headers=view_headers(version, seat, archived))
    return json_response(view, headers=view_headers(version, seat, archived))


@blp.route("/<string:game_id>/history")
@blp.doc(operationId="getGameHistory", security=SEAT_TOKEN_OPTIONAL)
@blp.response(
    200,
    HistorySchema,
    example={
        "id": "h4k2mzq7c3x9b2rt",
        "variant": "draw",
        "status": "finished",
        "version": 41,
        "seat": None,
        "seats": [{"seat": 0, "name": "Ana", "kind": "human"}, {"seat": 1, "name": "greedy", "kind": "bot"}],
        "rules": {"variant": "draw", "players": 2, "hand_size": 7, "target_score": 100},
        "rounds": [VIEW_EXAMPLE["last_round"]],
        "events": [
            {"id": "1-1", "version": 1, "type": "tile_played", "seat": 0, "tile": "6-6", "end": None, "points": 0},
            {"id": "2-1", "version": 2, "type": "tile_drawn", "seat": 1, "boneyard_count": 13, "tile": "3-2"},
        ],
        "outcome": {"reason": "resigned", "winners": [0], "team": None},
        "deals": [{"round": 1, "hands": [["6-6", "5-2"], ["3-3", "4-1"]], "boneyard": ["3-2", "0-0"]}],
        "seed": "5f0c...",
        "salt": "a1b2...",
        "seed_commitment": "9f2c...",
        "client_seeded": False,
        "created_at": 1764951661.5,
    },
    headers={"ETag": VIEW_HEADERS["ETag"], "Vary": VIEW_HEADERS["Vary"]},
)
@blp.problems(E.UNAUTHORIZED, E.NOT_FOUND, E.UNAVAILABLE, path="/v1/games/h4k2mzq7c3x9b2rt/history")
def get_history(game_id: str) -> flask.Response:
    """Read a game's rounds, moves and results

    While the game is on, only what the caller's seat may see (its own draws; others' as "drew a tile").
    Once it is over: every deal, the boneyard order, every draw, the seed and the salt, so anyone can check
    the `seed_commitment` and replay the game."""
    history = current_service().history(game_id, bearer_token())
    headers = view_headers(history["version"], history["seat"], history["archived"])
    return json_response(history, headers=headers)


RECORD_TEXT = domino.notation.MEDIA_TYPE


@blp.route("/<string:game_id>/record")
@blp.doc(
    operationId="getGameRecord",
    responses={
        200: {
            "content": {
                RECORD_TEXT: {
                    "schema": {"type": "string", "description": "the record's text form (docs/notation.md)"},
                    "example": TEXT_EXAMPLE,
                }
            }
        }
    },
)
@blp.response(
    200, HistorySchema, example=RECORD_EXAMPLE, headers={"Vary": {"description": "`Accept`", "schema": {"type": "string"}}}
)
@blp.problems(E.NOT_FOUND, E.GAME_NOT_OVER, E.UNAVAILABLE, path="/v1/games/h4k2mzq7c3x9b2rt/record")
def get_record(game_id: str) -> flask.Response:
    """Read a finished game's record: JSON, or its text with `Accept: text/x-domino-record`

    The JSON record is the game's history as everyone reads it once the game is over (every deal, the
    boneyard order, every draw, the seed and the salt); the text form (`text/x-domino-record`, UTF-8) renders
    it as tags and one line per move, and reads back to the same JSON by replaying it: `docs/notation.md`
    defines it, and `domino.notation.parse` / `domino.replay` read and check either form. A game still
    waiting or being played has no record yet (409 `game-not-over`: it would reveal the hands)."""
    record = current_service().record(game_id)
    headers = {"Vary": "Accept", "Cache-Control": "no-cache"}
    if flask.request.accept_mimetypes.best_match(["application/json", RECORD_TEXT]) == RECORD_TEXT:
        text = domino.notation.write_text(record)
        return flask.Response(text, content_type=f"{RECORD_TEXT}; charset=utf-8", headers=headers)
    return json_response(record, headers=headers)

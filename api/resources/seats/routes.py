from __future__ import annotations

from typing import Any

import flask

from api import errors as E
from api.callers import required_app
from api.errors import InvalidRequest
from api.extensions import BODY_PROBLEMS, Blueprint, current_service, no_body
from api.ratelimit import client_id
from api.resources.common import (
    IF_MATCH,
    SEAT_TOKEN,
    VIEW_HEADERS,
    bearer_token,
    json_response,
    parse_if_match,
    view_headers,
)
from api.resources.games.schemas import VIEW_EXAMPLE, GameViewSchema
from api.resources.seats.schemas import ClaimedSeatSchema, ClaimSeatSchema, LobbyPageSchema, LobbyQuerySchema

blp = Blueprint("seats", __name__, url_prefix="/v1/games", description="The lobby, open seats, resigning.")

LOBBY_EXAMPLE = {
    "games": [
        {
            "id": "h4k2mzq7c3x9b2rt",
            "variant": "draw",
            "rules": {"hand_size": 7, "target_score": 100},
            "status": "waiting",
            "version": 0,
            "created_at": 1767268800.123,
            "seats": [{"seat": 0, "name": "Ana", "kind": "human"}, {"seat": 1, "name": None, "kind": "open"}],
            "open_seats": [1],
            "turn_timeout_s": 60.0,
            "client_seeded": False,
        }
    ],
    "next_before": None,
    "next_cursor": None,
    "next": None,
}


@blp.route("", methods=["GET"])
@blp.doc(operationId="listWaitingGames", tags=["games"])
@blp.arguments(LobbyQuerySchema(), location="query", as_kwargs=True)
@blp.response(200, LobbyPageSchema, example=LOBBY_EXAMPLE)
@blp.problems(E.UNAUTHORIZED, E.INVALID_REQUEST, E.UNAVAILABLE, path="/v1/games")
def list_games(
    limit: int,
    before: float | None = None,
    cursor: str | None = None,
    owner: str | None = None,
    status: str | None = None,
    player: str | None = None,
) -> flask.Response:
    """The lobby (listed games with an open seat), or with `owner=me` the calling app's games; newest first

    Paginated: `limit` games (at most 100) per page, newest first by creation time and id; follow `next` (or
    pass `next_cursor` as `cursor`; `before`, a time, works too). The lobby: games created with
    `"unlisted": true` never appear; a game leaves it when its last seat is taken, it ends or it expires.

    `owner=me` (with the app key) lists every game the app created, of any status, optionally only those of
    one `status` or with a seat naming `player`; each entry adds `round`, `scores`, `winners` and the game's
    `metadata`. Finished games are read from the archive once it holds them, in the same order. A page may hold
    fewer than `limit` games while `next` is not null (a `status` filter skips games). Another app's games are
    never listed. Games that expired before they ended drop out. Without `owner`, `status` is `waiting` and
    `player` is not allowed (422)."""
    if before is not None and cursor is not None:
        raise InvalidRequest("Give `cursor` or `before`, not both.", errors={"query": {"cursor": ["not with before"]}})
    start = parse_cursor(cursor) if cursor is not None else None if before is None else (before, "")
    if owner is None:
        if status not in (None, "waiting") or player is not None:
            raise InvalidRequest(
                "Without `owner=me` this is the lobby: `status` is `waiting`, and there is no `player`.",
                errors={"query": {"status" if player is None else "player": ["only with owner=me"]}},
            )
        games, next_key = current_service().lobby(start, limit)
        query = f"status=waiting&limit={limit}"
    else:
        games, next_key = current_service().owned_games(required_app(), status, player, start, limit)
        query = "&".join(
            f"{k}={v}" for k, v in (("owner", owner), ("status", status), ("player", player), ("limit", limit)) if v is not None
        )
    next_cursor = None if next_key is None else f"{next_key[0]!r}_{next_key[1]}"
    next_url = None if next_cursor is None else f"/v1/games?{query}&cursor={next_cursor}"
    headers = {"Cache-Control": "no-cache"} if owner is None else {"Cache-Control": "private, no-cache", "Vary": "Authorization"}
    page = {"games": games, "next_before": None if next_key is None else next_key[0], "next_cursor": next_cursor, "next": next_url}
    return json_response(page, headers=headers)


def parse_cursor(cursor: str) -> tuple[float, str]:
    """``<created_at>_<id>`` (the schema checked its form) as the key it names."""
    at, _, game_id = cursor.partition("_")
    return float(at), game_id


@blp.route("/<string:game_id>/seats/<int:seat>", methods=["POST"])
@blp.doc(operationId="claimSeat", parameters=[IF_MATCH])
@blp.arguments(ClaimSeatSchema(), example={"name": "Bo"})
@blp.response(
    201,
    ClaimedSeatSchema,
    example={
        "game": {**VIEW_EXAMPLE, "status": "playing", "seat": 1},
        "seat": 1,
        "token": "q1V0cX2b...43 characters",
        "client_seeded": False,
    },
    headers={"Location": {"description": "the game's URL", "schema": {"type": "string"}}},
)
@blp.problems(
    *BODY_PROBLEMS, E.NOT_FOUND, E.SEAT_TAKEN, E.SEAT_LIMIT, E.GAME_OVER, E.VERSION_MISMATCH, E.UNAVAILABLE,
    path="/v1/games/h4k2mzq7c3x9b2rt/seats/1",
)  # fmt: skip
def claim_seat(body: dict[str, Any], game_id: str, seat: int) -> flask.Response:
    """Claim an open seat: returns its token (shown once)

    Of many concurrent claims of one seat exactly one wins; the others get 409 `seat-taken`. When the last
    open seat is taken the game starts: turn clocks run and computer players move. In a listed game one
    client (address) may hold `DOMINO_SEATS_PER_CLIENT` claimed seats (1 by default; 409 `seat-limit`
    beyond). `client_seeded: true` in the answer warns that the creator chose the seed and can know every
    hand. With `If-Match` the claim lands only on that version of the game (else 412)."""
    expected = parse_if_match(flask.request.headers.get("If-Match"))
    view, token, _version = current_service().claim_seat(game_id, seat, body["name"], client_id(), expected)
    headers = {"Location": f"/v1/games/{game_id}", "Cache-Control": "no-store"}
    answer = {"game": view, "seat": seat, "token": token, "client_seeded": view["client_seeded"]}
    return json_response(answer, status=201, headers=headers)


@blp.route("/<string:game_id>/resign", methods=["POST"])
@blp.doc(operationId="resignGame", security=SEAT_TOKEN, parameters=[IF_MATCH])
@blp.response(200, GameViewSchema, example={**VIEW_EXAMPLE, "status": "finished", "winners": [1]}, headers=VIEW_HEADERS)
@blp.problems(
    *BODY_PROBLEMS, E.UNAUTHORIZED, E.NOT_FOUND, E.GAME_OVER, E.VERSION_MISMATCH, E.UNAVAILABLE,
    path="/v1/games/h4k2mzq7c3x9b2rt/resign",
)  # fmt: skip
@no_body
def resign(game_id: str) -> flask.Response:
    """Resign for the token's seat: the game ends and the other side (seat or team) wins

    No body is needed. The events are `resigned` and `game_ended` (reason `resigned`). With `If-Match` the
    resignation lands only on that version (else 412)."""
    expected = parse_if_match(flask.request.headers.get("If-Match"))
    view, version = current_service().resign(game_id, bearer_token(), expected)
    return json_response(view, headers=view_headers(version, view["seat"]))

from __future__ import annotations

import re
from typing import Any

import flask

from api import errors as E
from api.callers import calling_app, required_app
from api.service.errors import InvalidRequest
from api.extensions import BODY_PROBLEMS, Blueprint, current_service, no_body, optional_body
from api.ratelimit import client_id
from api.resources.common import (
    APP_KEY,
    IF_MATCH,
    SEAT_TOKEN,
    VIEW_HEADERS,
    bearer_token,
    json_response,
    parse_if_match,
    view_headers,
)
from api.resources.games.schemas import VIEW_EXAMPLE, GameViewSchema
from api.resources.seats.schemas import (
    ClaimedSeatSchema, ClaimSeatSchema, LobbyPageSchema, LobbyQuerySchema, ResignSchema,
)  # fmt: skip

blp = Blueprint("seats", __name__, url_prefix="/v1/games", description="The lobby, open seats, resigning, aborting.")

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
    to_move: bool | None = None,
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
    `player` is not allowed (422).

    `owner=me&player=X&to_move=true` lists the app's games in which it is X's turn (waiting and finished games
    never are), soonest `deadline` first, games without a deadline after them, oldest first; follow `next`
    (an opaque `cursor`; `next_before` is null). It looks at the player's 1,000 newest games."""
    if to_move:
        if owner is None or player is None or status is not None or before is not None:
            why = "only with owner=me and player (no status, no before)"
            raise InvalidRequest(f"`to_move` goes {why}.", errors={"query": {"to_move": [why]}})
        return _to_move_page(player, cursor, limit)
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


CURSOR = re.compile(r"^([0-9]{1,13}(?:\.[0-9]{1,9})?)_([a-z2-7]{16})$")


def parse_cursor(cursor: str) -> tuple[float, str]:
    """``<created_at>_<id>`` as the key it names; anything else is a 422."""
    found = CURSOR.fullmatch(cursor)
    if found is None:
        why = "`next_cursor` of a page of this listing, as it was given"
        raise InvalidRequest(f"This is not a cursor: use {why}.", errors={"query": {"cursor": [why]}})
    return float(found[1]), found[2]


def _to_move_page(player: str, cursor: str | None, limit: int) -> flask.Response:
    games, after = current_service().games_to_move(required_app(), player, cursor, limit)
    next_url = None if after is None else f"/v1/games?owner=me&player={player}&to_move=true&limit={limit}&cursor={after}"
    headers = {"Cache-Control": "private, no-cache", "Vary": "Authorization"}
    return json_response({"games": games, "next_before": None, "next_cursor": after, "next": next_url}, headers=headers)


@blp.route("/<string:game_id>/seats/<int:seat>", methods=["POST"])
@blp.doc(operationId="claimSeat", security=[{}, *APP_KEY], parameters=[IF_MATCH])
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
    *BODY_PROBLEMS, E.UNAUTHORIZED, E.FORBIDDEN, E.NOT_FOUND, E.SEAT_TAKEN, E.SEAT_LIMIT, E.GAME_OVER,
    E.VERSION_MISMATCH, E.UNAVAILABLE, path="/v1/games/h4k2mzq7c3x9b2rt/seats/1",
)  # fmt: skip
def claim_seat(body: dict[str, Any], game_id: str, seat: int) -> flask.Response:
    """Claim an open seat: returns its token (shown once)

    Of many concurrent claims of one seat exactly one wins; the others get 409 `seat-taken`. When the last
    open seat is taken the game starts: turn clocks run and computer players move. In a listed game one
    client (address) may hold `DOMINO_SEATS_PER_CLIENT` claimed seats (1 by default; 409 `seat-limit`
    beyond). `client_seeded: true` in the answer warns that the creator chose the seed and can know every
    hand. With `If-Match` the claim lands only on that version of the game (else 412). A seat that names an
    app's `player` is claimed only with that app's key (`Authorization: Bearer dsk_app_...`; 403 otherwise):
    it is the app's user (such seats of rated games are never in the lobby)."""
    expected = parse_if_match(flask.request.headers.get("If-Match"))
    app = calling_app()
    view, token, _version = current_service().claim_seat(game_id, seat, body["name"], client_id(), expected, app)
    headers = {"Location": f"/v1/games/{game_id}", "Cache-Control": "no-store"}
    answer = {"game": view, "seat": seat, "token": token, "client_seeded": view["client_seeded"]}
    return json_response(answer, status=201, headers=headers)


@blp.route("/<string:game_id>/resign", methods=["POST"])
@blp.doc(operationId="resignGame", security=[*SEAT_TOKEN, *APP_KEY], parameters=[IF_MATCH])
@blp.arguments(ResignSchema(), required=False, example={"seat": 1})
@blp.response(200, GameViewSchema, example={**VIEW_EXAMPLE, "status": "finished", "winners": [1]}, headers=VIEW_HEADERS)
@blp.problems(
    *BODY_PROBLEMS, E.UNAUTHORIZED, E.FORBIDDEN, E.NOT_FOUND, E.GAME_OVER, E.NOT_STARTED, E.VERSION_MISMATCH,
    E.UNAVAILABLE, path="/v1/games/h4k2mzq7c3x9b2rt/resign",
)  # fmt: skip
@optional_body
def resign(body: dict[str, Any], game_id: str) -> flask.Response:
    """Resign a seat: the game ends and the other side (seat or team) wins

    With a seat token: that seat resigns; no body is needed (the answer is its view). With the key of the app
    that owns the game: the body names the seat, `{"seat": 1}` (a seat the game does not have is a 422; the
    answer is the spectator's view); another app's key is a 403, a game not started yet a 409 `not-started`
    (abort it instead). The events are `resigned` and `game_ended` (reason `resigned`). With `If-Match` the
    resignation lands only on that version (else 412)."""
    expected = parse_if_match(flask.request.headers.get("If-Match"))
    view, version = current_service().resign(game_id, bearer_token(), expected, calling_app(), body.get("seat"))
    return json_response(view, headers=view_headers(version, view["seat"]))


@blp.route("/<string:game_id>/abort", methods=["POST"])
@blp.doc(operationId="abortGame", security=APP_KEY, parameters=[IF_MATCH])
@blp.response(200, GameViewSchema, example={**VIEW_EXAMPLE, "status": "aborted"}, headers=VIEW_HEADERS)
@blp.problems(
    *BODY_PROBLEMS, E.UNAUTHORIZED, E.FORBIDDEN, E.NOT_FOUND, E.GAME_OVER, E.VERSION_MISMATCH, E.UNAVAILABLE,
    path="/v1/games/h4k2mzq7c3x9b2rt/abort",
)  # fmt: skip
@no_body
def abort(game_id: str) -> flask.Response:
    """Call off a game the calling app owns, waiting or playing: it ends `aborted`

    Only with the key of the app that created the game (no key: 401; another app's: 403). No body is needed
    (or `{}`). Nobody wins and nothing is rated; the event is `game_ended` (reason `aborted`), the app hears
    `game.ended`, and the game frees its slot of the app's cap. A game already over is a 409 `game-over`
    naming its `game_status`. With `If-Match` the abort lands only on that version (else 412). The answer is
    the spectator's view."""
    expected = parse_if_match(flask.request.headers.get("If-Match"))
    view, version = current_service().abort(game_id, calling_app(), expected)
    return json_response(view, headers=view_headers(version, view["seat"]))

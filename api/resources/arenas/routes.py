from __future__ import annotations

from typing import Any

import flask

from api import errors as E
from api.callers import calling_app
from api.extensions import BODY_PROBLEMS, Blueprint, current_service, no_body
from api.resources.arenas.schemas import ArenaListQuerySchema, ArenaPageSchema, ArenaSchema, CreateArenaSchema
from api.resources.common import APP_KEY, BOT_TOKEN, bearer_token, json_response
from api.resources.simulations.schemas import encode_cursor
from api.service.arenas.spec import ArenaOwner, ArenaRequest

blp = Blueprint(
    "arenas", __name__, url_prefix="/v1/arenas", description="Rated games between bots, played on the workers, with standings."
)

GREEDY = {"name": "greedy", "kind": "builtin", "mu": 27.9, "sigma": 5.1, "ordinal": 12.6, "games": 8,
          "last_game_at": 1735732803.1}  # fmt: skip
RANDOM = {"name": "random", "kind": "builtin", "mu": 22.1, "sigma": 5.1, "ordinal": 6.8, "games": 8,
          "last_game_at": 1735732803.1}  # fmt: skip
EXAMPLE = {
    "id": "a7x2mzk4c3n9b2rt",
    "status": "finished",
    "variant": "draw",
    "rules": {"target_score": 50},
    "bots": ["greedy", "random"],
    "duplicate": True,
    "deals": 4,
    "seatings": 2,
    "games_per_bot": 4,
    "games_total": 8,
    "games_started": 8,
    "games_done": 8,
    "games_playing": 0,
    "created_at": "2025-01-01T12:00:00.000Z",
    "finished_at": "2025-01-01T12:00:03.120Z",
    "elapsed_seconds": 3.12,
    "standings": [
        {
            "bot": "greedy", "games": 8, "wins": 6, "win_rate": 0.75, "win_rate_ci95": [0.4093, 0.9285],
            "points_mean": 52.1, "points_mean_ci95": [47.2, 57.0], "place_mean": 0.25, "rating": GREEDY,
            "by_deal": {"deals": 4, "win_rate": 0.75, "win_rate_ci95": [0.26, 1.0]},
        },
        {
            "bot": "random", "games": 8, "wins": 2, "win_rate": 0.25, "win_rate_ci95": [0.0715, 0.5907],
            "points_mean": 31.4, "points_mean_ci95": [22.0, 40.8], "place_mean": 0.75, "rating": RANDOM,
            "by_deal": {"deals": 4, "win_rate": 0.25, "win_rate_ci95": [0.0, 0.74]},
        },
    ],
    "games": [
        {"index": 0, "deal": 0, "seats": ["greedy", "random"], "id": "k2q5v7x3m4n6b8c2", "status": "finished",
         "scores": [53, 20], "winners": [0]},
        {"index": 1, "deal": 0, "seats": ["random", "greedy"], "id": "p3r6t8w2y4z6a8d3", "status": "finished",
         "scores": [12, 55], "winners": [1]},
    ],
    "error": None,
}  # fmt: skip

ARENA_ID = {"arena_id": "$response.body#/id"}


def _owner() -> ArenaOwner:
    """The caller as an arena owner: its app key, else its bot token (401 without either)."""
    return current_service().arena_owner(calling_app(), bearer_token())


@blp.route("", methods=["POST"])
@blp.doc(operationId="createArena", security=[*APP_KEY, *BOT_TOKEN], responses={202: {"links": {"GetArena": {"operationId": "getArena", "parameters": ARENA_ID}}}})
@blp.arguments(CreateArenaSchema(), example={"variant": "draw", "bots": ["greedy", "random"], "deals": 4, "rules": {"target_score": 50}})
@blp.response(
    202,
    ArenaSchema,
    example={**EXAMPLE, "status": "running", "games_done": 0, "games_started": 4, "games_playing": 4, "finished_at": None},
    headers={"Location": {"description": "the arena's URL", "schema": {"type": "string"}}},
)
@blp.problems(*BODY_PROBLEMS, E.UNAUTHORIZED, E.FORBIDDEN, E.TOO_MANY_ARENAS, E.UNAVAILABLE, path="/v1/arenas")
def create_arena(body: dict[str, Any]) -> flask.Response:
    """Start an arena: rated games between bots, played on the workers like any game, with standings

    Needs an app key or a registered bot's token (401 without): the caller owns the arena, lists it
    (`GET /v1/arenas?owner=me`) and may cancel it. It may enter the computer players, its own registered bots
    (an app's bots; a bot itself), and registered bots whose owners opened them to arenas
    (`PATCH /v1/bots/{name}` `{"arenas": "open"}`); any other registered bot is a 403 and nothing is created.
    An owner has at most `DOMINO_ARENAS_PER_OWNER` arenas running (429 `too-many-arenas` beyond).

    Every game seats all the `bots` (so their number is the number of players) and is a real game: rated,
    unlisted, readable at `GET /v1/games/{id}` while it is played, its bots moving through the usual turn
    jobs. With `duplicate` (the default) each deal is played in every seating of the bots, so the luck of the
    deal cancels out. An arena has at most `DOMINO_ARENA_GAMES_PER_BOT` games in play at once (each seats
    every bot; other arenas do not wait for it); the next games start as games end. Caps (422 beyond):
    `DOMINO_ARENA_MAX_DEALS` deals, `DOMINO_ARENA_MAX_GAMES` games, and the caps of any game of computer
    players only (`target_score`, `rounds`). Each game updates the bots' ratings (`GET /v1/ratings/{variant}`)
    when it ends."""
    owner = _owner()
    request = ArenaRequest(
        body["variant"], body["bots"], body["deals"], duplicate=body.get("duplicate", True), rules=body.get("rules")
    )
    arena_id, arena = current_service().create_arena(request, owner)
    return json_response(arena, status=202, headers={"Location": f"/v1/arenas/{arena_id}", "Cache-Control": "no-store"})


@blp.route("", methods=["GET"])
@blp.doc(operationId="listArenas", security=[*APP_KEY, *BOT_TOKEN])
@blp.arguments(ArenaListQuerySchema(), location="query", as_kwargs=True)
@blp.response(200, ArenaPageSchema, example={"arenas": [EXAMPLE], "next_before": None, "next": None})
@blp.problems(E.UNAUTHORIZED, E.INVALID_REQUEST, E.UNAVAILABLE, path="/v1/arenas")
def list_arenas(owner: str, limit: int, before: tuple[float, str] | None = None) -> flask.Response:
    """List the caller's arenas (`owner=me`), newest first, each as `GET /v1/arenas/{id}` shows it

    The arenas created with the calling app key or bot token (401 without either). Paginated: `limit` arenas
    (at most 100) per page; follow `next`. An arena leaves the list when its record expires (7 days after
    its last game ended)."""
    arenas, next_before = current_service().owned_arenas(_owner(), before, limit)
    cursor = None if next_before is None else encode_cursor(next_before)
    next_url = None if cursor is None else f"/v1/arenas?owner={owner}&limit={limit}&before={cursor}"
    return json_response({"arenas": arenas, "next_before": cursor, "next": next_url}, headers={"Cache-Control": "no-store"})


@blp.route("/<string:arena_id>/cancel", methods=["POST"])
@blp.doc(operationId="cancelArena", security=[*APP_KEY, *BOT_TOKEN])
@blp.response(200, ArenaSchema, example={**EXAMPLE, "status": "cancelled"})
@blp.problems(
    *BODY_PROBLEMS, E.UNAUTHORIZED, E.FORBIDDEN, E.NOT_FOUND, E.UNAVAILABLE, path="/v1/arenas/a7x2mzk4c3n9b2rt/cancel"
)
@no_body
def cancel_arena(arena_id: str) -> flask.Response:
    """Cancel an arena (its creator's app key or bot token only): it starts no more games

    Status `cancelled`; the games already in play end and count (and are rated) as usual. Another caller: 403;
    an arena over already is answered as it is. No body is needed."""
    arena = current_service().cancel_arena(arena_id, _owner())
    return json_response(arena, headers={"Cache-Control": "no-store"})


@blp.route("/<string:arena_id>")
@blp.doc(operationId="getArena")
@blp.response(200, ArenaSchema, example=EXAMPLE)
@blp.problems(E.NOT_FOUND, E.UNAVAILABLE, path="/v1/arenas/a7x2mzk4c3n9b2rt")
def get_arena(arena_id: str) -> flask.Response:
    """Read an arena: progress, its games (ids, seats, results) and the standings so far

    Per bot: wins and win rate with its 95% Wilson interval, mean final score with its 95% interval, mean
    place, its rating in the variant now; in duplicate mode also the win rate clustered by deal, over the
    deals whose every seating has ended. An arena is kept 7 days after its last game ended."""
    return json_response(current_service().arena(arena_id), headers={"Cache-Control": "no-store"})

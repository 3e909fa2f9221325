from __future__ import annotations

import flask

from api import errors as E
from api.callers import required_app
from api.extensions import Blueprint, current_service
from api.resources.common import json_response
from api.resources.ratings.schemas import LeaderboardQuerySchema, LeaderboardSchema, encode_board_cursor

blp = Blueprint(
    "ratings", __name__, url_prefix="/v1/ratings", description="Ratings from rated games, per variant: the leaderboards."
)

EXAMPLE = {
    "variant": "draw",
    "ratings": [
        {"name": "greedy", "kind": "builtin", "mu": 27.61, "sigma": 4.12, "ordinal": 15.25, "games": 48,
         "last_game_at": 1764614400.0},
        {"name": "random", "kind": "builtin", "mu": 22.39, "sigma": 4.12, "ordinal": 10.03, "games": 48,
         "last_game_at": 1764614400.0},
    ],
    "next_cursor": None,
    "next": None,
}  # fmt: skip


@blp.route("/<string:variant>")
@blp.doc(operationId="getLeaderboard")
@blp.arguments(LeaderboardQuerySchema(), location="query", as_kwargs=True)
@blp.response(
    200,
    LeaderboardSchema,
    example=EXAMPLE,
    headers={"Link": {"description": "`<next page URL>; rel=\"next\"` when there is one", "schema": {"type": "string"}}},
)
@blp.problems(E.UNAUTHORIZED, E.NOT_FOUND, E.INVALID_REQUEST, E.UNAVAILABLE, path="/v1/ratings/draw")
def get_leaderboard(variant: str, limit: int, app: str | None = None, cursor: tuple[float, str] | None = None) -> flask.Response:
    """Read a variant's leaderboard: the computer players' ratings from rated games, best first

    Each rated game (`"rated": true` in `POST /v1/games`, and every game of an arena) updates its players'
    ratings once when it ends, a moment later (a worker counts it): openskill's Plackett-Luce model, each
    side of the table a team (one seat, or two partners), ranked by the result (the winners first, then by
    final score). Ordered by `ordinal` = `mu - 3 sigma`, a cautious estimate that rises as games are
    counted. A variant that is not a preset is a 404.

    Who is rated: a rated game seats only consented bots and the creating app's own players. A seat that
    resigned, or whose turns the server played more than half of (its timeouts), takes the loss alone: its
    partner is not rated for that game, and the other sides are rated as winning against it. A game with app
    players moves only their ratings (on the app's leaderboard); the bots in it keep theirs.

    The bots' leaderboard (built-in and registered bots; retired ones leave it) is public. With `app=me` and
    an app key (`Authorization: Bearer dsk_app_...`; 401 without), the calling app's own players instead: the
    seats with a `player` in the rated games it created, `kind: "player"`. Paged: `limit` entries, then
    follow `next` (or the `Link` header); each entry has its `games` and `last_game_at`."""
    calling = required_app() if app is not None else None
    board, after = current_service().leaderboard(variant, limit, calling, cursor)
    next_cursor = None if after is None else encode_board_cursor(after)
    query = f"?limit={limit}" + ("&app=me" if app else "") + f"&cursor={next_cursor}"
    next_url = None if next_cursor is None else f"/v1/ratings/{variant}{query}"
    headers = {"Cache-Control": "no-store", **({"Link": f'<{next_url}>; rel="next"'} if next_url else {})}
    return json_response({**board, "next_cursor": next_cursor, "next": next_url}, headers=headers)

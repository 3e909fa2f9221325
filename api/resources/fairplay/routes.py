from __future__ import annotations

from typing import Any

import flask

from api import errors as E
from api.callers import required_app
from api.extensions import Blueprint, current_service
from api.ratelimit import client_id
from api.resources.common import APP_KEY, STREAMING, json_response
from api.resources.fairplay.schemas import (
    BotScreenQuerySchema,
    PlayerScreenQuerySchema,
    ScreenSchema,
)

blp = Blueprint(
    "fairplay", __name__, url_prefix="/v1",
    description="Fair-play screens: how often a player chose moves best only with the hidden tiles in sight.",
)  # fmt: skip

GAMES = [{"game_id": "h4k2mzq7c3x9b2rt", "seats": [1], "partners": []}]
QUEUED = {
    "id": "5f0c9a1e7b2d4c6e8a0b1c2d", "subject": {"player": "user:4711"}, "status": "queued", "progress": 0.0,
    "positions_done": 0, "positions_total": None, "nodes": 12000, "games_asked": 20, "games": GAMES,
}  # fmt: skip
FIGURES = {
    "games": 20, "positions": 412, "telling_positions": 121, "seat_count": 61, "expert_count": 22, "rate": 0.1481,
    "expert_rate": 0.0534, "difference": 0.0947, "interval": [0.0512, 0.1381], "p_value": 1e-06, "gain": 1.42,
    "gain_interval": [0.88, 1.96], "gain_p_value": 0.0, "confidence": 0.98, "flag": True,
    "explains": "Over 412 moves with a choice in 20 games, player user:4711 chose a move that is best only "
    "with the hidden tiles in sight 14.8% of the time; expert, on the same positions, 5.3% (...). Both are significant "
    "at the 1% level: flagged. A flag is a reason to look at these games, not a verdict: ...",
}  # fmt: skip
DONE = {**QUEUED, "status": "done", "progress": 1.0, "positions_done": 412, "positions_total": 412, "skipped": [],
        "seat": FIGURES, "team": None}  # fmt: skip
PROBLEMS = (E.UNAUTHORIZED, E.FORBIDDEN, E.NOT_FOUND, E.INVALID_REQUEST, E.TOO_MANY_ANALYSES, E.UNAVAILABLE)
PLAYER = """Reads the player's last `games` finished games among your app's archived games (newest created first, as
`GET /v1/games?owner=me&player=` lists them; a game is archived seconds after it ends): its own moves (`seat`)
and, in team games, its side's (`team`). Only your app sees its players' screens; another app's player is none
of yours (404).

"""
BOT = """Reads the bot's last `games` finished games the archive holds (newest archived first), in any app's games or
arena it played: its own moves (`seat`) and, in team games, its side's (`team`). Only the bot's owner sees its
screen: another app's key is a 403, as for every change to a bot; an unknown bot is a 404.

"""
SCREEN_HEADERS = {"Location": {"description": "where to read it again (this URL)", "schema": {"type": "string"}}}
ABOUT = """The screen compares, at every move with a choice, the moves best from the seat's own information with the
moves best to one who sees the other hands (not the boneyard's order), and counts how often the subject played
one of the latter only; `expert` at the analysis budget (`nodes`) on the same positions is the honest reference.
`flag` is true when the subject took such moves significantly more often than `expert` (exact paired test) and
they were worth significantly more with the hidden tiles in sight than from what it saw, both at the 1% level.
A flag is a reason to look at the games, not a verdict: a player stronger than `expert` scores high, and
signalling between partners shows only in `team` (docs/analysis.md#fair-play-screen).

On request only, never automatic: the first call queues one job on the `analysis` queue (202, `status`
`queued`, then `running` with `progress`); calling again reads it (200 once `done`), or with `wait` a long
poll until it is over. The same subject, `games` and set of games answer the same screen; once another game
finished, the call screens the new set (games read before are not read again). A screen holds one of the
client's analysis slots while it runs (`DOMINO_ANALYSES_PER_CLIENT`, shared with analyses): 429
`too-many-analyses` beyond. 404 when there is no finished game to screen; 422 for `games` outside 1-100."""


@blp.route("/fairplay")
@blp.doc(operationId="screenPlayer", tags=["fairplay"], security=APP_KEY, description=PLAYER + ABOUT, **STREAMING)
@blp.arguments(PlayerScreenQuerySchema(), location="query", as_kwargs=True)
@blp.response(202, ScreenSchema, example=QUEUED, headers=SCREEN_HEADERS)
@blp.alt_response(200, schema=ScreenSchema, example=DONE)
@blp.problems(*PROBLEMS, path="/v1/fairplay?player=user:4711")
def screen_player(player: str, games: int = 20, wait: float = 0.0) -> flask.Response:
    """Screen one of your players' last finished games for fair play (your app key)"""
    app = required_app()
    status, answer = current_service().player_fairplay(app, player, games, client_id(), wait)
    return _answered(status, answer, f"/v1/fairplay?player={player}&games={games}")


@blp.route("/bots/<string:name>/fairplay")
@blp.doc(operationId="screenBot", tags=["fairplay"], security=APP_KEY, description=BOT + ABOUT, **STREAMING)
@blp.arguments(BotScreenQuerySchema(), location="query", as_kwargs=True)
@blp.response(202, ScreenSchema, example={**QUEUED, "subject": {"bot": "mybot"}}, headers=SCREEN_HEADERS)
@blp.alt_response(200, schema=ScreenSchema, example={**DONE, "subject": {"bot": "mybot"}})
@blp.problems(*PROBLEMS, path="/v1/bots/mybot/fairplay")
def screen_bot(name: str, games: int = 20, wait: float = 0.0) -> flask.Response:
    """Screen your registered bot's last finished games for fair play (its owner's app key)"""
    app = required_app()
    status, answer = current_service().bot_fairplay(app, name, games, client_id(), wait)
    return _answered(status, answer, f"/v1/bots/{name}/fairplay?games={games}")


def _answered(status: int, answer: dict[str, Any], location: str) -> flask.Response:
    headers = {"Location": location, "Cache-Control": "private, no-store", "Vary": "Authorization"}
    return json_response(answer, status=status, headers=headers)

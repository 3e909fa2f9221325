from __future__ import annotations

from typing import Any

import flask

from api import errors as E
from api.extensions import BODY_PROBLEMS, Blueprint, current_service, optional_body
from api.ratelimit import client_id
from api.resources.analysis.schemas import AnalysisBodySchema, AnalysisQuerySchema, AnalysisSchema
from api.resources.common import STREAMING, json_response

blp = Blueprint(
    "analysis", __name__, url_prefix="/v1/games",
    description="Every move of a finished game valued from its mover's information: the best move, the loss, accuracy.",
)  # fmt: skip

PATH = "/v1/games/h4k2mzq7c3x9b2rt/analysis"
QUEUED = {"game_id": "h4k2mzq7c3x9b2rt", "status": "queued", "progress": 0.0, "moves_done": 0, "moves_total": None, "nodes": 12000}
PLAY = {"type": "play", "tile": "6-4", "end": "left"}
OTHER = {"type": "play", "tile": "4-1", "end": "right"}
DONE = {
    **QUEUED, "status": "done", "progress": 1.0, "moves_done": 1, "moves_total": 1,
    "moves": [{"version": 7, "seat": 1, "played": OTHER, "best": PLAY,
               "values": [{"move": OTHER, "value": 3.1}, {"move": PLAY, "value": 5.4}], "loss": 2.3}],
    "seats": [{"seat": 0, "count": 0, "mean_loss": None, "accuracy": None},
              {"seat": 1, "count": 1, "mean_loss": 2.3, "accuracy": 0.0}],
}  # fmt: skip


@blp.route("/<string:game_id>/analysis", methods=["POST"])
@blp.doc(operationId="requestAnalysis", tags=["analysis"], security=[{}], responses={200: {"description": "already done"}})
@blp.arguments(AnalysisBodySchema(), required=False, example={})
@blp.response(202, AnalysisSchema, example=QUEUED)
@blp.alt_response(200, schema=AnalysisSchema, example=DONE)
@blp.problems(*BODY_PROBLEMS, E.NOT_FOUND, E.GAME_NOT_OVER, E.TOO_MANY_ANALYSES, E.UNAVAILABLE, path=PATH)
@optional_body
def request_analysis(body: dict[str, Any], game_id: str) -> flask.Response:
    """Analyse a finished game: every move with a choice, valued from its mover's information

    Anyone may ask, once the game is over and its deals revealed (before: 409 `game-not-over`; an arena's
    games when the arena ends). A worker on the `analysis` queue replays the game and values every legal move
    of every move with a choice from what its seat had seen then (docs/analysis.md); read it with
    `GET /v1/games/{id}/analysis`. Idempotent: asking again answers the same analysis (200 once done), and a
    failed one is started again. A client may have 4 analyses queued or running (`DOMINO_ANALYSES_PER_CLIENT`):
    429 `too-many-analyses` beyond."""
    status, answer = current_service().request_analysis(game_id, client_id())
    headers = {"Location": f"/v1/games/{game_id}/analysis", "Cache-Control": "no-store"}
    return json_response(answer, status=status, headers=headers)


@blp.route("/<string:game_id>/analysis")
@blp.doc(operationId="getAnalysis", tags=["analysis"], security=[{}], **STREAMING)
@blp.arguments(AnalysisQuerySchema(), location="query", as_kwargs=True)
@blp.response(200, AnalysisSchema, example=DONE)
@blp.problems(E.NOT_FOUND, E.INVALID_REQUEST, E.UNAVAILABLE, path=PATH)
def get_analysis(game_id: str, wait: float = 0.0) -> flask.Response:
    """Read a game's analysis: `queued`, `running` (with `progress`), `failed`, or `done` with every move

    With `wait`, a long poll: the answer comes when the analysis is over (done or failed) or after `wait`
    seconds. Done, `moves` holds each move with a choice (`played`, `best`, every legal move's `value`, the
    `loss`) and `seats` each seat's `count`, `mean_loss` and `accuracy` (the share of its moves that lost at
    most 0.5 point). 404 when the game has no analysis. Analyses are kept with archived games."""
    return json_response(current_service().analysis(game_id, wait), headers={"Cache-Control": "no-store"})

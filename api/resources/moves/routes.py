from __future__ import annotations

from typing import Any

import flask

from api import errors as E
from api.service.errors import InvalidRequest
from api.extensions import BODY_PROBLEMS, Blueprint, current_service
from api.framework import current_request
from api.wrappers import ApiRequest
from api.resources.common import (
    IDEMPOTENCY_KEY,
    IF_MATCH,
    SEAT_TOKEN,
    VIEW_HEADERS,
    bearer_token,
    idempotency_key,
    json_response,
    parse_if_match,
    view_headers,
)
from api.resources.games.schemas import VIEW_EXAMPLE
from api.resources.moves.schemas import MoveSchema, well_formed_move

blp = Blueprint("moves", __name__, url_prefix="/v1/games", description="Play, draw or pass.")

PREFER = {
    "name": "Prefer",
    "in": "header",
    "required": False,
    "schema": {"type": "string"},
    "description": "`return=minimal` (RFC 7240): answer with only the view's `id`, `variant`, `version`, `seat` and "
    "`status`, for a client that follows the events (`turn_started` carries its next legal moves); the answer "
    "then says `Preference-Applied: return=minimal`.",
}


@blp.route("/<string:game_id>/moves", methods=["POST"])
@blp.doc(operationId="playMove", security=SEAT_TOKEN, parameters=[IF_MATCH, IDEMPOTENCY_KEY, PREFER])
@blp.arguments(
    MoveSchema(),
    parse=False,  # move_body(): the usual body without a schema load
    examples={
        "play": {"value": {"type": "play", "tile": "6-4", "end": "left", "expected_version": 17}},
        "draw": {"value": {"type": "draw"}},
        "pass": {"value": {"type": "pass"}},
    },
)
@blp.response(
    200,
    {"$ref": "#/components/schemas/MoveAnswer"},
    examples={
        "view": {"summary": "the seat's new view", "value": VIEW_EXAMPLE},
        "minimal": {
            "summary": "with Prefer: return=minimal",
            "value": {"id": "h4k2mzq7c3x9b2rt", "variant": "draw", "version": 18, "seat": 0, "status": "playing"},
        },
    },
    headers={
        **VIEW_HEADERS,
        "Preference-Applied": {"description": "`return=minimal` when the answer is minimal", "schema": {"type": "string"}},
    },
)
@blp.problems(
    *BODY_PROBLEMS,
    E.UNAUTHORIZED,
    E.NOT_FOUND,
    E.ILLEGAL_MOVE,
    E.AMBIGUOUS_MOVE,
    E.NOT_YOUR_TURN,
    E.GAME_OVER,
    E.IDEMPOTENCY_KEY_REUSED,
    E.VERSION_MISMATCH,
    E.UNAVAILABLE,
    path="/v1/games/h4k2mzq7c3x9b2rt/moves",
)
def play_move(game_id: str) -> flask.Response:
    """Play, draw or pass for the token's seat

    Validated by the rules engine on the current state and applied atomically. With `expected_version`
    (or `If-Match`) the move lands only on that version; exactly one of many concurrent moves does.
    The answer is the seat's new view; with `Prefer: return=minimal`, only its `id`, `variant`, `version`,
    `seat` and `status`."""
    req = current_request()
    body = move_body(req)
    expected = body.pop("expected_version", None)
    header_version = parse_if_match(req.environ.get("HTTP_IF_MATCH"))
    if expected is not None and header_version is not None and expected != header_version:
        raise InvalidRequest(
            "`expected_version` and `If-Match` name different versions.",
            errors={"json": {"expected_version": ["differs from If-Match"]}},
        )
    if expected is None:
        expected = header_version
    token = bearer_token(req)
    minimal = prefers_minimal(req.environ.get("HTTP_PREFER"))
    view, version = current_service().play_move(game_id, body, token, expected, idempotency_key(req), minimal)
    headers = view_headers(version, view["seat"])
    headers["Vary"] += ", Prefer"
    if minimal:
        headers["Preference-Applied"] = "return=minimal"
    return json_response(view, headers=headers)


MOVE = MoveSchema()


def move_body(req: ApiRequest) -> dict[str, Any]:
    """The request's move (the body guard parsed the JSON): a well-formed one at once, anything else loaded
    by MoveSchema through webargs as every other body is, so a bad one gets the same 422 as before."""
    move = well_formed_move(req.json_body)
    return move if move is not None else blp.ARGUMENTS_PARSER.parse(MOVE, location="json")


def prefers_minimal(header: str | None) -> bool:
    """Whether ``Prefer`` (RFC 7240: comma-separated, case-insensitive) asks for ``return=minimal``."""
    if not header:
        return False
    for preference in header.split(","):  # a loop, not any() over a generator: asked on every move
        if preference.split(";", 1)[0].strip().replace(" ", "").lower() == "return=minimal":
            return True
    return False

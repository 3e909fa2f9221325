from __future__ import annotations

from typing import Any

import flask

from api import errors as E
from api.callers import calling_app
from api.extensions import BODY_PROBLEMS, Blueprint, current_service, no_body
from api.ratelimit import client_id
from api.resources.challenges.schemas import (
    ChallengePartySchema, ChallengeQuerySchema, ChallengeSchema, CreateChallengeSchema, CreatedChallengeSchema,
)  # fmt: skip
from api.resources.common import STREAMING, bearer_token, json_response
from api.service.matchmaking import Caller, ChallengeRequest

blp = Blueprint(
    "challenges", __name__, url_prefix="/v1/challenges", description="One player or bot offers a game to another."
)

PARTIES: list[dict[str, list[str]]] = [{"challengeToken": []}, {"botToken": []}, {"appKey": []}]
PATH = "/v1/challenges/c3k7mzq2c4x9b2rt"
OPEN = {
    "id": "c3k7mzq2c4x9b2rt", "status": "open", "from": {"kind": "player", "name": "user:4711", "app": "a7k2mzq2c4x9b2rt"},
    "to": {"bot": "mybot"}, "variant": "draw", "rules": {}, "rated": False, "created_at": "2026-12-06T12:00:00.000Z",
    "expires_at": "2026-12-06T12:01:00.000Z", "game_id": None, "seat": None, "token": None, "reason": None,
}  # fmt: skip
ACCEPTED = {**OPEN, "status": "accepted", "game_id": "h4k2mzq7c3x9b2rt", "seat": 0, "token": "q8Yf3kTz0c9PaLm2rXw7uV1bN4sE6hJd"}
CHALLENGE_ID = {"challenge_id": "$response.body#/challenge/id"}
# The challenger reads and cancels with the challenge's token (`dch_...`); the addressee answers with its own.
CHALLENGER = {**CHALLENGE_ID, "header.Authorization": "Bearer {$response.body#/token}"}
CREATED_LINKS = {
    "GetChallenge": {"operationId": "getChallenge", "parameters": CHALLENGER},
    "CancelChallenge": {"operationId": "cancelChallenge", "parameters": CHALLENGER},
    "AcceptChallenge": {"operationId": "acceptChallenge", "parameters": CHALLENGE_ID},
    "DeclineChallenge": {"operationId": "declineChallenge", "parameters": CHALLENGE_ID},
}


def _caller(query: dict[str, Any]) -> Caller:
    return Caller(calling_app(), bearer_token(), query.get("player"))


@blp.route("", methods=["POST"])
@blp.doc(
    operationId="createChallenge",
    tags=["matchmaking"],
    security=[{}, {"appKey": []}, {"botToken": []}],
    responses={201: {"links": CREATED_LINKS}},
)
@blp.arguments(CreateChallengeSchema(), example={"to": {"bot": "mybot"}, "variant": "draw", "expires_in_s": 60})
@blp.response(201, CreatedChallengeSchema, example={"challenge": OPEN, "token": "dch_Zq3...t9"})
@blp.problems(
    *BODY_PROBLEMS, E.UNAUTHORIZED, E.FORBIDDEN, E.NOT_FOUND, E.BOT_BUSY, E.DEADLINE_TOO_SHORT, E.TOO_MANY_CHALLENGES,
    E.UNAVAILABLE, path="/v1/challenges",
)  # fmt: skip
def create_challenge(body: dict[str, Any]) -> flask.Response:
    """Challenge a registered bot, or another player of your app, to a game

    Who challenges: an app's `player` (the app's key; it may challenge a bot or another of the app's players),
    a registered bot (its token) or an anonymous client (no `Authorization`: a bot only, unrated). The game's
    terms are a game's (`variant`, `rules`, `rated`, `turn_timeout_s` or `clock`) for two seats: the
    challenger at seat 0, the addressee at seat 1. The addressee hears of it: a registered bot as a `challenge`
    notice on its stream (`GET /v1/bot/events`), an app's player through the app's webhook
    (`challenge.received`, when the app subscribes to it). It answers with `POST .../accept` or `.../decline`
    within `expires_in_s` (60 s by default); the challenger cancels an open one with `DELETE`.

    Accepting is a registered bot's consent to be seated: the game is made then, and the challenger reads its
    seat's token with `GET /v1/challenges/{id}` and the challenge's `token` (`dch_...`, shown once). An
    unknown bot is 404; a bot that plays as many games at once as it accepts 409 `bot-busy`, one whose
    shortest time per move is longer than the game's 422 `deadline-too-short` (`PATCH /v1/bots/{name}`); a
    challenger with 5 open challenges (`DOMINO_MAX_CHALLENGES`) 429 `too-many-challenges`."""
    req = ChallengeRequest(
        variant=body["variant"], to_bot=body["to"].get("bot"), to_player=body["to"].get("player"),
        rules=body.get("rules") or None, rated=body.get("rated", False), turn_timeout_s=body.get("turn_timeout_s"),
        clock=body.get("clock"), expires_in_s=body.get("expires_in_s"), name=body.get("name"),
    )  # fmt: skip
    answer = current_service().open_challenge(req, calling_app(), bearer_token(), body.get("player"), client_id())
    location = f"/v1/challenges/{answer['challenge']['id']}"
    return json_response(answer, status=201, headers={"Location": location, "Cache-Control": "no-store"})


@blp.route("/<string:challenge_id>")
@blp.doc(operationId="getChallenge", tags=["matchmaking"], **STREAMING, security=PARTIES)
@blp.arguments(ChallengeQuerySchema(), location="query")
@blp.response(200, ChallengeSchema, example=ACCEPTED)
@blp.problems(E.UNAUTHORIZED, E.NOT_FOUND, E.INVALID_REQUEST, E.UNAVAILABLE, path=PATH)
def get_challenge(query: dict[str, Any], challenge_id: str) -> flask.Response:
    """Read a challenge (its token, the bot's token, or the app's key and `player`): once accepted, the game and your seat's token

    With `wait`, a long poll: the answer comes when the challenge is answered (accepted, declined, cancelled),
    when it expires, or after `wait` seconds."""
    challenge = current_service().challenge(challenge_id, _caller(query), query["wait"])
    return json_response(challenge, headers={"Cache-Control": "no-store"})


@blp.route("/<string:challenge_id>", methods=["DELETE"])
@blp.doc(operationId="cancelChallenge", tags=["matchmaking"], security=PARTIES)
@blp.arguments(ChallengePartySchema(), location="query")
@blp.response(200, ChallengeSchema, example={**OPEN, "status": "cancelled", "seat": None})
@blp.problems(E.UNAUTHORIZED, E.FORBIDDEN, E.NOT_FOUND, E.INVALID_REQUEST, E.OFFER_CLOSED, E.UNAVAILABLE, path=PATH)
def cancel_challenge(query: dict[str, Any], challenge_id: str) -> flask.Response:
    """Cancel an open challenge (the challenger); an answered or expired one is 409 `offer-closed`"""
    return json_response(current_service().cancel_challenge(challenge_id, _caller(query)), headers={"Cache-Control": "no-store"})


@blp.route("/<string:challenge_id>/accept", methods=["POST"])
@blp.doc(operationId="acceptChallenge", tags=["matchmaking"], security=PARTIES[1:])
@blp.arguments(ChallengePartySchema(), location="query")
@blp.response(200, ChallengeSchema, example={**ACCEPTED, "seat": 1, "token": None})
@blp.problems(
    E.UNAUTHORIZED, E.FORBIDDEN, E.NOT_FOUND, E.INVALID_REQUEST, E.OFFER_CLOSED, E.BOT_BUSY, E.UNAVAILABLE, path=f"{PATH}/accept"
)
@no_body
def accept_challenge(query: dict[str, Any], challenge_id: str) -> flask.Response:
    """Accept a challenge (the addressee: the bot's token, or the app's key and `player`): the game is made

    The answer is the challenge `accepted`, with the game, your seat (1) and its token (a registered bot moves
    with its own: null). Accepting twice, after a decline or cancel, or after it expired is 409
    `offer-closed`; a bot at its `max_games` 409 `bot-busy`."""
    return json_response(current_service().accept_challenge(challenge_id, _caller(query)), headers={"Cache-Control": "no-store"})


@blp.route("/<string:challenge_id>/decline", methods=["POST"])
@blp.doc(operationId="declineChallenge", tags=["matchmaking"], security=PARTIES[1:])
@blp.arguments(ChallengePartySchema(), location="query")
@blp.response(200, ChallengeSchema, example={**OPEN, "status": "declined", "seat": None})
@blp.problems(E.UNAUTHORIZED, E.FORBIDDEN, E.NOT_FOUND, E.INVALID_REQUEST, E.OFFER_CLOSED, E.UNAVAILABLE, path=f"{PATH}/decline")
@no_body
def decline_challenge(query: dict[str, Any], challenge_id: str) -> flask.Response:
    """Decline a challenge (the addressee); an answered or expired one is 409 `offer-closed`"""
    return json_response(current_service().decline_challenge(challenge_id, _caller(query)), headers={"Cache-Control": "no-store"})

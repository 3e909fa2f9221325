from __future__ import annotations

from typing import Any

import flask

from api import errors as E
from api.callers import calling_app
from api.extensions import BODY_PROBLEMS, Blueprint, current_service
from api.ratelimit import client_id
from api.resources.common import STREAMING, bearer_token, json_response
from api.resources.matchmaking.schemas import CreatedMatchTicketSchema, CreateTicketSchema, MatchTicketSchema, TicketQuerySchema
from api.service.matchmaking import TicketRequest

blp = Blueprint(
    "matchmaking",
    __name__,
    url_prefix="/v1/matchmaking",
    description="Find a table: a ticket waits until compatible tickets make a game, or computer players fill it.",
)

TICKET_TOKEN: list[dict[str, list[str]]] = [{"ticketToken": []}]
WAITING = {
    "id": "t3k7mzq2c4x9b2rt", "status": "waiting", "variant": "draw", "players": 2, "rules": {}, "rated": False,
    "rating_range": None, "bots_after_s": 10.0, "bot": "greedy", "party": None,
    "holder": {"kind": "anonymous", "name": "127.0.0.1"}, "created_at": "2026-12-06T12:00:00.000Z",
    "game_id": None, "seat": None, "token": None,
}  # fmt: skip
MATCHED = {**WAITING, "status": "matched", "game_id": "h4k2mzq7c3x9b2rt", "seat": 1, "token": "q8Yf3kTz0c9PaLm2rXw7uV1bN4sE6hJd"}
# A new ticket's id and its token (`dtk_...`): what reads and cancels it.
TICKET = {"ticket_id": "$response.body#/ticket/id", "header.Authorization": "Bearer {$response.body#/token}"}
CREATED_LINKS = {
    "GetTicket": {"operationId": "getTicket", "parameters": TICKET},
    "CancelTicket": {"operationId": "cancelTicket", "parameters": TICKET},
}


@blp.route("/tickets", methods=["POST"])
@blp.doc(
    operationId="createTicket",
    security=[{}, {"appKey": []}, {"botToken": []}],
    responses={201: {"links": CREATED_LINKS}},
)
@blp.arguments(CreateTicketSchema(), example={"variant": "draw", "players": 2, "bots_after_s": 10})
@blp.response(201, CreatedMatchTicketSchema, example={"ticket": WAITING, "token": "dtk_Zq3...t9"})
@blp.problems(
    *BODY_PROBLEMS, E.UNAUTHORIZED, E.BOT_BUSY, E.DEADLINE_TOO_SHORT, E.TOO_MANY_TICKETS, E.UNAVAILABLE, path="/v1/matchmaking/tickets"
)
def create_ticket(body: dict[str, Any]) -> flask.Response:
    """Seek a game: a ticket that waits until the matcher seats it at a table

    Who seeks: an anonymous client (no `Authorization`: unrated), an app's `player` (the app's key), or a
    registered bot (its token). Tickets are matched when they ask for the same variant, rules (after
    defaults), table size (`players`), rated or not and timing; rated tickets also when each one's rating
    (its ordinal) lies in the other's `rating_range`, which widens with the wait. A table never mixes two
    apps' players. With `bots_after_s`, the seats still empty then get computer players (`bot`).

    Read the ticket with its token (`GET /v1/matchmaking/tickets/{id}`, a long poll with `wait`): a waiting
    ticket nobody reads for 30 s (`DOMINO_TICKET_IDLE`) expires. Once `matched`, it holds the `game_id`, your
    `seat` and that seat's `token`. An app hears `match.found` on its webhook when it subscribes to it; a
    registered bot gets a `match` notice on its stream. A holder may have 3 open tickets
    (`DOMINO_MAX_TICKETS`): 429 `too-many-tickets` beyond. A bot's ticket that goes beyond what it accepts
    (`PATCH /v1/bots/{name}`) is refused: 409 `bot-busy` at its `max_games`, 422 `deadline-too-short` with less
    time per move than its `min_turn_timeout_s`."""
    req = TicketRequest(
        variant=body["variant"], players=body["players"], rules=body.get("rules") or None, rated=body.get("rated", False),
        rating_range=tuple(body["rating_range"]) if body.get("rating_range") else None,
        bots_after_s=body.get("bots_after_s"), bot=body.get("bot"), turn_timeout_s=body.get("turn_timeout_s"),
        clock=body.get("clock"), party=body.get("party"), name=body.get("name"),
    )  # fmt: skip
    answer = current_service().open_ticket(req, calling_app(), bearer_token(), body.get("player"), client_id())
    location = f"/v1/matchmaking/tickets/{answer['ticket']['id']}"
    return json_response(answer, status=201, headers={"Location": location, "Cache-Control": "no-store"})


@blp.route("/tickets/<string:ticket_id>")
@blp.doc(operationId="getTicket", **STREAMING, security=TICKET_TOKEN)
@blp.arguments(TicketQuerySchema(), location="query", as_kwargs=True)
@blp.response(200, MatchTicketSchema, example=MATCHED)
@blp.problems(E.UNAUTHORIZED, E.NOT_FOUND, E.INVALID_REQUEST, E.UNAVAILABLE, path="/v1/matchmaking/tickets/t3k7mzq2c4x9b2rt")
def get_ticket(ticket_id: str, wait: float = 0.0) -> flask.Response:
    """Read a ticket (its token): `waiting`, or `matched` with the game, the seat and the seat's token

    With `wait`, a long poll: the answer comes when the ticket's wait ends (matched, cancelled, expired) or
    after `wait` seconds. Reading a waiting ticket keeps it waiting for another 30 s."""
    ticket = current_service().ticket(ticket_id, bearer_token(), wait)
    return json_response(ticket, headers={"Cache-Control": "no-store"})


@blp.route("/tickets/<string:ticket_id>", methods=["DELETE"])
@blp.doc(operationId="cancelTicket", security=TICKET_TOKEN)
@blp.response(200, MatchTicketSchema, example={**WAITING, "status": "cancelled"})
@blp.problems(E.UNAUTHORIZED, E.NOT_FOUND, E.OFFER_CLOSED, E.UNAVAILABLE, path="/v1/matchmaking/tickets/t3k7mzq2c4x9b2rt")
def cancel_ticket(ticket_id: str) -> flask.Response:
    """Cancel a waiting ticket (its token); a matched one is 409 `offer-closed`"""
    ticket = current_service().cancel_ticket(ticket_id, bearer_token())
    return json_response(ticket, headers={"Cache-Control": "no-store"})

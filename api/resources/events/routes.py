from __future__ import annotations

from typing import Any

import flask

from api import errors as E
from api.extensions import BODY_PROBLEMS, Blueprint, current_service, no_body
from api.ratelimit import client_id
from api.resources.common import STREAMING, SEAT_TOKEN, SEAT_TOKEN_OPTIONAL, bearer_token, json_response, wants_sse
from api.resources.events.schemas import EventsHeadersSchema, EventsPageSchema, EventsQuerySchema, TicketSchema
from api.service.events import event_cursor

blp = Blueprint("events", __name__, url_prefix="/v1/games", description="Follow a game: long poll or Server-Sent Events.")

SSE_EXAMPLE = (
    "retry: 2000\n\n"
    'id: 18-1\nevent: tile_played\ndata: {"id":"18-1","version":18,"type":"tile_played","seat":1,"tile":"4-1",'
    '"end":"right","points":0}\n\n'
    ": keep-alive\n\n"
    'id: 19-1\nevent: tile_drawn\ndata: {"id":"19-1","version":19,"type":"tile_drawn","seat":0,"boneyard_count":8,'
    '"tile":"3-2"}\n\n'
    'id: 19-2\nevent: turn_started\ndata: {"id":"19-2","version":19,"type":"turn_started","seat":0,'
    '"legal_moves":[{"type":"play","tile":"3-2","end":"left"},{"type":"draw"}]}\n\n'
)
PAGE_EXAMPLE = {
    "events": [
        {"id": "18-1", "version": 18, "type": "tile_played", "seat": 1, "tile": "4-1", "end": "right", "points": 0},
        {"id": "19-1", "version": 19, "type": "tile_drawn", "seat": 0, "boneyard_count": 8, "tile": "3-2"},
        {
            "id": "19-2",
            "version": 19,
            "type": "turn_started",
            "seat": 0,
            "legal_moves": [{"type": "play", "tile": "3-2", "end": "left"}, {"type": "draw"}],
        },
    ],
    "last_version": 19,
    "ended": False,
    "seat": 0,
}


@blp.route("/<string:game_id>/events")
@blp.doc(
    operationId="getGameEvents",
    **STREAMING,
    security=SEAT_TOKEN_OPTIONAL,
    responses={
        200: {
            "content": {
                "text/event-stream": {
                    "schema": {
                        "type": "string",
                        "description": "one frame per event; its `data:` is an `Event` "
                        "(`#/components/schemas/Event`) as JSON",
                    },
                    "example": SSE_EXAMPLE,
                }
            }
        }
    },
)
@blp.arguments(EventsQuerySchema(), location="query", as_kwargs=True)
@blp.arguments(EventsHeadersSchema(), location="headers", as_kwargs=True)
@blp.response(200, EventsPageSchema, example=PAGE_EXAMPLE)
@blp.problems(
    E.UNAUTHORIZED, E.NOT_FOUND, E.INVALID_REQUEST, E.TOO_MANY_STREAMS, E.UNAVAILABLE, E.STORAGE_FULL,
    path="/v1/games/h4k2mzq7c3x9b2rt/events"
)
def get_events(
    game_id: str,
    wait: float = 0.0,
    after: int | None = None,
    ticket: str | None = None,
    last_event_id: str | None = None,
) -> flask.Response:
    """Follow a game's events: a long poll, or Server-Sent Events with `Accept: text/event-stream`

    Each event is an `Event`: one schema per `type` (`#/components/schemas/Event`, their union with a
    `discriminator` on `type`, and `OtherEvent` for types added later); ignore members and types you do not
    know.

    **Long poll** (`application/json`): the events of versions after `after`, waiting up to `wait` seconds
    (at most 30) when there is none yet; `events` is empty when the wait ran out. Versions start at 0: the
    first call omits `after` (every event from the start, `game_created` included); then continue with
    `after=<last_version>` (or `Last-Event-ID: <id of the last event>`). The wait holds no lock: it is a blocking read of the game's Redis Stream.

    **Server-Sent Events** (`Accept: text/event-stream`): one message per event, `id:` the event id
    `<version>-<n>`, `event:` its type, `data:` the `Event` as JSON; a `: keep-alive` comment at least every
    15 s; the stream ends after `game_ended`. Resume with `Last-Event-ID` (`EventSource` sends it when it
    reconnects): no gap, no duplicate.

    With a seat token (or `?ticket=` from `POST .../events/ticket`, for `EventSource`, which cannot send
    headers; a ticket opens one stream, once) private details (the tile that seat drew) are included for that seat only; without, the
    public events. Tokens never go in URLs.

    **Whose turn.** Every change that leaves a seat to move ends with a `turn_started` event naming that
    seat (and the turn's `deadline`, if any). The seat's own copy also lists its `legal_moves`: post one
    with `expected_version` = the event's `version`, without reading the view first. Only the current
    turn's notice is kept: a client catching up on several changes gets the last one only, and the
    history has none.

    **Limits.** A client (its address) may hold 32 streams open at once (SSE streams and long polls that
    wait), and a game may have 256 (both configurable); one more is a 429 `too-many-streams` with
    `Retry-After`."""
    token = bearer_token()
    cursor = event_cursor(after, last_event_id)
    if wants_sse():
        frames = current_service().sse(game_id, token, ticket, cursor, client_id())
        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no", "Vary": "Authorization, Accept"}
        return flask.Response(frames, mimetype="text/event-stream", headers=headers)
    page = current_service().long_poll(game_id, token, ticket, cursor, wait, client_id())
    return json_response(page, headers={"Cache-Control": "no-store", "Vary": "Authorization, Accept"})


@blp.route("/<string:game_id>/events/ticket", methods=["POST"])
@blp.doc(operationId="createStreamTicket", security=SEAT_TOKEN)
@blp.response(
    201,
    TicketSchema,
    example={
        "ticket": "Zk3q9V0x...32 characters",
        "seat": 0,
        "expires_in": 60,
        "url": "/v1/games/h4k2mzq7c3x9b2rt/events?ticket=Zk3q9V0x...",
    },
)
@blp.problems(
    *BODY_PROBLEMS, E.UNAUTHORIZED, E.NOT_FOUND, E.UNAVAILABLE, path="/v1/games/h4k2mzq7c3x9b2rt/events/ticket"
)
@no_body
def create_ticket(game_id: str) -> flask.Response:
    """Get a short-lived stream ticket for the token's seat

    `EventSource` cannot send an `Authorization` header: open `.../events?ticket=<ticket>` instead. The
    ticket is not the seat token, reads only this seat's events, and expires (`expires_in` seconds). No
    body is needed."""
    body: dict[str, Any] = current_service().stream_ticket(game_id, bearer_token())
    return json_response(body, status=201, headers={"Cache-Control": "no-store"})

from __future__ import annotations

import flask

from api import errors as E
from api.extensions import Blueprint, current_service
from api.ratelimit import client_id
from api.resources.bot_events.schemas import BotEventsHeadersSchema, BotEventsPageSchema, BotEventsQuerySchema
from api.resources.common import STREAMING, BOT_TOKEN, bearer_token, json_response, wants_sse

blp = Blueprint("bot", __name__, url_prefix="/v1/bot", description="A registered bot's one stream for all its games.")

TURN = {
    "id": "1764614400000-0",
    "type": "turn",
    "game_id": "h4k2mzq7c3x9b2rt",
    "seat": 0,
    "version": 17,
    "deadline": 1764614430.0,
    "legal_moves": [{"type": "play", "tile": "5-2", "end": "left"}, {"type": "draw"}],
    "move_url": "/v1/games/h4k2mzq7c3x9b2rt/moves",
}
SSE_EXAMPLE = (
    "retry: 2000\n\n"
    'id: 1764614399000-0\nevent: game_started\ndata: {"id":"1764614399000-0","type":"game_started",'
    '"game_id":"h4k2mzq7c3x9b2rt","seat":0,"version":0,"variant":"draw"}\n\n'
    ": keep-alive\n\n"
)


@blp.route("/events")
@blp.doc(
    operationId="getBotEvents",
    **STREAMING,
    security=BOT_TOKEN,
    responses={
        200: {
            "content": {
                "text/event-stream": {
                    "schema": {"type": "string", "description": "one frame per notice; its `data:` is a `BotNotice` as JSON"},
                    "example": SSE_EXAMPLE,
                }
            }
        }
    },
)
@blp.arguments(BotEventsQuerySchema(), location="query", as_kwargs=True)
@blp.arguments(BotEventsHeadersSchema(), location="headers", as_kwargs=True)
@blp.response(200, BotEventsPageSchema, example={"bot": "mybot", "events": [TURN], "last_id": TURN["id"]})
@blp.problems(
    E.UNAUTHORIZED, E.INVALID_REQUEST, E.TOO_MANY_STREAMS, E.UNAVAILABLE, E.STORAGE_FULL, path="/v1/bot/events"
)
def get_bot_events(wait: float = 0.0, after: str | None = None, last_event_id: str | None = None) -> flask.Response:
    """Follow every game a registered bot sits in: a long poll, or Server-Sent Events with `Accept: text/event-stream`

    With the bot's token (`Authorization: Bearer dsk_bot_...`). The notices: `turn` for every game where the
    bot is to move (its `legal_moves`, the seat's `view`, the `deadline`): post one of the moves to
    `move_url` with `expected_version` = `version` and the same token; `game_started` and `game_ended` for
    every game it sits in. A bot with a webhook gets its turns there instead (signed deliveries, see
    `webhooks`); its stream still has `game_started` and `game_ended`.

    **Long poll** (`application/json`): the notices after `after` (at most 100), waiting up to `wait`
    seconds when there is none yet; continue with `after=<last_id>`. **Server-Sent Events**: one message per
    notice (`id:` its id, `event:` its type), a `: keep-alive` comment at least every 15 s; resume with
    `Last-Event-ID`. The stream spans games: it does not end with one.

    A turn notice whose `version` has passed (the bot was away and the server moved for it) answers 412 when
    posted: skip it. Opening the stream (each long poll too) makes an unavailable bot available again. A bot
    may hold 4 streams open at once (`DOMINO_STREAMS_PER_BOT`); one more is a 429 `too-many-streams`."""
    token = bearer_token()
    cursor = last_event_id or after
    if wants_sse():
        frames = current_service().bot_sse(token, cursor, client_id())
        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no", "Vary": "Authorization, Accept"}
        return flask.Response(frames, mimetype="text/event-stream", headers=headers)
    page = current_service().bot_long_poll(token, cursor, wait, client_id())
    return json_response(page, headers={"Cache-Control": "no-store", "Vary": "Authorization, Accept"})

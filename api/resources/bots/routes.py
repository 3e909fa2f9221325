
from __future__ import annotations

from typing import Any

import flask

from api import errors as E
from api.callers import calling_app, required_app
from api.extensions import BODY_PROBLEMS, Blueprint, current_service, optional_body
from api.resources.bots.schemas import (
    BotSchema, BotsQuerySchema, RegisteredBotSchema, RegisterBotSchema, RotatedTokenSchema, RotateTokenSchema,
    UpdateBotSchema,
)  # fmt: skip
from api.resources.common import APP_KEY, bearer_token, json_response

blp = Blueprint(
    "bots", __name__, url_prefix="/v1/bots", description="Computer players, and the bots apps register (`kind: registered`)."
)

LIST_EXAMPLE: list[dict[str, Any]] = [
    {
        "id": "greedy",
        "kind": "builtin",
        "description": "Plays the heaviest legal tile.",
        "strength": "beats random",
        "ratings": {
            "draw": {
                "name": "greedy", "kind": "builtin", "mu": 27.61, "sigma": 4.12, "ordinal": 15.25, "games": 48,
                "last_game_at": 1764614400.0,
            },
        },  # fmt: skip
    },
    {
        "id": "mybot",
        "kind": "registered",
        "description": "Plays from its stream.",
        "owner": "acme",
        "variants": ["draw"],
        "delivery": "stream",
        "available": True,
        "missed_turns": 0,
        "arenas": "closed",
        "created_at": 1764614400.0,
        "max_games": None,
        "min_turn_timeout_s": None,
        "ratings": {},
    },
]


LINK = {
    "Link": {
        "description": 'the next page, when there is one: `</v1/bots?limit=100&cursor=...>; rel="next"`',
        "schema": {"type": "string"},
    }
}


@blp.route("")
@blp.doc(operationId="listBots", security=[{}, *APP_KEY])
@blp.arguments(BotsQuerySchema(), location="query")
@blp.response(200, BotSchema(many=True), example=LIST_EXAMPLE, headers=LINK)
@blp.problems(E.INVALID_REQUEST, E.UNAUTHORIZED, E.UNAVAILABLE, path="/v1/bots")
def list_bots(query: dict[str, Any]) -> flask.Response:
    """List the bots a seat can name: the computer players, then the registered bots

    Seat one as `{"bot": "<id>"}`. Computer players (`kind: builtin`) are run by the workers; registered
    bots (`kind: registered`) play on their owners' machines, from their webhook or their stream, and are
    seated only in the `variants` they play and while `available`, by their owner's app key or in an arena they
    were entered in (403 otherwise). Retired bots are not listed.

    One page at a time, in registration order (`limit`, default 100): the answer stays a JSON array, and the
    next page's URL is in the `Link` header (`rel="next"`; none after the last page). With `owner=me` and an
    app key, only that app's registered bots."""
    owner = None if query.get("owner") is None else required_app().id
    cursor = query.get("cursor")
    after = None if cursor is None else (float(cursor.partition("_")[0]), cursor.partition("_")[2])
    bots, position = current_service().bots(after, query["limit"], owner)
    headers = {"Cache-Control": "no-cache" if owner is None else "private, no-cache"}
    if position is not None:
        mine = "&owner=me" if owner else ""
        headers["Link"] = f'</v1/bots?limit={query["limit"]}{mine}&cursor={position[0]:.6f}_{position[1]}>; rel="next"'
    if owner is not None:
        headers["Vary"] = "Authorization"
    return json_response(bots, headers=headers)


@blp.route("/<string:name>")
@blp.doc(operationId="getBot")
@blp.response(200, BotSchema, example=LIST_EXAMPLE[1])
@blp.problems(E.NOT_FOUND, E.UNAVAILABLE, path="/v1/bots/mybot")
def get_bot(name: str) -> flask.Response:
    """Read one bot, by the id `GET /v1/bots` lists

    A computer player's entry (`kind: builtin`), or a registered bot's: its variants, where its turns go,
    whether it is available."""
    return json_response(current_service().bot(name), headers={"Cache-Control": "no-cache"})


REGISTERED = {
    **LIST_EXAMPLE[1],
    "token": "dsk_bot_Zk3q9V0x...43 characters",
}


@blp.route("", methods=["POST"])
@blp.doc(operationId="registerBot", security=APP_KEY)
@blp.arguments(RegisterBotSchema(), example={"name": "mybot", "description": "Plays from its stream.", "variants": ["draw"]})
@blp.response(
    201,
    RegisteredBotSchema,
    example=REGISTERED,
    headers={"Location": {"description": "the bot's URL", "schema": {"type": "string"}}},
)
@blp.problems(*BODY_PROBLEMS, E.UNAUTHORIZED, E.UNAVAILABLE, path="/v1/bots")
def register_bot(body: dict[str, Any]) -> flask.Response:
    """Register a bot for the calling app (its app key): a name seats can give, and a token for the bot

    The answer's `token` (`dsk_bot_...`) is shown only here: the bot moves with it in every game it sits in
    (`POST /v1/games/{id}/moves`, `GET /v1/games/{id}`) and reads its stream with it (`GET /v1/bot/events`).
    With a `webhook` the bot's turns are POSTed there, signed with the `webhook_secret` shown here (see
    `webhooks`); without one they come on its stream. The `name` is unique and never reused, and is not a
    computer player's id (422 otherwise). A game seats it as `{"bot": "<name>"}`, once per game, in the
    `variants` it plays."""
    app = required_app()
    bot = current_service().register_bot(
        app.id, app.name, body["name"], body["description"], body["variants"], body.get("webhook")
    )
    headers = {"Location": f"/v1/bots/{bot['id']}", "Cache-Control": "no-store"}
    return json_response(bot, status=201, headers=headers)


@blp.route("/<string:name>", methods=["PATCH"])
@blp.doc(operationId="updateBot", security=[*APP_KEY, {"botToken": []}])
@blp.arguments(UpdateBotSchema(), example={"variants": ["draw", "block"], "webhook": None, "max_games": 8, "min_turn_timeout_s": 5})
@blp.response(200, RegisteredBotSchema, example=LIST_EXAMPLE[1])
@blp.problems(*BODY_PROBLEMS, E.UNAUTHORIZED, E.FORBIDDEN, E.NOT_FOUND, E.UNAVAILABLE, path="/v1/bots/mybot")
def update_bot(body: dict[str, Any], name: str) -> flask.Response:
    """Change a bot's description, variants, arena entry, webhook or limits (its owner's app key; the bot's token: its limits)

    Only the members sent change. The limits say what the bot accepts: `max_games`, the games it plays at
    once (a challenge to it, a ticket it holds, or a game seating it beyond that is 409 `bot-busy`), and
    `min_turn_timeout_s`, the shortest time per move it plays with (a challenge to it or a ticket it holds
    with less is 422 `deadline-too-short`); the bot sets them itself with its own token too (anything else
    with its token: 403). `arenas: open` lets any app or bot enter it in their arenas (`POST
    /v1/arenas`); `closed` (the default) keeps it to its owner's. Outside arenas a registered bot is seated
    only with its owner's app key. `webhook: null` removes the webhook (turns then come on the bot's stream);
    a webhook set where there was none comes with a new `webhook_secret`, shown only here. Games already
    under way keep the bot; the variants apply to new games. An update also makes an unavailable bot
    available again. Another app's key: 403; a retired bot: 422."""
    app = calling_app()
    bot = current_service().update_bot(app.id if app is not None else None, bearer_token(), name, body)
    return json_response(bot, headers={"Cache-Control": "no-store"})


@blp.route("/<string:name>", methods=["DELETE"])
@blp.doc(operationId="retireBot", security=APP_KEY)
@blp.response(204, description="Retired (also when it already was)")
@blp.problems(E.UNAUTHORIZED, E.FORBIDDEN, E.NOT_FOUND, E.UNAVAILABLE, path="/v1/bots/mybot")
def retire_bot(name: str) -> flask.Response:
    """Retire a bot (its owner's app key only): never seated again, its tokens stop at once

    The games it sits in go on, the server moving for it (`auto: true`) until they end; its token is a 401
    from now on (moves, views, its stream). It is no longer listed nor seatable (422), and its name is never
    given to another bot. Another app's key: 403. Revoking an app retires its bots."""
    app = required_app()
    current_service().retire_bot(app.id, name)
    return flask.Response(status=204)


@blp.route("/<string:name>/token", methods=["POST"])
@blp.doc(operationId="rotateBotToken", security=APP_KEY)
@blp.arguments(RotateTokenSchema(), required=False, example={"grace_s": 3600})
@blp.response(
    200,
    RotatedTokenSchema,
    example={**REGISTERED, "previous_token_expires_at": 1764618000.0},
)
@blp.problems(*BODY_PROBLEMS, E.UNAUTHORIZED, E.FORBIDDEN, E.NOT_FOUND, E.UNAVAILABLE, path="/v1/bots/mybot/token")
@optional_body
def rotate_bot_token(body: dict[str, Any], name: str) -> flask.Response:
    """Give a bot a new token (its owner's app key only); the old one stops at once, or after a grace

    The answer's `token` is shown only here. Without a body (or with `grace_s` 0) the old token is a 401 from
    the next request on; with `{"grace_s": n}` it keeps working `n` seconds more (`previous_token_expires_at`),
    time to restart the bot with the new one. The new token moves in every game the bot sits in, those it was
    seated in before too. Rotating again ends the previous grace. Another app's key: 403; a retired bot: 422."""
    app = required_app()
    bot = current_service().rotate_bot_token(app.id, name, body.get("grace_s") or 0)
    return json_response(bot, headers={"Cache-Control": "no-store"})

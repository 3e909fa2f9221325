"""The Flask app factory. ``create_app()`` connects to nothing: the OpenAPI export needs no Redis. A server
process (gunicorn) builds its app with ``serve()``."""

from __future__ import annotations

import functools
import gc
import json
import logging
from importlib import resources as importlib_resources
from typing import Any

import flask

from api import bodyread, errors, framework, hooks, inflight, ratelimit, server_errors, web
from api.config import Settings
from api.extensions import Api, AsciiIntegerConverter, document_storage_full
from api.quietlog import QuietLog
from api.resources.analysis import routes as analysis
from api.resources.fairplay import routes as fairplay
from api.resources.apps import routes as apps
from api.resources.arenas import routes as arenas
from api.resources.arenas import schemas as arena_schemas
from api.resources.bot_events import routes as bot_events
from api.resources.bots import routes as bots
from api.resources.challenges import routes as challenges
from api.resources.challenges import schemas as challenge_schemas
from api.resources.events import routes as events
from api.resources.events import schemas as event_schemas
from api.resources.export import routes as export
from api.resources.games import routes as games
from api.resources.games import schemas as game_schemas
from api.resources.matchmaking import routes as matchmaking
from api.resources.matchmaking import schemas as ticket_schemas
from api.resources.rematch import routes as rematch
from api.resources.health import routes as health
from api.resources.hints import routes as hints
from api.resources.moves import routes as moves
from api.resources.moves import schemas as move_schemas
from api.resources.players import routes as players
from api.resources.ratings import routes as ratings
from api.resources.seats import routes as seats
from api.resources.simulations import routes as simulations
from api.resources.simulations import schemas as simulation_schemas
from api.resources.variants import routes as variants
from api.resources.variants import schemas as variant_schemas
from api.resources.webhooks import schemas as webhook_schemas
from api.service.service import Service

# The resources' routes, in the order of their tags in the docs. Imported here, where the app is put together:
# each imports api.extensions, which imports the schema of a move (the problem details name it).
RESOURCES = (
    variants, bots, bot_events, games, export, seats, moves, hints, events, matchmaking, challenges, rematch, analysis, fairplay,
    apps, players,
    simulations, ratings, arenas, health,
)  # fmt: skip

API_DESCRIPTION = """\
Dominoes as a service: create a game, seat humans and computer players, play moves and read scores.

**Auth.** Creating a game returns one token per human seat, shown once. Send it as
`Authorization: Bearer <token>` to see that seat's hand and to move. Without a token you get the spectator's view.

**Apps.** An app that embeds dominoes sends its app key (`dsk_app_...`, from `domino-admin apps create`) as
`Authorization: Bearer <key>` when it creates games: they belong to it (`GET /v1/games?owner=me`), carry its
`metadata` and `player` ids, count against its own rate limit and game cap, and its webhook gets signed
`game.started`, `round.ended` and `game.ended` deliveries (see `webhooks`).

**Bots.** An app registers a bot with its app key (`POST /v1/bots`): a name seats give as `{"bot": "<name>"}`,
like a computer player's, and a bot token (`dsk_bot_...`, shown once) with which the bot moves in every game
it sits in and reads its one stream of turn notices for all its games (`GET /v1/bot/events`), unless it has
a webhook, which gets its turns instead (see `webhooks`).

**Ratings.** A game created with `"rated": true` (bots and app players only, no `seed`) updates its players'
openskill ratings in its variant once when it ends: `GET /v1/ratings/{variant}` is the bots' leaderboard
(`?app=me` with an app key: the app's own players). An arena (`POST /v1/arenas`) plays rated games between
bots on the workers, every seating of every deal, and reports standings with 95% intervals.

**Versions.** Every accepted move increments the game's `version`; the view's `ETag` is `"<version>"`.
Send `expected_version` (or `If-Match`) with a move to make it conditional: a stale version answers 412 with
`current_version` and your seat's last accepted move. `Idempotency-Key` on `POST /v1/games` and
`POST /v1/games/{id}/moves` makes retries safe: the same key gets the first answer.

**Fairness.** Every view carries `seed_commitment` = SHA-256 of `<seed>:<salt>`. When the game ends,
`GET /v1/games/{id}/history` reveals the seed, the salt, every deal, the boneyard order and every draw. Each
deal follows from the seed by a published procedure (SHA-256 draws and a Fisher–Yates shuffle; the rules
document, "Checking a deal"), so anyone can redo it.

**Query parameters.** Each operation takes only the query parameters it documents: an unknown query parameter is a 422
`invalid-request` naming it in `errors.query` (never silently ignored). An operation that needs credentials
answers 401 to a request without `Authorization: Bearer <token>` before it checks anything else.

**Errors** are RFC 9457 problem details (`application/problem+json`) with `type` `/problems/<slug>`:

| status | slug | meaning |
|---|---|---|
""" + "\n".join(f"| {p.status} | `{p.slug}` | {p.description} |" for p in errors.PROBLEM_TYPES)

TAGS = [
    {"name": "variants", "description": "Rule presets and options."},
    {"name": "bots", "description": "Computer players, and the bots apps register (`kind: registered`)."},
    {"name": "bot", "description": "A registered bot's one stream for all its games: turn notices, games started and ended."},
    {"name": "games", "description": "Create games and read their views and history."},
    {"name": "seats", "description": "The lobby of games with open seats; claim a seat; resign."},
    {"name": "moves", "description": "Play, draw or pass."},
    {"name": "hints", "description": "Practice games (`hints: true`): the seat to move's legal moves, valued and ranked."},
    {"name": "events", "description": "Follow a game: long poll, or Server-Sent Events with `Last-Event-ID` resumption."},
    {"name": "matchmaking", "description": "Find a table: tickets matched by variant, rules, size and rating; challenges; rematches."},
    {"name": "analysis", "description": "Finished games analysed move by move on the `analysis` queue (docs/analysis.md)."},
    {"name": "fairplay", "description": "Fair-play screens of an app's player or a registered bot, on request (docs/analysis.md)."},
    {"name": "apps", "description": "Third-party apps: the calling app (`domino-admin apps create` makes one)."},
    {"name": "simulations", "description": "Bot-against-bot games in bulk, run by workers on the `simulations` queue."},
    {"name": "health", "description": "Liveness and readiness."},
]


def _swagger_assets_dir() -> str:
    """Swagger UI's dist files, from the PyPI package flask-swagger-ui: served by us, works offline."""
    return str(importlib_resources.files("flask_swagger_ui") / "dist")


def _openapi_config(settings: Settings) -> dict[str, Any]:
    """flask-smorest's settings: the document, its description and tags, Swagger UI's paths."""
    return dict(
        API_TITLE="domino-service",
        API_VERSION="1",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        OPENAPI_SWAGGER_UI_URL="/docs/assets/",
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        API_SPEC_OPTIONS={
            "info": {"description": API_DESCRIPTION, "license": {"name": "MIT", "identifier": "MIT"}},
            "tags": TAGS,
            # An app sends its key on any call (its own rate limit and caps); an operation that needs a
            # credential, or takes another, says so itself.
            "security": [{}, {"appKey": []}],
            "components": {
                "securitySchemes": {
                    "bearer": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "A seat token from `POST /v1/games` (`tokens[].token`), or a registered "
                        "bot's token (`dsk_bot_...`) for the seat it holds.",
                    },
                    "botToken": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "A registered bot's token from `POST /v1/bots` (`token`, `dsk_bot_...`): it "
                        "also moves for the bot's seats, in place of a seat token.",
                    },
                    "appKey": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "An app key, `dsk_app_` + 43 characters, from `domino-admin apps create`: "
                        "the games it creates belong to the app (`GET /v1/games?owner=me`), and it has a rate "
                        "limit and a cap of unfinished games of its own. Unknown, rotated or revoked: 401.",
                    },
                    "ticketToken": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "A matchmaking ticket's token from `POST /v1/matchmaking/tickets` (`token`, "
                        "`dtk_...`): its holder's.",
                    },
                    "challengeToken": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "A challenge's token from `POST /v1/challenges` (`token`, `dch_...`): its "
                        "challenger's.",
                    },
                    "simulationToken": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "A simulation's token from `POST /v1/simulations` (`token`): its creator's.",
                    },
                }
            },
        },
    )


def _document(settings: Settings, spec: Any) -> None:
    """What the routes' schemas cannot say: the types named by reference only (boards, seat kinds, `Move` as a
    play or a draw/pass, one schema per event type and `Event`), per-variant limits, the webhooks; the answers
    of the hooks (rate limit, requests in flight, bodies, a full Redis) and of gunicorn on every operation."""
    for document in (
        variant_schemas.document,
        game_schemas.document,
        move_schemas.document,
        event_schemas.document,
        simulation_schemas.document,
        arena_schemas.document,
        ticket_schemas.document,
        challenge_schemas.document,
        webhook_schemas.document,
    ):
        document(spec)
    ratelimit.document(spec, settings)  # reads settings.rate_limit_exempt only (a part of the document's key)
    inflight.document(spec)
    bodyread.document(spec)
    document_storage_full(spec)
    server_errors.document(spec)


def create_app(config: dict[str, Any] | None = None) -> flask.Flask:
    """Build the app. ``config`` may hold Flask settings and ``"DOMINO"``: a :class:`Settings`
    (default: ``Settings.from_env()``)."""
    config = dict(config or {})
    settings = config.pop("DOMINO", None) or Settings.from_env()
    app = framework.App(__name__)
    app.url_map.converters["int"] = AsciiIntegerConverter
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.config.update(_openapi_config(settings))
    app.config.update(config)
    app.extensions["domino.settings"] = settings
    app.extensions["domino.service"] = Service(settings)  # makes connection objects; connects on first use
    app.extensions["domino.error_log"] = QuietLog(logging.getLogger("api"), settings.error_log_interval)

    documented = {k: v for k, v in app.config.items() if k.startswith(("API_", "OPENAPI_"))}  # flask-smorest's
    key = (settings.rate_limit_exempt, json.dumps(documented, sort_keys=True, default=repr))  # all the document reads
    api = Api(app, key)
    api.register_documented([resource.blp for resource in RESOURCES], functools.partial(_document, settings))
    hooks.install(app, settings, api.spec)  # the rate limit, the body guard, metrics (and GET /metrics), CORS, request ids

    assets = _swagger_assets_dir()

    @app.get("/docs/assets/<path:filename>")
    def swagger_assets(filename: str) -> flask.Response:
        return flask.send_from_directory(assets, filename, max_age=3600)

    web.register(app)  # the web client at /play and the landing page at / (static files, public API only)

    app.extensions["domino.api"] = api
    return app



def serve() -> flask.Flask:
    """The app of a server process (gunicorn's ``api.app:serve()``): ``create_app()``, then everything built so
    far (modules, the app, its schemas and the spec: some 80k objects) moved out of the cyclic collector's
    reach. A full collection walked them all on a request now and then: here a pause of 50-75 ms once in one or
    two thousand moves, felt by every request waiting behind it. They live as long as the process. gunicorn's
    own error answers become problem details (:mod:`api.server_errors`)."""
    app = create_app()
    server_errors.install()
    gc.freeze()
    return app

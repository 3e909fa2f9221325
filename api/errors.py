"""The one table from exceptions (the engine's, and the service's from :mod:`api.service.errors`) to HTTP status
and problem type.

``problem_for(exc)`` walks the exception's MRO, so a subclass maps like its base unless it has its own row.
Extra members (``legal_moves``, ``current_version``, ...) come only from public facts (what a seat may see: docs/rules.md#what-a-seat-may-see).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import domino
from domino.errors import describe

from api.archive import ArchiveUnavailable
from api.service.errors import (
    AnalysisNotFound, ArenaNotFound, BotNotFound, DeliveryNotFound, Forbidden, GameBusy, GameEnded, GameNotFound, GameNotOver, IdempotencyKeyReused,
    HintsOff, HintUnavailable, InvalidRequest, NoWebhook, NothingToScreen, NotStarted, OfferClosed, SeatLimit, SeatNotFound, SeatTaken, ServiceError, SimulationNotFound,
    TicketNotFound, TooManyAnalyses, TooManyChallenges, ChallengeNotFound, BotBusy, DeadlineTooShort, TooManyAppGames, TooManyArenas, TooManyGames,
    TooManySimulations, TooManyStreams, TooManyTickets,
    Unauthorized, VariantNotFound, VersionMismatch,
)  # fmt: skip
from api.store import StoreFull, StoreUnavailable


@dataclasses.dataclass(frozen=True)
class ProblemType:
    status: int
    slug: str
    title: str
    description: str

    @property
    def type(self) -> str:
        return f"/problems/{self.slug}"


# Every slug the API answers with, documented in the OpenAPI description (``PROBLEM_TYPES``).
BAD_REQUEST = ProblemType(
    400, "bad-request", "Bad request", "The body is not valid JSON, or an object in it repeats a key."
)
UNAUTHORIZED = ProblemType(
    401,
    "unauthorized",
    "Unauthorized",
    "A seat token (a simulation's token, to cancel it; an app key, for an app's calls; a bot token, for a bot's "
    "stream) is needed, or the token is not one of this game's (simulation's; a registered bot's), or the app key "
    "(`dsk_app_...`) is unknown, rotated or revoked.",
)
FORBIDDEN = ProblemType(
    403,
    "forbidden",
    "Forbidden",
    "Not for this client: `/metrics` answers its allowed networks or its bearer token; a registered bot is changed "
    "only with its owner's app key.",
)
NOT_FOUND = ProblemType(
    404, "not-found", "Not found", "No such game (or it expired), seat, registered bot, variant, arena or resource; no "
    "finished game to screen."
)
METHOD_NOT_ALLOWED = ProblemType(405, "method-not-allowed", "Method not allowed", "The path exists; the method does not.")
NOT_ACCEPTABLE = ProblemType(406, "not-acceptable", "Not acceptable", "No representation matches Accept.")
ILLEGAL_MOVE = ProblemType(
    409, "illegal-move", "Illegal move", "Well formed but not legal now; `legal_moves` lists the seat's legal moves."
)
AMBIGUOUS_MOVE = ProblemType(
    409, "ambiguous-move", "Ambiguous move", "`end` omitted and several places fit; `options` lists them."
)
NOT_YOUR_TURN = ProblemType(409, "not-your-turn", "Not your turn", "Another seat is to move.")
GAME_OVER = ProblemType(409, "game-over", "Game over", "The game has ended; no more moves are accepted.")
NOT_STARTED = ProblemType(409, "not-started", "Not started", "The game is waiting for seats to be taken.")
GAME_NOT_OVER = ProblemType(
    409, "game-not-over", "Game not over", "A game's record is read once the game is over: before, it would reveal the hands."
)
HINTS_OFF = ProblemType(
    409, "hints-off", "Hints off", "Hints are asked only in a game created with `\"hints\": true` (never a rated one)."
)
NO_WEBHOOK = ProblemType(
    409, "no-webhook", "No webhook", "The app has no webhook to send to: set one with `PATCH /v1/app` first."
)
SEAT_TAKEN = ProblemType(409, "seat-taken", "Seat taken", "Someone else claimed this seat first (or it was never open).")
IDEMPOTENCY_KEY_REUSED = ProblemType(
    409, "idempotency-key-reused", "Idempotency key reused", "This `Idempotency-Key` came with a different request."
)
VERSION_MISMATCH = ProblemType(
    412,
    "version-mismatch",
    "Version mismatch",
    "`expected_version` / `If-Match` is stale; `current_version` and the seat's `last_move` tell whether a "
    "retried move counted.",
)
PAYLOAD_TOO_LARGE = ProblemType(413, "payload-too-large", "Payload too large", "The body is over 16 KiB.")
URI_TOO_LONG = ProblemType(
    414, "uri-too-long", "URI too long", "The request line (method, path, query) is over 4094 bytes."
)
HEADERS_TOO_LARGE = ProblemType(
    431, "header-fields-too-large", "Header fields too large", "A header is over 8190 bytes, or there are over 100."
)
REQUEST_TIMEOUT = ProblemType(
    408,
    "request-timeout",
    "Request timeout",
    "The body did not arrive within `DOMINO_BODY_TIMEOUT` seconds (10 by default) of the request's headers; "
    "the connection is closed.",
)
UNSUPPORTED_MEDIA_TYPE = ProblemType(
    415, "unsupported-media-type", "Unsupported media type", "The body must be `application/json`."
)
INVALID_REQUEST = ProblemType(
    422,
    "invalid-request",
    "Invalid request",
    "The request fails validation (bad tile, unknown variant or bot, bad option, ...); `errors` says where.",
)
RATE_LIMITED = ProblemType(
    429,
    "rate-limited",
    "Too many requests",
    "This client sent more requests than its limit in the current window; `Retry-After` says when to retry, "
    "`RateLimit` and `RateLimit-Policy` describe the limit.",
)
TOO_MANY_STREAMS = ProblemType(
    429,
    "too-many-streams",
    "Too many streams",
    "This client, or this game, has as many event streams (SSE, waiting long polls) open as it may; close one, "
    "or retry after `Retry-After` seconds.",
)
TOO_MANY_IN_FLIGHT = ProblemType(
    429,
    "too-many-in-flight",
    "Too many requests in flight",
    "This client already has as many requests being answered at once by this server process as it may "
    "(`DOMINO_IN_FLIGHT_PER_CLIENT`, 64 by default); wait for an answer, or retry after `Retry-After` seconds.",
)
TOO_MANY_GAMES = ProblemType(
    429,
    "too-many-games",
    "Too many games",
    "This client has as many games waiting or playing as it may (`DOMINO_GAMES_PER_CLIENT`); finish or resign "
    "one, or retry after `Retry-After` seconds.",
)
TOO_MANY_SIMULATIONS = ProblemType(
    429,
    "too-many-simulations",
    "Too many simulations",
    "This client has as many simulations queued or running as it may (`DOMINO_SIMULATIONS_PER_CLIENT`); wait "
    "for one to end or cancel one, or retry after `Retry-After` seconds.",
)
TOO_MANY_ANALYSES = ProblemType(
    429,
    "too-many-analyses",
    "Too many analyses",
    "This client has as many analyses queued or running as it may (`DOMINO_ANALYSES_PER_CLIENT`); wait for one "
    "to end, or retry after `Retry-After` seconds.",
)
TOO_MANY_APP_GAMES = ProblemType(
    429,
    "too-many-app-games",
    "Too many app games",
    "The calling app has as many games waiting or playing as its cap allows (`domino-admin apps create "
    "--max-games`); finish or resign one, or retry after `Retry-After` seconds.",
)
TOO_MANY_ARENAS = ProblemType(
    429,
    "too-many-arenas",
    "Too many arenas",
    "The caller (its app key or bot token) has as many arenas running as one owner may "
    "(`DOMINO_ARENAS_PER_OWNER`); wait for one to end or cancel one, or retry after `Retry-After` seconds.",
)
TOO_MANY_TICKETS = ProblemType(
    429,
    "too-many-tickets",
    "Too many tickets",
    "This holder (an address, an app's player, a registered bot) has as many open matchmaking tickets as it may "
    "(`DOMINO_MAX_TICKETS`, 3 by default); cancel one or wait for a match, or retry after `Retry-After` seconds.",
)
TOO_MANY_CHALLENGES = ProblemType(
    429,
    "too-many-challenges",
    "Too many challenges",
    "This challenger (an address, an app's player, a registered bot) has as many open challenges as it may "
    "(`DOMINO_MAX_CHALLENGES`, 5 by default); cancel one or wait for answers, or retry after `Retry-After` seconds.",
)
BOT_BUSY = ProblemType(
    409,
    "bot-busy",
    "Bot busy",
    "The registered bot plays as many games at once as it accepts (its `max_games`, `PATCH /v1/bots/{name}`): "
    "challenge it, or seek with it, once one of its games ends.",
)
DEADLINE_TOO_SHORT = ProblemType(
    422,
    "deadline-too-short",
    "Deadline too short",
    "The game's time per move (`turn_timeout_s`, or a clock's `initial_s`) is shorter than a registered bot "
    "accepts (its `min_turn_timeout_s`, `PATCH /v1/bots/{name}`); `min_turn_timeout_s` says how long.",
)
OFFER_CLOSED = ProblemType(
    409,
    "offer-closed",
    "Offer closed",
    "The ticket, challenge or rematch is no longer open: matched, answered, cancelled or expired (`ticket_status`, "
    "`challenge_status` or `rematch_status` says which).",
)
SEAT_LIMIT = ProblemType(
    409,
    "seat-limit",
    "Seat limit",
    "This client already holds as many seats of this listed game as one client may (`DOMINO_SEATS_PER_CLIENT`): "
    "the other open seats are for other players.",
)
UNAVAILABLE = ProblemType(
    503,
    "unavailable",
    "Service unavailable",
    "Redis is unreachable or not ready. One that stopped answering may have applied a change before it did: "
    "retry a move with the same `Idempotency-Key` or `expected_version`, which cannot apply it twice.",
)
STORAGE_FULL = ProblemType(
    503,
    "storage-full",
    "Storage full",
    "The game store is full and refuses writes; nothing was changed. Reads still answer. Retry after "
    "`Retry-After` seconds.",
)
INTERNAL = ProblemType(500, "internal-error", "Internal server error", "A bug: please report it with the instance.")

PROBLEM_TYPES = [
    BAD_REQUEST,
    UNAUTHORIZED,
    FORBIDDEN,
    NOT_FOUND,
    METHOD_NOT_ALLOWED,
    NOT_ACCEPTABLE,
    ILLEGAL_MOVE,
    AMBIGUOUS_MOVE,
    NOT_YOUR_TURN,
    GAME_OVER,
    NOT_STARTED,
    GAME_NOT_OVER,
    HINTS_OFF,
    NO_WEBHOOK,
    SEAT_TAKEN,
    SEAT_LIMIT,
    OFFER_CLOSED,
    BOT_BUSY,
    IDEMPOTENCY_KEY_REUSED,
    VERSION_MISMATCH,
    REQUEST_TIMEOUT,
    PAYLOAD_TOO_LARGE,
    URI_TOO_LONG,
    UNSUPPORTED_MEDIA_TYPE,
    INVALID_REQUEST,
    DEADLINE_TOO_SHORT,
    HEADERS_TOO_LARGE,
    RATE_LIMITED,
    TOO_MANY_STREAMS,
    TOO_MANY_IN_FLIGHT,
    TOO_MANY_GAMES,
    TOO_MANY_SIMULATIONS,
    TOO_MANY_ANALYSES,
    TOO_MANY_APP_GAMES,
    TOO_MANY_ARENAS,
    TOO_MANY_TICKETS,
    TOO_MANY_CHALLENGES,
    UNAVAILABLE,
    STORAGE_FULL,
    INTERNAL,
]

# HTTP errors raised by Flask/werkzeug/webargs, by status.
BY_STATUS = {
    p.status: p
    for p in PROBLEM_TYPES
    if p
    not in (
        ILLEGAL_MOVE, AMBIGUOUS_MOVE, GAME_OVER, NOT_YOUR_TURN, NOT_STARTED, GAME_NOT_OVER, HINTS_OFF, SEAT_TAKEN, SEAT_LIMIT,
        TOO_MANY_STREAMS, TOO_MANY_IN_FLIGHT, TOO_MANY_GAMES, TOO_MANY_SIMULATIONS, TOO_MANY_APP_GAMES, TOO_MANY_ARENAS,
        TOO_MANY_TICKETS, TOO_MANY_ANALYSES, IDEMPOTENCY_KEY_REUSED, STORAGE_FULL, TOO_MANY_CHALLENGES, BOT_BUSY,
        DEADLINE_TOO_SHORT,
    )  # fmt: skip
}
BY_STATUS[409] = ProblemType(409, "conflict", "Conflict", "The request conflicts with the game's state.")


def _members(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, ServiceError):
        return dict(exc.members)
    if isinstance(exc, domino.InvalidRulesError):  # a 422 like any other: `errors` names the option
        return {"errors": {"json": {"rules": {exc.option: [exc.reason]}}}}
    if isinstance(exc, domino.DominoError):
        return describe(exc)
    return {}


def _detail(exc: BaseException) -> str:
    if isinstance(exc, ServiceError):
        return exc.detail
    if isinstance(exc, StoreFull):
        return "The game store is full; nothing was changed. Retry later."
    if isinstance(exc, ArchiveUnavailable):
        return "The archive of finished games did not answer; live games are not affected. Retry later."
    if isinstance(exc, StoreUnavailable):
        return (
            "The game store did not answer in time. A change you asked for may have been applied before it "
            "stopped answering: retry with the same Idempotency-Key or expected_version, which cannot apply it twice."
        )
    return str(exc)


# The table. Order does not matter: the most specific class in the exception's MRO wins.
TABLE: dict[type[Exception], ProblemType] = {
    # engine
    domino.InvalidMoveError: INVALID_REQUEST,
    domino.InvalidRulesError: INVALID_REQUEST,
    domino.IllegalMoveError: ILLEGAL_MOVE,
    domino.AmbiguousMoveError: AMBIGUOUS_MOVE,
    domino.NotYourTurnError: NOT_YOUR_TURN,
    domino.GameOverError: GAME_OVER,
    domino.DominoError: INVALID_REQUEST,  # any other bad input the engine rejects
    # service
    GameNotFound: NOT_FOUND,
    SimulationNotFound: NOT_FOUND,
    ArenaNotFound: NOT_FOUND,
    VariantNotFound: NOT_FOUND,
    BotNotFound: NOT_FOUND,
    DeliveryNotFound: NOT_FOUND,
    Unauthorized: UNAUTHORIZED,
    Forbidden: FORBIDDEN,
    InvalidRequest: INVALID_REQUEST,
    VersionMismatch: VERSION_MISMATCH,
    NotStarted: NOT_STARTED,
    GameNotOver: GAME_NOT_OVER,
    GameEnded: GAME_OVER,
    SeatNotFound: NOT_FOUND,
    SeatTaken: SEAT_TAKEN,
    IdempotencyKeyReused: IDEMPOTENCY_KEY_REUSED,
    TooManyStreams: TOO_MANY_STREAMS,
    TooManyGames: TOO_MANY_GAMES,
    TooManySimulations: TOO_MANY_SIMULATIONS,
    TooManyAnalyses: TOO_MANY_ANALYSES,
    AnalysisNotFound: NOT_FOUND,
    NothingToScreen: NOT_FOUND,
    TooManyAppGames: TOO_MANY_APP_GAMES,
    TooManyArenas: TOO_MANY_ARENAS,
    TooManyTickets: TOO_MANY_TICKETS,
    TicketNotFound: NOT_FOUND,
    TooManyChallenges: TOO_MANY_CHALLENGES,
    ChallengeNotFound: NOT_FOUND,
    BotBusy: BOT_BUSY,
    DeadlineTooShort: DEADLINE_TOO_SHORT,
    OfferClosed: OFFER_CLOSED,
    HintsOff: HINTS_OFF,
    NoWebhook: NO_WEBHOOK,
    HintUnavailable: UNAVAILABLE,  # Retry-After: no hints worker answered in time
    SeatLimit: SEAT_LIMIT,
    GameBusy: UNAVAILABLE,  # a game that kept changing under an erasure: retrying is all there is to do
    # store
    StoreUnavailable: UNAVAILABLE,
    StoreFull: STORAGE_FULL,
    ArchiveUnavailable: UNAVAILABLE,
}


def problem_for(exc: BaseException) -> tuple[ProblemType, str, dict[str, Any]] | None:
    """(problem type, detail, extra members) for a mapped exception, else None."""
    for cls in type(exc).__mro__:
        ptype = TABLE.get(cls)
        if ptype is not None:
            detail, members = _detail(exc), _members(exc)
            if ptype is INVALID_REQUEST and "errors" not in members:  # every 422 says where, if only as a whole
                members["errors"] = {"json": {"_schema": [detail]}}
            return ptype, detail, members
    return None


MAPPED: tuple[type[Exception], ...] = tuple(TABLE)

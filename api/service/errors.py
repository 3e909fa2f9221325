"""The service's errors, in one place: what :mod:`api.service` (and the HTTP layer's own checks) raise for a
caller's mistake or a refusal. :mod:`api.errors` maps each to its status and problem type; nothing here knows
HTTP."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base of the errors api.service raises; ``members`` are added to the problem details."""

    def __init__(self, detail: str, **members: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.members = members


class GameNotFound(ServiceError):
    pass


class SimulationNotFound(ServiceError):
    pass


class ArenaNotFound(ServiceError):
    pass


class VariantNotFound(ServiceError):
    """A path names a variant that is not a preset (``GET /v1/ratings/{variant}``)."""


class BotNotFound(ServiceError):
    """No registered bot of that name (or it is retired)."""


class DeliveryNotFound(ServiceError):
    """No delivery of that id is kept for the calling app."""


class Unauthorized(ServiceError):
    pass


class InvalidRequest(ServiceError):
    pass


class VersionMismatch(ServiceError):
    pass


class NotStarted(ServiceError):
    pass


class GameEnded(ServiceError):
    """The game is over (or, for a resignation by its app, not started): ``game_status`` says which."""


class GameNotOver(ServiceError):
    """A game's record is read only once it is over: before, it would reveal the hands."""


class Forbidden(ServiceError):
    """Not for this caller: ``/metrics`` from outside its allowed networks without its token; a registered
    bot changed with another app's key."""


class SeatNotFound(ServiceError):
    pass


class SeatTaken(ServiceError):
    pass


class IdempotencyKeyReused(ServiceError):
    pass


class AtCapacity(ServiceError):
    """A client (or a game) holds as many of something as it may at once; ``headers`` carries ``Retry-After``."""

    def __init__(self, detail: str, retry_after: int, **members: Any) -> None:
        super().__init__(detail, **members)
        self.headers = {"Retry-After": str(retry_after)}


class TooManyStreams(AtCapacity):
    pass


class TooManyGames(AtCapacity):
    pass


class TooManySimulations(AtCapacity):
    pass


class TooManyAnalyses(AtCapacity):
    """A client has as many analyses queued or running as it may."""


class AnalysisNotFound(ServiceError):
    """A game with no analysis (none asked for, or its record expired and the archive has none)."""


class TooManyArenas(AtCapacity):
    """An arena owner has as many arenas running as one owner may."""


class TooManyAppGames(AtCapacity):
    """An app has as many games waiting or playing as its cap allows."""


class TooManyTickets(AtCapacity):
    """A holder has as many open matchmaking tickets as it may."""


class TicketNotFound(ServiceError):
    """No such matchmaking ticket for this token."""


class TooManyChallenges(AtCapacity):
    """A challenger has as many open challenges as it may."""


class ChallengeNotFound(ServiceError):
    """No such challenge for this caller (or it is over and no longer kept)."""


class BotBusy(ServiceError):
    """A registered bot plays as many games at once as its ``max_games`` allows."""


class DeadlineTooShort(ServiceError):
    """A game's time per move is shorter than a registered bot's ``min_turn_timeout_s``."""


class NoWebhook(ServiceError):
    """A delivery asked of an app that has no webhook to send it to (the app's state, not the request, is at fault)."""


class HintsOff(ServiceError):
    """A hint asked in a game created without ``hints: true``."""


class HintUnavailable(AtCapacity):
    """No hints worker answered within ``Settings.hint_wait``: nothing was counted; ``Retry-After``."""


class OfferClosed(ServiceError):
    """A ticket, challenge or rematch offer that is no longer open (matched, answered, cancelled, expired)."""


class SeatLimit(ServiceError):
    """This client already holds as many seats of this game as one client may."""


class GameBusy(ServiceError):
    """A game kept changing under an operation that had to read it first: the caller may simply try again."""


class NothingToScreen(ServiceError):
    """A fair-play screen of a player (or bot) with no finished game the caller may read."""

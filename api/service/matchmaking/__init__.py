"""Matchmaking: tickets that find a table (``POST /v1/matchmaking/tickets``), the matcher that seats them, and
challenges (``POST /v1/challenges``).

:mod:`.spec` checks a ticket and names its pool, :mod:`.tables` forms tables (pure), :mod:`.tickets` keeps the
tickets and their long polls, :mod:`.matcher` claims tables and creates their games, :mod:`.challenges` keeps
challenges and makes the game of an accepted one.
"""

from __future__ import annotations

import time
from typing import Any

from api.config import Settings
from api.queues import Queues
from api.service.app_events import Lifecycle
from api.service.apps import App
from api.service.create import Creation
from api.service.errors import InvalidRequest, Unauthorized
from api.service.matchmaking.challenges import Caller, ChallengeRequest, Challenges
from api.service.matchmaking.matcher import Matcher
from api.service.matchmaking.spec import ANONYMOUS, BOT, PLAYER, Holder, TicketRequest
from api.service.matchmaking.tickets import Tickets
from api.service.registered_bots import RegisteredBots
from api.service.security import BOT_TOKEN_PREFIX
from api.store import Store

__all__ = ["Caller", "ChallengeRequest", "Holder", "Matchmaking", "TicketRequest"]


class Matchmaking:
    def __init__(
        self, store: Store, settings: Settings, queues: Queues, creation: Creation, lifecycle: Lifecycle, bots: RegisteredBots
    ) -> None:
        self.tickets = Tickets(store, settings)
        self.matcher = Matcher(store, settings, queues, creation, lifecycle)
        self.bots = bots
        self.challenges = Challenges(store, settings, creation, lifecycle, bots)

    def holder(self, app: App | None, token: str | None, player: str | None, client: str) -> Holder:
        """Who seeks (or challenges): an app's player (the app's key and ``player``), a registered bot (its
        token), or an anonymous client (no token: its address)."""
        if app is not None:
            if player is None:
                raise InvalidRequest("An app's ticket or challenge names its `player`.", errors={"json": {"player": ["required with an app key"]}})
            return Holder(PLAYER, player, app.id)
        if player is not None:
            raise InvalidRequest("`player` comes with the app's key.", errors={"json": {"player": ["only with an app key"]}})
        if token is not None and token.startswith(BOT_TOKEN_PREFIX):
            return Holder(BOT, self.bots.caller(token))
        if token is not None:
            raise Unauthorized("A ticket or challenge is made with an app key, a bot token, or no token at all.")
        return Holder(ANONYMOUS, client)

    def open(self, req: TicketRequest, app: App | None, token: str | None, player: str | None, client: str) -> dict[str, Any]:
        """A waiting ticket (with its token, shown once); a pass for the table it may join is queued."""
        ticket_id, pool, answer = self.tickets.open(req, self.holder(app, token, player, client))
        self.matcher.ask(pool, ticket_id)
        return answer

    def challenge(self, req: ChallengeRequest, app: App | None, token: str | None, player: str | None, client: str) -> dict[str, Any]:
        """An open challenge (with its token, shown once); its addressee is told."""
        return self.challenges.open(req, self.holder(app, token, player, client), app)

    def read(self, ticket_id: str, token: str | None, wait: float) -> dict[str, Any]:
        return self.tickets.read(ticket_id, token, wait)

    def cancel(self, ticket_id: str, token: str | None) -> dict[str, Any]:
        return self.tickets.cancel(ticket_id, token)

    def match(self, pool: str, first: str | None = None) -> int:
        return self.matcher.run(pool, first)

    def sweep(self, now: float | None = None) -> int:
        """Unread tickets expire; half-done matches are finished; every pool gets a pass. The tables formed."""
        now = time.time() if now is None else now
        self.tickets.expire_unread(now)
        return self.matcher.sweep(now)

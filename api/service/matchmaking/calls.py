"""The matchmaking use cases of :class:`api.service.service.Service` (tickets, the matcher's job, rematches), kept
in their own module so that the Service stays one screenful per area."""

from __future__ import annotations

from typing import Any

from api.service.apps import App
from api.service.matchmaking import Caller, ChallengeRequest, Matchmaking, TicketRequest
from api.service.matchmaking.rematch import Rematches


class MatchmakingCalls:
    matchmaking: Matchmaking
    rematches: Rematches

    def open_ticket(
        self, req: TicketRequest, app: App | None, token: str | None, player: str | None, client: str
    ) -> dict[str, Any]:
        """A matchmaking ticket for an app's ``player``, a registered bot (its ``token``) or the anonymous
        ``client``: ``{"ticket", "token"}`` (api/service/matchmaking)."""
        return self.matchmaking.open(req, app, token, player, client)

    def ticket(self, ticket_id: str, token: str | None, wait: float = 0.0) -> dict[str, Any]:
        return self.matchmaking.read(ticket_id, token, wait)

    def cancel_ticket(self, ticket_id: str, token: str | None) -> dict[str, Any]:
        return self.matchmaking.cancel(ticket_id, token)

    def open_challenge(
        self, req: ChallengeRequest, app: App | None, token: str | None, player: str | None, client: str
    ) -> dict[str, Any]:
        """A challenge from an app's ``player``, a registered bot (its ``token``) or the anonymous ``client``:
        ``{"challenge", "token"}`` (api/service/matchmaking/challenges.py)."""
        return self.matchmaking.challenge(req, app, token, player, client)

    def challenge(self, challenge_id: str, caller: Caller, wait: float = 0.0) -> dict[str, Any]:
        return self.matchmaking.challenges.read(challenge_id, caller, wait)

    def accept_challenge(self, challenge_id: str, caller: Caller) -> dict[str, Any]:
        return self.matchmaking.challenges.accept(challenge_id, caller)

    def decline_challenge(self, challenge_id: str, caller: Caller) -> dict[str, Any]:
        return self.matchmaking.challenges.decline(challenge_id, caller)

    def cancel_challenge(self, challenge_id: str, caller: Caller) -> dict[str, Any]:
        return self.matchmaking.challenges.cancel(challenge_id, caller)

    def rematch(self, game_id: str, token: str | None, timeout_s: float | None = None) -> tuple[int, dict[str, Any]]:
        """Offer or accept the same table again (api/service/matchmaking/rematch.py): (201, the new game) or (202,
        the offer)."""
        return self.rematches.accept(game_id, token, timeout_s)

    def decline_rematch(self, game_id: str, token: str | None) -> dict[str, Any]:
        return self.rematches.decline(game_id, token)

    def rematch_offer(self, game_id: str, token: str | None) -> dict[str, Any]:
        return self.rematches.read(game_id, token)

    def match_pool(self, pool: str, ticket_id: str) -> str:
        """A ticket arrived in ``pool``: form the table it may join."""
        return f"{self.matchmaking.match(pool, ticket_id or None)} tables"

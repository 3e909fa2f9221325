"""The bots' use cases of :class:`api.service.service.Service` (the catalogue, registered bots, their tokens and
their one stream), in their own module so that the Service stays one screenful per area."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from api.service.bot_events import BotEvents
from api.service.ratings import Ratings
from api.service.registered_bots import RegisteredBots


class BotCalls:
    registry: RegisteredBots
    ratings: Ratings
    bot_events: BotEvents

    def bots(self, after: tuple[float, str] | None, limit: int, owner: str | None = None) -> tuple[list[dict[str, Any]], tuple[float, str] | None]:
        """The computer players (``kind: builtin``) and the registered bots (``kind: registered``), each with its
        ratings by variant."""
        page, position = self.registry.catalog(after, limit, owner)
        return self.ratings.with_ratings(page), position

    def bot(self, name: str) -> dict[str, Any]:
        """A bot's entry as ``GET /v1/bots`` lists it (with its ratings)."""
        return self.ratings.with_ratings([self.registry.get(name)])[0]

    def register_bot(
        self, owner: str, owner_name: str, name: str, description: str, variants: list[str], webhook: str | None = None
    ) -> dict[str, Any]:
        """Register a bot for the app ``owner`` (its id; ``owner_name`` is shown): its entry with its ``token``
        (and ``webhook_secret`` for a webhook bot), shown this once."""
        return self.ratings.with_ratings([self.registry.register(owner, owner_name, name, description, variants, webhook)])[0]

    def update_bot(self, owner: str | None, token: str | None, name: str, changes: dict[str, Any]) -> dict[str, Any]:
        """The app ``owner`` that registered it (anything), or the bot itself (its ``token``: its limits)."""
        entry = self.registry.update(owner, name, changes) if owner is not None else self.registry.set_limits(token, name, changes)
        return self.ratings.with_ratings([entry])[0]

    def retire_bot(self, owner: str, name: str) -> None:
        self.registry.retire(owner, name)
        self.ratings.unlist_bot(name)

    def rotate_bot_token(self, owner: str, name: str, grace_s: int) -> dict[str, Any]:
        """Only the app ``owner`` that registered it: a new token, the old one kept ``grace_s`` seconds."""
        return self.ratings.with_ratings([self.registry.rotate_token(owner, name, grace_s)])[0]

    def bot_long_poll(self, token: str | None, cursor: str | None, wait: float, client: str) -> dict[str, Any]:
        """A registered bot's notices (its turns, its games started and ended) after the id ``cursor``."""
        return self.bot_events.long_poll(token, cursor, wait, client)

    def bot_sse(self, token: str | None, cursor: str | None, client: str) -> Iterator[bytes]:
        return self.bot_events.stream(token, cursor, client)

"""The fair-play use cases of :class:`api.service.service.Service`, in their own module beside it (as the analyses'
are): docs/analysis.md#fair-play-screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from api.service.apps import App, Apps
from api.service.fairplay import Screens, Subject
from api.service.registered_bots import RegisteredBots

OPERATOR = "operator"  # the client whose slots the operator's screens hold


class FairplayCalls:
    screens: Screens
    registry: RegisteredBots
    apps: Apps
    record: Callable[[str], dict[str, Any]]  # Service's: a game's revealed record, or why not (404, 409)

    def player_fairplay(self, app: App, player: str, games: int, client: str, wait: float = 0.0) -> tuple[int, dict[str, Any]]:
        """(200 when done, else 202; the screen of ``app``'s ``player`` over its last ``games`` finished games
        of that app). ``client`` (the caller's address) holds one of its analysis slots while it is queued or
        running; ``wait``: a long poll until it is over."""
        return _answer(self.screens.screen(Subject("player", player, app.id), games, client, wait))

    def bot_fairplay(self, app: App, name: str, games: int, client: str, wait: float = 0.0) -> tuple[int, dict[str, Any]]:
        """As :meth:`player_fairplay`, of the registered bot ``name``: only its owner's (Forbidden otherwise)."""
        self.registry.check_owner(app.id, name)
        return _answer(self.screens.screen(Subject("bot", name), games, client, wait))

    def operator_fairplay(self, subject: str, name: str, app: str | None, games: int, wait: float = 0.0) -> dict[str, Any]:
        """The operator's (``domino-admin fairplay``): a screen of any app's player (``app``: the app's id or name)
        or of any registered bot (``subject``: ``player`` or ``bot``), as the owner's call answers it; its slot is
        the operator's own."""
        if subject == "bot":
            self.registry.get(name)  # BotNotFound for none
            return self.screens.screen(Subject("bot", name), games, OPERATOR, wait)
        owner = self.apps.find(app or "")
        return self.screens.screen(Subject("player", name, owner.id), games, OPERATOR, wait)

    def run_fairplay(self, screen_id: str) -> str:
        """The job: read the screen's games (resuming where an earlier run stopped) and keep it in the archive."""
        if not self.screens.pending(screen_id):
            return "skipped: not queued or running"
        return self.screens.run(screen_id, self.record)

    def fairplay_failed(self, screen_id: str, error: str) -> None:
        self.screens.failed(screen_id, error)


def _answer(found: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return (200 if found["status"] == "done" else 202), found

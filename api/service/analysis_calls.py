"""The analysis use cases of :class:`api.service.service.Service`, in their own module beside it (as the
simulations' are): docs/analysis.md."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from api.service.analyses import Analyses
from api.service.games import gone
from api.service.security import is_id


class AnalysisCalls:
    analyses: Analyses
    record: Callable[[str], dict[str, Any]]  # Service's: a game's revealed record, or why not (404, 409)

    def request_analysis(self, game_id: str, client: str) -> tuple[int, dict[str, Any]]:
        """(200 when done, else 202; the game's analysis): the one asked for before, or a new one queued for a
        game over and revealed (GameNotOver before; GameNotFound for no game). ``client`` (the caller's
        address) holds one of its analysis slots while it is queued or running."""
        if not is_id(game_id):
            raise gone(game_id[:40])
        found = self.analyses.find(game_id)
        if found is None or found["status"] == "failed":
            self.record(game_id)
            found = self.analyses.request(game_id, client)
        return (200 if found["status"] == "done" else 202), found

    def analysis(self, game_id: str, wait: float = 0.0) -> dict[str, Any]:
        """The game's analysis (AnalysisNotFound when it has none); ``wait``: a long poll until it is over."""
        if not is_id(game_id):
            raise gone(game_id[:40])
        return self.analyses.read(game_id, wait)

    def run_analysis(self, game_id: str) -> str:
        """The job: analyse the game (resuming where an earlier run stopped) and keep the answer in the archive."""
        if not self.analyses.pending(game_id):
            return "skipped: not queued or running"
        return self.analyses.run(game_id, self.record(game_id))

    def analysis_failed(self, game_id: str, error: str) -> None:
        self.analyses.failed(game_id, error)

"""Job functions: they take ids, never objects, and call api.service."""

from __future__ import annotations

import functools

from api.config import Settings
from api.service import Service


@functools.cache
def service() -> Service:
    """One Service per worker process, configured from the environment (``DOMINO_*``)."""
    return Service(Settings.from_env())


def bot_turn(game_id: str, version: int) -> str:
    """Play one computer player's move if the game is still at ``version``; stale or duplicate jobs do
    nothing. ``service.play_move`` enqueues the next turn when a computer player is to move again."""
    return service().play_bot_turn(game_id, version)

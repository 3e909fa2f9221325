"""Computer players. Each sees only its seat's view: ``choose(view, rng, budget) -> Move``."""

from __future__ import annotations

from domino.bots import greedy, random_bot
from domino.bots.base import Budget, SimpleBot, Strategy
from domino.bots.levels import LEVELS

__all__ = ["Budget", "Strategy", "catalog", "get", "ids"]

_LIST: list[Strategy] = [
    SimpleBot("random", "Plays a uniformly random legal move.", "baseline", random_bot.pick),
    SimpleBot("greedy", "Plays the heaviest legal tile; draws only when it must.", "beats random", greedy.pick),
    *LEVELS,
]
_BOTS = {b.id: b for b in _LIST}


def get(bot_id: str) -> Strategy:
    """The strategy with this id; KeyError if there is none."""
    return _BOTS[bot_id]


def ids() -> list[str]:
    return list(_BOTS)


def catalog() -> list[dict[str, str]]:
    """Id, description and measured strength of every strategy (GET /v1/bots)."""
    return [{"id": b.id, "description": b.description, "strength": b.strength} for b in _BOTS.values()]

"""Computer players. Each sees only its seat's view: ``choose(view, rng, budget) -> Move``."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from domino.moves import Move

__all__ = ["Budget", "Strategy", "catalog", "get", "ids"]


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a bot may think: a node count (deterministic) and/or a ``time.monotonic()`` deadline."""

    nodes: int | None = None
    deadline: float | None = None


class Strategy(Protocol):
    id: str
    description: str

    def choose(self, view: Any, rng: random.Random, budget: Budget) -> Move: ...


@dataclass(frozen=True, slots=True)
class _Simple:
    id: str
    description: str
    strength: str
    pick: Callable[[Any, random.Random], Move]

    def choose(self, view: Any, rng: random.Random, budget: Budget) -> Move:
        if not view.legal_moves:
            raise ValueError("the bot's seat has no move to make")
        return self.pick(view, rng)


def _registry() -> dict[str, Any]:
    from domino.bots import greedy, random_bot

    bots: list[Any] = [
        _Simple("random", "Plays a uniformly random legal move.", "baseline", random_bot.pick),
        _Simple("greedy", "Plays the heaviest legal tile; draws only when it must.", "beats random", greedy.pick),
    ]
    from domino.bots.levels import LEVELS

    bots.extend(LEVELS)
    return {b.id: b for b in bots}


_BOTS: dict[str, Any] = {}


def get(bot_id: str) -> Strategy:
    """The strategy with this id; KeyError if there is none."""
    if not _BOTS:
        _BOTS.update(_registry())
    return _BOTS[bot_id]  # type: ignore[no-any-return]


def ids() -> list[str]:
    if not _BOTS:
        _BOTS.update(_registry())
    return list(_BOTS)


def catalog() -> list[dict[str, str]]:
    """Id, description and measured strength of every strategy (GET /v1/bots)."""
    return [{"id": i, "description": get(i).description, "strength": _BOTS[i].strength} for i in ids()]

"""What every computer player shares: the caller's thinking budget and the strategy protocol."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from domino.moves import Move


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a bot may think: a node count (deterministic) and/or a ``time.monotonic()`` deadline."""

    nodes: int | None = None
    deadline: float | None = None


class Strategy(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def strength(self) -> str: ...

    def choose(self, view: Any, rng: random.Random, budget: Budget) -> Move: ...


@dataclass(frozen=True, slots=True)
class SimpleBot:
    """A strategy that needs no budget: ``pick(view, rng)`` chooses among the view's legal moves."""

    id: str
    description: str
    strength: str
    pick: Callable[[Any, random.Random], Move]

    def choose(self, view: Any, rng: random.Random, budget: Budget) -> Move:
        if not view.legal_moves:
            raise ValueError("the bot's seat has no move to make")
        return self.pick(view, rng)

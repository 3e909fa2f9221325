"""The ``random`` bot: any legal move, uniformly."""

from __future__ import annotations

import random
from typing import Any

from domino.moves import Move


def pick(view: Any, rng: random.Random) -> Move:
    moves = view.legal_moves
    return moves[rng.randrange(len(moves))]  # type: ignore[no-any-return]

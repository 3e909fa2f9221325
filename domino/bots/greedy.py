"""The ``greedy`` bot: lay the heaviest tile it can; draw or pass only when it has no play."""

from __future__ import annotations

import random
from typing import Any

from domino.moves import Move, Play


def pick(view: Any, rng: random.Random) -> Move:
    plays = [m for m in view.legal_moves if isinstance(m, Play)]
    if not plays:
        return view.legal_moves[0]  # type: ignore[no-any-return]
    # Heaviest tile; among equals, the first in the (sorted, deterministic) legal order.
    best = max(t.tile.pips for t in plays)
    return next(m for m in plays if m.tile.pips == best)

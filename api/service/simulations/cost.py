"""The cost model that sizes a simulation's chunks (about ``simulation_chunk_seconds`` of work each).

Rough seconds per game, measured on a laptop core; only the chunk size depends on them, never the results.
"""

from __future__ import annotations

import domino
from api.config import Settings

SECONDS_PER_GAME = {"playout": 1 / 1000, "engine_line": 1 / 40, "engine_mexican": 1 / 8}
SECONDS_PER_SEARCH_NODE = 60 * 0.075e-3  # ~60 moves a game for a search seat, ~0.075 ms per node


def seconds_per_game(rules: domino.Rules, native: bool, search_nodes: list[int]) -> float:
    """One game's estimated cost: the fast core (``native``), or the engine loop plus the node budget of
    each search seat (``search_nodes``: one entry per seat)."""
    if native:
        return SECONDS_PER_GAME["playout"]
    per_game = SECONDS_PER_GAME["engine_line" if rules.is_line else "engine_mexican"]
    return per_game + sum(search_nodes) * SECONDS_PER_SEARCH_NODE


def chunk_deals(settings: Settings, deals: int, rotations: int, per_game: float) -> int:
    """Deals per chunk: about ``simulation_chunk_seconds`` of work, bigger past ``simulation_max_chunks``."""
    per_chunk = max(1, int(settings.simulation_chunk_seconds / (per_game * rotations)))
    if -(-deals // per_chunk) > settings.simulation_max_chunks:
        per_chunk = -(-deals // settings.simulation_max_chunks)
    return min(per_chunk, deals)

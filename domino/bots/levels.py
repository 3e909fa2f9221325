"""The search levels listed by ``GET /v1/bots``, with their measured strength (bench/bot_strength.py)."""

from __future__ import annotations

from domino.bots.search import SearchBot

CLUB = SearchBot(
    id="club",
    description="Determinized Monte Carlo search: samples the hidden tiles from what it has seen, plays each "
    "move out on every sample with a fast heuristic policy; 100 ms a move by default.",
    strength="not measured yet",
    eps=0.1,
)
EXPERT = SearchBot(
    id="expert",
    description="Club's search plus successive halving; 100 ms a move by default.",
    strength="not measured yet",
    eps=0.1,
    halving=True,
    endgame=14,
)
LEVELS = [CLUB, EXPERT]

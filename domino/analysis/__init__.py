"""Analysis of finished games (docs/analysis.md): every move with a choice valued from the mover's information.

Pure: no I/O, deterministic for a game id and a node budget."""

from domino.analysis.game import (
    ACCURATE_LOSS,
    GameAnalysis,
    MoveAnalysis,
    Position,
    SeatSummary,
    analyse,
    analyse_position,
    position_rng,
    positions,
    summarise,
)
from domino.analysis.values import DEFAULT_NODES, Deals, MoveValue, move_values

__all__ = [
    "ACCURATE_LOSS", "DEFAULT_NODES", "Deals", "GameAnalysis", "MoveAnalysis", "MoveValue", "Position", "SeatSummary",
    "analyse", "analyse_position", "move_values", "position_rng", "positions", "summarise",
]  # fmt: skip

"""The fast internal core of the line games: bitmask hands, built-in bots, whole
matches in one call. The public immutable API in domino.engine stays the reference; the core agrees
with it exactly (tests/engine/test_core_agrees.py)."""

from domino.core.codes import DRAW_CODE, PASS_CODE
from domino.core.play import (
    STRATEGIES,
    PlayoutResult,
    RoundSummary,
    bot_rng,
    decode,
    playout,
)
from domino.core.tables import Tables, mask_of, tables, tiles_of

__all__ = [
    "DRAW_CODE",
    "PASS_CODE",
    "STRATEGIES",
    "PlayoutResult",
    "RoundSummary",
    "Tables",
    "bot_rng",
    "decode",
    "mask_of",
    "playout",
    "tables",
    "tiles_of",
]

"""The bitmask kernel of the line games: tiles as indices, hands as int masks, moves as ints (codes.py).

Whole matches with the built-in bots in one call (play.py, ``playout``), and any mid-round position with
every hand known, played move by move in place (position.py, ``LineSim``: the search bots' simulator).
Both read the rules through one ``Config`` (round.py) and one set of tables (tables.py), and each rule has
one home here: the blocked test is ``LineSim.blocked``, the All Fives count ``LineSim.count`` (the block
playout writes the blocked test flat, for speed). The public engine's line games step on ``LineSim`` too
(``domino.variants.line_kernel``). What they are checked against is the rules as docs/rules.md states them:
the independent oracles of tests/engine/oracles.py, the worked examples and the golden games; the playouts
play exactly the public engine's matches (tests/engine/test_core_agrees.py, tests/bots/test_strong.py)."""

from domino.core.codes import DRAW_CODE, PASS_CODE
from domino.core.play import (
    STRATEGIES,
    PlayoutResult,
    RoundSummary,
    bot_rng,
    decode,
    playout,
)
from domino.core.position import LineSim
from domino.core.tables import Tables, mask_of, tables, tiles_of

__all__ = [
    "DRAW_CODE",
    "LineSim",
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

"""Moves of the line games as ints, shared by the match core and the search's simulator.

A play is ``tile * 8 + end`` (``tile`` its index in ``full_set`` order); the ends number the board's
open ends in the order the simulators keep them, so a code's end indexes them directly; the opening
has no end. A draw and a pass are negative.
"""

from __future__ import annotations

from domino.core.tables import Tables, index
from domino.moves import DRAW, LINE_ENDS, PASS, Draw, Move, Play

LEFT, RIGHT, UP, DOWN, OPEN = 0, 1, 2, 3, 4
END_NAMES: tuple[str | None, ...] = (*LINE_ENDS, None)  # end code -> Play.end
END_CODE = {name: code for code, name in enumerate(END_NAMES)}
DRAW_CODE = -1
PASS_CODE = -2


def to_move(code: int, tab: Tables) -> Move:
    """The public move for a code."""
    if code == DRAW_CODE:
        return DRAW
    if code == PASS_CODE:
        return PASS
    return Play(tab.tiles[code >> 3], END_NAMES[code & 7])


def to_code(move: Move) -> int:
    """The code of a public move (a play of the opening has end None). A tile's index is the same in every
    set (:func:`domino.core.tables.index`), so no tables are needed."""
    if isinstance(move, Play):
        return index(move.tile) << 3 | END_CODE[move.end]
    return DRAW_CODE if isinstance(move, Draw) else PASS_CODE

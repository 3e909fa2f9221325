"""The line of play and the All Fives spinner (docs/rules.md#the-spinner): where tiles go, and the board's
stored and shown forms. (The count and the blocked test are the kernel's: ``LineSim.count``, ``.blocked``.)"""

from __future__ import annotations

from typing import Any, Mapping

from domino.moves import Play
from domino.state import LineBoard, Placed, placed_str
from domino.tiles import Tile


def open_ends(board: LineBoard) -> list[tuple[str, int]]:
    """The places a tile can go, with the value each shows. ``up``/``down`` open once both spinner sides are covered."""
    line = board.line
    if not line:
        return []
    ends = [("left", line[0][0]), ("right", line[-1][1])]
    s = board.spinner
    if s is not None and 0 < s < len(line) - 1:
        v = line[s][0]
        ends.append(("up", board.up[-1][1] if board.up else v))
        ends.append(("down", board.down[-1][1] if board.down else v))
    return ends


_PLAYS: dict[tuple[Tile, str | None], Play] = {}  # moves are immutable: one object per (tile, end)


def play(tile: Tile, end: str | None) -> Play:
    """The move laying ``tile`` at ``end``."""
    move = _PLAYS.get((tile, end))
    if move is None:
        move = _PLAYS[(tile, end)] = Play(tile, end)
    return move


def place(board: LineBoard, tile: Tile, end: str | None, spinner: bool) -> LineBoard:
    """The board with ``tile`` laid at ``end`` (None: the opening). ``spinner``: the first double spins."""
    becomes_spinner = spinner and board.spinner is None and tile.is_double
    if end is None:
        return LineBoard(line=((tile.high, tile.low),), spinner=0 if becomes_spinner else None)
    line = board.line
    if end == "left":
        v = line[0][0]
        new: Placed = (tile.other(v), v)
        s = board.spinner
        return LineBoard((new,) + line, 0 if becomes_spinner else (None if s is None else s + 1), board.up, board.down)
    if end == "right":
        v = line[-1][1]
        new = (v, tile.other(v))
        s = len(line) if becomes_spinner else board.spinner
        return LineBoard(line + (new,), s, board.up, board.down)
    arm = board.up if end == "up" else board.down
    v = arm[-1][1] if arm else line[board.spinner or 0][0]
    grown = arm + ((v, tile.other(v)),)
    if end == "up":
        return LineBoard(line, board.spinner, grown, board.down)
    return LineBoard(line, board.spinner, board.up, grown)



def tiles(board: LineBoard) -> tuple[Tile, ...]:
    return tuple(Tile(a, b) for a, b in board.line + board.up + board.down)


def shown(board: LineBoard, spinner_game: bool, count: int) -> dict[str, Any]:
    """The board as views show it (``count``: the All Fives count, shown in spinner games)."""
    ends = dict(open_ends(board))
    d: dict[str, Any] = {
        "line": [placed_str(p) for p in board.line],
        "ends": {"left": ends.get("left"), "right": ends.get("right")},
    }
    if spinner_game:
        s = board.spinner
        d["spinner"] = None if s is None else placed_str(board.line[s])
        d["spinner_index"] = s
        d["arms"] = {"up": [placed_str(p) for p in board.up], "down": [placed_str(p) for p in board.down]}
        d["ends"]["up"] = ends.get("up")
        d["ends"]["down"] = ends.get("down")
        d["count"] = count
    return d


def to_dict(board: LineBoard) -> dict[str, Any]:
    return {
        "line": [list(p) for p in board.line],
        "spinner": board.spinner,
        "up": [list(p) for p in board.up],
        "down": [list(p) for p in board.down],
    }


def from_dict(d: Mapping[str, Any]) -> LineBoard:
    return LineBoard(
        tuple((a, b) for a, b in d["line"]), d["spinner"], tuple((a, b) for a, b in d["up"]), tuple((a, b) for a, b in d["down"])
    )

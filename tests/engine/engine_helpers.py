"""Shared helpers for the engine tests (not a test module)."""

from __future__ import annotations

from typing import Any, Iterable

import domino
from domino import Draw, Pass, Play, Tile
from domino.testing import position

__all__ = ["T", "P", "DRAW", "PASS", "hand", "position", "plays", "ends_of", "board_tiles", "all_state_tiles"]

DRAW = Draw()
PASS = Pass()


def T(text: str) -> Tile:
    return Tile.parse(text)


def P(tile: str, end: str | None = None) -> Play:
    return Play(T(tile), end)


def hand(text: str) -> tuple[Tile, ...]:
    return tuple(sorted((T(s) for s in text.split()), reverse=True))


def plays(*specs: str) -> set[Play]:
    """plays("6-1 left", "6-1 right") -> a set of Play moves."""
    out = set()
    for spec in specs:
        tile, end = spec.split()
        out.add(Play(T(tile), end))
    return out


def ends_of(state: domino.State) -> dict[str, int]:
    return dict(domino.view(state, None).ends)


def board_tiles(state: domino.State) -> list[Tile]:
    b = state.board
    return [Tile(a, c) for a, c in b.line + b.up + b.down]


def all_state_tiles(state: domino.State) -> list[Tile]:
    return [t for h in state.hands for t in h] + list(state.boneyard) + board_tiles(state)


def play_through(state: domino.State, moves: Iterable[domino.Move]) -> domino.State:
    for m in moves:
        state = domino.apply(state, m)
    return state


def layout_str(state: domino.State) -> str:
    return "".join(f"[{a}-{b}]" for a, b in state.board.line)


def rules(name: str, players: int = 2, **kw: Any) -> domino.Rules:
    return domino.Rules.preset(name, players=players, **kw)

"""Shared helpers for the engine tests (not a test module)."""

from __future__ import annotations

from typing import Any, Iterable

import domino
from domino import Deal, Draw, Pass, Play, Tile, full_set
from domino.testing import position
from domino.variants.line_kernel import fresh

__all__ = [
    "T", "P", "DRAW", "PASS", "BLOCKING_LAYOUT", "NO_DRAW", "hand", "position", "plays", "ends_of", "board_tiles",
    "all_state_tiles", "count", "deal", "legal", "last",
]  # fmt: skip

DRAW = Draw()
PASS = Pass()
BLOCKING_LAYOUT = "[0-6][6-5][5-0]"  # both ends show 0; the hands used with it hold no 0
NO_DRAW = 100  # a boneyard_reserve larger than any boneyard: nobody may draw (allowed: docs/rules.md#boneyard_reserve)


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


def count(state: domino.State) -> int:
    """The All Fives count of the state's open ends, as the engine counts it (the kernel's)."""
    return fresh(state).count()


def deal(r: domino.Rules, *hands: str, boneyard: str = "") -> Deal:
    """A Deal with the given hands; the boneyard is ``boneyard`` (top first) then every other tile in set order."""
    hs = tuple(hand(h) for h in hands)
    head = [T(s) for s in boneyard.split()]
    used = {t for h in hs for t in h} | set(head)
    rest = [t for t in full_set(r.set_max_pips) if t not in used]
    return Deal(hands=hs, boneyard=tuple(head + rest))


def legal(state: domino.State) -> set[domino.Move]:
    moves = domino.legal_moves(state)
    assert len(set(moves)) == len(moves), "legal moves must not repeat"
    return set(moves)


def last(state: domino.State) -> domino.RoundResult:
    assert state.rounds, "no round has ended"
    return state.rounds[-1]

"""Shared helpers for the Mexican Train engine tests (not a test module)."""

from __future__ import annotations

from typing import Callable

import domino
from domino import Deal, Tile, full_set
from engine_helpers import T, hand, position

Pred = Callable[[Tile], bool]


def rules(players: int = 4, **kw: object) -> domino.Rules:
    return domino.Rules.preset("mexican_train", players=players, **kw)


def build_deal(
    r: domino.Rules, required: dict[int, str], forbid: dict[int, Pred] | None = None, boneyard_top: str = ""
) -> Deal:
    """Hands holding the ``required`` tiles, filled in set order with tiles the seat's ``forbid`` allows;
    the boneyard is ``boneyard_top`` and then the rest."""
    forbid = forbid or {}
    top = [T(s) for s in boneyard_top.split()]
    req = {s: list(hand(h)) for s, h in required.items()}
    used = set(top) | {t for h in req.values() for t in h}
    pool = [t for t in full_set(r.set_max_pips) if t not in used]
    hands = []
    for seat in range(r.players):
        h = req.get(seat, [])
        bad = forbid.get(seat, lambda t: False)
        for t in list(pool):
            if len(h) >= r.hand_size:
                break
            if not bad(t):
                h.append(t)
                pool.remove(t)
        assert len(h) == r.hand_size
        hands.append(tuple(h))
    return Deal(tuple(hands), tuple(top + pool))


def step(state: domino.State, move: domino.Move) -> tuple[domino.State, list[str]]:
    state, events = domino.step(state, move)
    return state, [e.type for e in events]


def train(state: domino.State, seat: int) -> dict[str, object]:
    return domino.view(state, None).board["trains"][seat]  # type: ignore[no-any-return]


def w19_deal(r: domino.Rules) -> Deal:
    return build_deal(
        r,
        {0: "12-0 4-0", 1: "12-7 7-7", 2: "12-12 12-5 9-5 9-9 9-1 12-3 7-4"},
        {
            0: lambda t: t.has(12) or t.has(7),
            1: lambda t: t.has(7) or t.has(12),
            2: lambda t: t.has(12) or t.has(9) or t.has(5) or t.has(1) or t.has(7) or t.has(3),
            3: lambda t: t.has(12),
        },
    )


W21_TRAINS = ["[12-0]", "[12-7][7-7][7-4]", "[12-3][3-1]", ""]


def w21(p3: str, top: str = "") -> domino.State:
    return position(
        rules(4),
        hands=["1-0 9-0", "2-2 6-6", "1-1 5-1 12-8 10-10", p3],
        boneyard=top,
        trains=W21_TRAINS,
        markers=[3],
        to_move=2,
        rest="boneyard",
    )

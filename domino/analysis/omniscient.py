"""Move values for one who sees the other hands but not the boneyard's order (the fair-play screen's
"omniscient" eye, and the peeking test bot's).

The analysis's values (:func:`domino.analysis.values.move_values`: every legal move played out on sampled deals,
the round's final point margin for the mover's side), but on other deals: where the analysis samples the hidden
tiles from what the seat saw, these keep the other hands as they truly are and shuffle only the tiles in no
hand (boneyard and out of play). The boneyard's order stays unknown, so a move that is best only because of
the next tile drawn is not "seen". Deterministic for a given ``rng`` and node budget.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from domino.analysis.values import move_values
from domino.core.tables import mask_of, tables
from domino.moves import Move
from domino.state import State
from domino.views import view

__all__ = ["SeenDeals", "omniscient_values", "seen_deals"]


@dataclass(frozen=True, slots=True)
class SeenDeals:
    """The deals of one who sees every hand: the other hands as they are, the rest of the tiles shuffled
    (the boneyard first). A :class:`domino.analysis.values.Deals`."""

    hands: dict[int, int]  # seat -> mask of its hand, every seat but the mover's
    rest: tuple[int, ...]  # the tiles in no hand

    def sample(self, rng: random.Random) -> tuple[dict[int, int], list[int]]:
        rest = list(self.rest)
        rng.shuffle(rest)
        return dict(self.hands), rest


def seen_deals(state: State) -> SeenDeals:
    """What the seat to move would see if it saw every hand (the boneyard's order excepted)."""
    tb = tables(state.rules.set_max_pips)
    me = state.turn
    hands = {s: mask_of(h, tb) for s, h in enumerate(state.hands) if s != me}
    return SeenDeals(hands, tuple(tb.index_of[t] for t in state.boneyard))


def omniscient_values(
    state: State, rng: random.Random, nodes: int, round_points: Sequence[int] = ()
) -> list[tuple[Move, float]]:
    """Every legal move of the seat to move with its value to one who sees the other hands (not the
    boneyard's order), within ``nodes``; ``round_points`` as for the analysis's values."""
    values = move_values(view(state, state.turn), rng, nodes, round_points, deals=seen_deals(state))
    return [(v.move, v.value) for v in values]

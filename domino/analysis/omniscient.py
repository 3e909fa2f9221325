"""Move values for one who sees the other hands but not the boneyard's order (the fair-play screen's
"omniscient" reference, and the peeking test bot's eye).

The same determinized Monte Carlo as the search bots: every legal move is played on a deal, and the round is
finished by the search's fast playout policy; a move's value is the mean final point margin of the round for
the mover's side (no win bonus: the analysis's units, docs/analysis.md). Where the search samples the hidden
tiles from what the seat saw, the deals here keep the other hands as they truly are and shuffle only the tiles
that are in no hand (boneyard and out of play): the order of the boneyard stays unknown, so a move that is
best only because of the next tile drawn is not "seen". Deterministic for a given ``rng`` and node budget.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from domino.bots import train_search
from domino.bots.endgame import utility
from domino.bots.search import rollout, root_sim
from domino.bots.train_inference import table_of
from domino.core import codes, trains
from domino.core.tables import mask_of, tables
from domino.moves import Move
from domino.rules import Rules
from domino.state import State
from domino.views import view

__all__ = ["SeenDeals", "omniscient_values"]

# Node charges as the search bots count them (a node is one simulator move).
_PLAYOUT_COST = 8
_SAMPLE_COST = 10
_EPS = 0.1  # the line playout policy's exploration, as club and expert play out
_TRAINS = train_search.TrainSearch()


@dataclass(frozen=True, slots=True)
class SeenDeals:
    """The deals of one who sees every hand: the other hands as they are, the rest of the tiles shuffled
    (the boneyard first). Has the ``sample(rng) -> (hands, rest)`` shape of the search's samplers."""

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


def omniscient_values(state: State, rng: random.Random, nodes: int) -> list[tuple[Move, float]]:
    """Every legal move of the seat to move with its value to one who sees the other hands (not the
    boneyard's order), within ``nodes`` simulator moves."""
    return deal_values(view(state, state.turn), seen_deals(state), rng, nodes)


def deal_values(seat_view: Any, deals: Any, rng: random.Random, nodes: int) -> list[tuple[Move, float]]:
    """Every legal move's mean round margin for the viewing seat over deals drawn from ``deals``
    (``sample(rng) -> (hands, rest)``), each move played out on the same deals and random numbers."""
    legal: tuple[Move, ...] = tuple(seat_view.legal_moves)
    rules = Rules.from_dict(seat_view.rules)
    tb = tables(rules.set_max_pips)
    me = int(seat_view.seat)
    if rules.preset_name == "mexican_train":
        root: Any = table_of(seat_view, rules, tb)
        move_codes = [trains.to_code(m, rules.players) for m in legal]
        finish: Callable[[Any, random.Random], int] = lambda sim, r: train_search.rollout(sim, r, _TRAINS)
        value: Callable[[Any], float] = lambda sim: train_search.utility(sim, me, 0.0)
    else:
        root = root_sim(seat_view, rules, tb)
        move_codes = [codes.to_code(m) for m in legal]
        side = rules.side_of(me)
        finish = lambda sim, r: rollout(sim, r, _EPS)
        value = lambda sim: utility(sim, side, 0.0)
    totals = [0.0] * len(legal)
    deals_played = 0
    used = 0
    while used < nodes or deals_played == 0:
        hands, rest = deals.sample(rng)
        base = root.copy()
        for s, m in hands.items():
            base.hands[s] = m
        base.bone = type(base.bone)(rest[: seat_view.boneyard_count])
        seed = rng.getrandbits(32)  # common random numbers: every move's playout draws the same numbers
        for i, code in enumerate(move_codes):
            sim = base.copy()
            sim.apply(code)
            used += finish(sim, random.Random(seed)) + _PLAYOUT_COST
            totals[i] += value(sim)
        used += _SAMPLE_COST
        deals_played += 1
    return [(m, t / deals_played) for m, t in zip(legal, totals)]

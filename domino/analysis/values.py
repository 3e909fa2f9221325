"""Every legal move's value at one position, from the mover's information (docs/analysis.md).

A move's value is the expected final point margin of the current round for the mover's side, in the round's
scoring points: the side's points in the round minus the best other side's (Mexican Train: the best other
seat's pips left minus the mover's). It is estimated as the searchers estimate it (:mod:`domino.bots.search`,
:mod:`domino.bots.train_search`): each iteration samples the hidden hands and the boneyard consistent with
everything the mover has seen (:mod:`domino.bots.inference`, :mod:`domino.bots.train_inference`), plays every
legal move on that same deal and finishes the round with ``expert``'s playout policy; every move's playout
on one deal draws the same random numbers (common random numbers), so the differences between moves are less
noisy than the values. Unlike the searcher's utility there is no bonus for winning the round: the value is
points only. Deterministic for a given ``rng`` and node budget (a node is a simulator move; each sampled deal
and each playout are charged their fixed work too, as the searchers charge them).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from domino.bots import train_search
from domino.bots.endgame import candidates, utility
from domino.bots.inference import Sampler, infer
from domino.bots.levels import EXPERT
from domino.bots.search import root_sim, rollout
from domino.bots.train_inference import TrainSampler, infer_trains, table_of
from domino.core import trains
from domino.core.codes import to_code
from domino.core.tables import tables
from domino.moves import Move
from domino.rules import Rules

__all__ = ["DEFAULT_NODES", "Deals", "MoveValue", "move_values"]

DEFAULT_NODES = 12000  # per position: the analysis's default budget (bench/analysis.py measures its time)
SAMPLE_COST = 10  # a sampled deal, in simulator moves (line games; Mexican Train: train_search's costs)
PLAYOUT_COST = 8


@dataclass(frozen=True, slots=True)
class MoveValue:
    """A legal move and its value: the expected final point margin of the round for the mover's side."""

    move: Move
    value: float

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.move.to_dict(), "value": self.value}


class Deals(Protocol):
    """Where the hidden tiles come from: ``sample(rng)`` -> (seat -> mask of its hand, the rest: boneyard first)."""

    def sample(self, rng: random.Random) -> tuple[dict[int, int], list[int]]: ...


def move_values(
    view: Any, rng: random.Random, nodes: int = DEFAULT_NODES, round_points: Sequence[int] = (),
    deals: Deals | None = None,
) -> tuple[MoveValue, ...]:  # fmt: skip
    """The value of every legal move of ``view`` (the seat to move's view), in ``view.legal_moves`` order,
    rounded to 0.01 point. ``round_points``: what each side (each seat without teams) scored so far in this
    round (All Fives counts in play), so that values are the round's final margin; empty means none.
    ``deals``: the hidden tiles' sampler; by default the searchers' inference from what the mover has seen."""
    legal = tuple(view.legal_moves)
    if not legal:
        raise ValueError("the seat has no move to make")
    if view.rules.get("variant") == "mexican_train":
        means = _train_means(view, legal, rng, nodes, deals or TrainSampler(infer_trains(view)))
    else:
        means = _line_means(view, legal, rng, nodes, round_points, deals)
    return tuple(MoveValue(m, round(v, 2)) for m, v in zip(legal, means))


def _line_means(
    view: Any, legal: tuple[Move, ...], rng: random.Random, nodes: int, round_points: Sequence[int],
    deals: Deals | None,
) -> list[float]:  # fmt: skip
    rules = Rules.from_dict(view.rules)
    know = infer(view)
    root = root_sim(view, rules, know.tables)
    if round_points:
        root.pts = list(round_points)
    codes = [to_code(m) for m in legal]
    # Plays of one tile on two plain-line ends showing the same value are the same move: value it once.
    cands = candidates(root, codes)
    slot = [cands.index(c) if c in cands else next(i for i, k in enumerate(cands) if k >> 3 == c >> 3) for c in codes]
    side = rules.side_of(int(view.seat))
    sampler = deals or Sampler(know)
    total, visits = [0.0] * len(cands), [0] * len(cands)
    used = 0
    while used < nodes or not visits[0]:  # at least one deal
        hands, rest = sampler.sample(rng)
        used += SAMPLE_COST
        base = root.copy()
        for s, m in hands.items():
            base.hands[s] = m
        base.bone = rest[: view.boneyard_count]
        seed = rng.getrandbits(32)
        for i, c in enumerate(cands):
            sim = base.copy()
            sim.apply(c)
            used += rollout(sim, random.Random(seed), EXPERT.eps, EXPERT.block_w) + PLAYOUT_COST
            total[i] += utility(sim, side, 0.0)
            visits[i] += 1
    return [total[k] / visits[k] for k in slot]


def _train_means(view: Any, legal: tuple[Move, ...], rng: random.Random, nodes: int, sampler: Deals) -> list[float]:
    rules = Rules.from_dict(view.rules)
    tb = tables(rules.set_max_pips)
    settings = EXPERT.trains or train_search.TrainSearch()
    codes = [trains.to_code(m, rules.players) for m in legal]
    root = table_of(view, rules, tb)
    me = int(view.seat)
    total, visits = [0.0] * len(codes), [0] * len(codes)
    used = 0
    while used < nodes or not visits[0]:  # at least one deal
        hands, rest = sampler.sample(rng)
        used += train_search.SAMPLE_COST
        base = root.copy()
        for s, m in hands.items():
            base.hands[s] = m
        base.bone = tuple(rest[: view.boneyard_count])
        seed = rng.getrandbits(32)
        for i, c in enumerate(codes):
            sim = base.copy()
            sim.apply(c)
            used += train_search.rollout(sim, random.Random(seed), settings) + train_search.PLAYOUT_COST
            total[i] += train_search.utility(sim, me, 0.0)
            visits[i] += 1
    return [t / v for t, v in zip(total, visits)]

"""The Mexican Train search (``expert``): what it infers from the public log, its sampler, and its moves."""

from __future__ import annotations

import random

import domino
from domino.bots import Budget, get
from domino.bots.train_inference import TrainSampler, infer_trains
from domino.core.tables import mask_of, tables
from domino.testing import position
from support import returns_within

RULES = domino.Rules.preset("mexican_train", players=4)
TB = tables(12)


def _games(count: int, seed: str):  # type: ignore[no-untyped-def]
    """Every position with a choice of some greedy/random rounds, as (state, view of the seat to move)."""
    greedy = get("greedy")
    for k in range(count):
        state = domino.new_game(RULES, seed=f"{seed}-{k}")
        rng = random.Random(k)
        while state.round == 1 and not state.finished:
            view = domino.view(state, state.turn)
            yield state, view
            legal = domino.legal_moves(state)
            move = greedy.choose(view, rng, Budget()) if rng.random() < 0.7 else rng.choice(legal)
            state = domino.apply(state, move)


def test_inference_replays_real_rounds_and_never_rules_out_a_held_tile() -> None:
    voids = 0
    for state, view in _games(6, "infer"):
        know = infer_trains(view)
        assert know.exact  # the replayed log reproduces the view's table and hand counts
        for s, gs in know.groups.items():
            assert sum(c for _, c in gs) == len(state.hands[s])
            held = mask_of(state.hands[s], TB)
            assert not know.voids(s) & held
            voids += know.voids(s).bit_count()
    assert voids > 0  # passes and draws did prove voids


def test_samples_respect_the_counts_and_the_voids() -> None:
    rng = random.Random(3)
    for state, view in list(_games(2, "sample"))[::5]:
        know = infer_trains(view)
        sampler = TrainSampler(know)
        for _ in range(3):
            hands, rest = sampler.sample(rng)
            every = mask_of(view.hand, TB)
            for s, m in hands.items():
                assert m.bit_count() == view.hand_counts[s]
                assert not m & know.voids(s)
                assert not m & every
                every |= m
            for t in rest:
                assert not every >> t & 1
                every |= 1 << t
            assert every == know.hidden | mask_of(view.hand, TB)
            assert len(rest) == view.boneyard_count + view.out_of_play_count


def test_expert_goes_out_through_a_double_it_can_follow() -> None:
    """Own train ends in 5, hand 5-5 and 5-1: the double first, then 5-1 goes out in the same turn; 5-1 first
    would leave 5-5 stranded."""
    state = position(
        RULES,
        trains=["[12-5]", "[12-8]", "[12-9]", "[12-10]"],
        hands=["5-5 5-1", "8-8 3-2 4-0", "9-9 6-6 7-0", "10-10 11-4 2-0"],
        rest="boneyard",
    )
    expert = get("expert")
    move = expert.choose(domino.view(state, 0), random.Random(1), Budget(nodes=20000))
    assert move == domino.Play(domino.Tile(5, 5), "train:0")
    state = domino.apply(state, move)
    move = expert.choose(domino.view(state, 0), random.Random(1), Budget(nodes=20000))
    state = domino.apply(state, move)
    assert state.rounds[0].winner == 0


def test_expert_is_legal_and_deterministic_for_a_node_budget() -> None:
    expert = get("expert")
    for state, view in list(_games(1, "legal"))[::7]:
        if len(view.legal_moves) < 2:
            continue
        a = expert.choose(view, random.Random(5), Budget(nodes=3000))
        b = expert.choose(view, random.Random(5), Budget(nodes=3000))
        assert a == b and a in view.legal_moves


def test_expert_keeps_to_a_deadline() -> None:
    expert = get("expert")
    state = domino.new_game(RULES, seed="deadline")
    view = domino.view(state, state.turn)
    # a deadline already past: the planner's move at once, legal
    move = returns_within(30, lambda: expert.choose(view, random.Random(0), Budget(deadline=0.0)))
    assert move in view.legal_moves

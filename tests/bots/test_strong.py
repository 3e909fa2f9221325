"""The search bots (issue 7): inference, the sampler, the simulator against the engine, budgets, legality."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import domino
import domino.testing
from domino.bots import Budget, get
from domino.bots.inference import Sampler, bits, infer
from domino.core.position import LineSim
from domino.core.codes import to_code, to_move
from domino.bots.endgame import solve
from domino.bots.search import root_sim
from domino.moves import move_key
from support import returns_within

LINE_SETUPS: list[tuple[str, int, dict[str, Any]]] = [
    ("draw", 2, {}),
    ("draw", 3, {}),
    ("draw", 4, {"teams": "partners_opposite"}),
    ("draw_family", 4, {}),
    ("draw", 2, {"drawn_tile_play": "may"}),
    ("block", 2, {}),
    ("block", 3, {}),
    ("block", 4, {"teams": "partners_opposite", "hand_size": 7}),
    ("all_fives", 2, {}),
    ("all_fives", 3, {"spinner": "none"}),
    ("all_fives", 4, {"teams": "partners_opposite"}),
    ("all_fives", 2, {"draw_policy": "draw_until_playable", "starting_rule": "lot"}),
]
ALL_SETUPS = LINE_SETUPS + [("mexican_train", 4, {}), ("mexican_train", 2, {})]


def _rules(setup: tuple[str, int, dict[str, Any]]) -> domino.Rules:
    name, players, overrides = setup
    return domino.Rules.preset(name, players=players, **overrides)


def _positions(rules: domino.Rules, seed: int, rounds: int = 1) -> list[tuple[domino.State, Any]]:
    """States (with the mover's view) of a game played by random moves."""
    rng = random.Random(seed)
    state = domino.new_game(rules, seed=f"strong-{seed}")
    out = []
    while not state.finished and state.round <= rounds:
        v = domino.view(state, state.turn)
        out.append((state, v))
        state = domino.apply(state, v.legal_moves[rng.randrange(len(v.legal_moves))])
    return out


def _sim_of(state: domino.State) -> LineSim:
    r = state.rules
    tb = infer(domino.view(state, state.turn)).tables
    s = LineSim.new(tb, r, state.opened_by_rule)
    s.hands = [sum(1 << tb.index_of[t] for t in h) for h in state.hands]
    s.bone = [tb.index_of[t] for t in state.boneyard]
    s.set_board(state.board)
    s.turn, s.drawn, s.extra = state.turn, state.drawn, state.extra_play
    return s


@pytest.mark.parametrize("setup", LINE_SETUPS, ids=lambda s: f"{s[0]}{s[1]}{'-'.join(s[2])}")
def test_simulator_agrees_with_engine(setup: tuple[str, int, dict[str, Any]]) -> None:
    """The search's simulator lists the engine's moves and scores rounds as the engine does."""
    rules = _rules(setup)
    for g in range(15):
        rng = random.Random(g)
        state = domino.new_game(rules, seed=f"agree-{g}")
        sim = _sim_of(state)
        while True:
            legal = domino.legal_moves(state)
            if state.board.line:  # the opening's forced lead is the engine's business
                assert list(legal) == sorted((to_move(m, sim.tb) for m in sim.legal()), key=move_key)
            move = legal[rng.randrange(len(legal))]
            sim.apply(to_code(move))
            nxt = domino.apply(state, move)
            if nxt.finished or nxt.round != state.round:
                rr = nxt.rounds[-1]
                if rr.end != "abandoned":
                    want = [rr.points[0], rr.points[1]] if rules.has_teams else list(rr.points)
                    assert sim.over and sim.result == want
                break
            assert not sim.over
            state = nxt


def _check_sample(state: domino.State, v: Any, rng: random.Random) -> None:
    know = infer(v)
    tb = know.tables
    sampler = Sampler(know)
    me = v.seat
    mine = sum(1 << tb.index_of[t] for t in v.hand)
    board = sum(1 << tb.index_of[t] for t in v.tiles_on_board)
    for _ in range(5):
        hands, rest = sampler.sample(rng)
        seen = 0
        for s, m in hands.items():
            assert s != me
            assert m.bit_count() == v.hand_counts[s], "hand counts are exact"
            assert m & (mine | board) == 0, "never a tile the seat can see"
            assert m & know.voids(s) == 0, "voids respected"
            assert seen & m == 0
            seen |= m
        for t in rest:
            assert not (mine | board | seen) >> t & 1
        assert len(rest) == v.boneyard_count + v.out_of_play_count
        assert seen.bit_count() + len(rest) + mine.bit_count() + board.bit_count() == len(tb.tiles)
        if know.exact:
            # The true hands are always consistent with the inference (soundness): they fit the slot groups
            # (nested masks, oldest first: Hall's condition on the suffixes).
            for s in hands:
                true = sum(1 << tb.index_of[t] for t in state.hands[s])
                assert true & know.voids(s) == 0
                groups = know.groups[s]
                levels = []
                for t in bits(true):
                    allowed = [k for k, (f, _) in enumerate(groups) if not f >> t & 1]
                    assert allowed, "a true tile fits no slot"
                    levels.append(allowed[0])
                for k in range(len(groups)):
                    assert sum(1 for lv in levels if lv >= k) <= sum(c for _, c in groups[k:])


@pytest.mark.parametrize("setup", ALL_SETUPS, ids=lambda s: f"{s[0]}{s[1]}{'-'.join(s[2])}")
def test_sampler_respects_counts_voids_and_visibility(setup: tuple[str, int, dict[str, Any]]) -> None:
    rules = _rules(setup)
    rng = random.Random(7)
    for seed in range(3):
        for state, v in _positions(rules, seed)[::3]:
            _check_sample(state, v, rng)


def test_voids_from_passes_and_compulsory_draws() -> None:
    """A pass in the block game proves the seat holds none of the open values, and the sampler obeys."""
    rules = domino.Rules.preset("block", players=2)
    for seed in range(40):
        for state, v in _positions(rules, seed):
            passes = [e for e in v.log if e.type == "pass" and e.seat != v.seat]
            if passes:
                know = infer(v)
                assert know.exact
                other = 1 - v.seat
                assert know.voids(other) != 0
                _check_sample(state, v, random.Random(seed))
                return
    pytest.fail("no position with a pass found")


def test_sampler_uniform_without_constraints() -> None:
    """With no constraints each hidden tile is in the opponent's hand with probability count/hidden."""
    rules = domino.Rules.preset("draw", players=2)
    state = domino.new_game(rules, seed="uniform")
    v = domino.view(state, state.turn)
    know = infer(v)
    sampler = Sampler(know)
    rng = random.Random(3)
    other = 1 - v.seat
    hits = dict.fromkeys(bits(know.hidden), 0)
    n = 3000
    for _ in range(n):
        hands, _ = sampler.sample(rng)
        for t in bits(hands[other]):
            hits[t] += 1
    p = 7 / 21
    for t, k in hits.items():
        assert abs(k / n - p) < 0.05, (t, k / n)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.sampled_from(ALL_SETUPS), seed=st.integers(0, 10_000), pick=st.integers(0, 10_000))
def test_choose_is_legal_on_any_position(setup: tuple[str, int, dict[str, Any]], seed: int, pick: int) -> None:
    """``choose`` never raises and returns a legal move (small node budgets keep it fast)."""
    rules = _rules(setup)
    positions = _positions(rules, seed)
    state, v = positions[pick % len(positions)]
    for bot_id in ("club", "expert"):
        move = get(bot_id).choose(v, random.Random(pick), Budget(nodes=60))
        assert move in v.legal_moves


@pytest.mark.parametrize("setup", ALL_SETUPS[:3] + [LINE_SETUPS[7], LINE_SETUPS[10], ALL_SETUPS[-2]])
def test_node_budget_is_deterministic(setup: tuple[str, int, dict[str, Any]]) -> None:
    rules = _rules(setup)
    for _, v in _positions(rules, 11)[:12]:
        if len(v.legal_moves) < 2:
            continue
        a = get("expert").choose(v, random.Random(5), Budget(nodes=300))
        b = get("expert").choose(v, random.Random(5), Budget(nodes=300))
        assert a == b


def test_deadline_is_respected() -> None:
    """With a deadline (and no node budget) the bot answers: its search stops at the deadline. (A ceiling,
    not a timing: how soon after the deadline it answers is measured by bench/timings.py.)"""
    rules = domino.Rules.preset("block", players=4, teams="partners_opposite", hand_size=7)
    positions = [v for _, v in _positions(rules, 2) if len(v.legal_moves) > 1][:6]
    for v in positions:
        soon = Budget(deadline=time.monotonic() + 0.05)
        move = returns_within(30, lambda: get("expert").choose(v, random.Random(0), soon))
        assert move in v.legal_moves
    # a deadline already past still gives a legal move
    v = positions[0]
    assert get("club").choose(v, random.Random(0), Budget(deadline=time.monotonic() - 1)) in v.legal_moves


def test_endgame_solver_sees_a_forced_win() -> None:
    """Block, 2 players, all hands known: the solver's value of a won position is positive."""
    rules = domino.Rules.preset("block", players=2)
    state = domino.testing.position(
        rules, layout="[6-6]", hands=["6-1 1-1", "5-0 4-0"], to_move=0, rest="boneyard"
    )  # seat 0 plays 6-1, then 1-1 and goes out; seat 1 is stuck
    v = domino.view(state, 0)
    know = infer(v)
    sim = root_sim(v, rules, know.tables)
    hands, _ = Sampler(know).sample(random.Random(0))
    for s, m in hands.items():
        sim.hands[s] = m
    value, _ = solve(sim, 0, 10_000)
    assert value > 0


def test_bots_are_listed() -> None:
    ids = domino.bots.ids()
    for level in ("random", "greedy", "club", "expert"):
        assert level in ids
    for entry in domino.bots.catalog():
        assert entry["description"] and entry["strength"]


def test_play_model_weights_deals_by_the_plays_seen() -> None:
    """Block game: a sampled deal in which a seat skipped a heavier playable tile weighs less."""
    from domino.bots.search import _weight, play_model

    rules = domino.Rules.preset("block", players=2)
    assert play_model(domino.view(domino.new_game(domino.Rules.preset("draw"), seed="m"), 0), infer(
        domino.view(domino.new_game(domino.Rules.preset("draw"), seed="m"), 0)).tables, 1.0) is None
    for seed in range(30):
        for state, v in _positions(rules, seed):
            tb = infer(v).tables
            model = play_model(v, tb, 1.0)
            assert model is not None
            if not model:
                continue
            ex = [2.718281828 ** p for p in tb.pips]
            true = {s: sum(1 << tb.index_of[t] for t in state.hands[s]) for s in range(2) if s != v.seat}
            w = _weight(model, true, ex)
            assert 0.0 < w <= 1.0
            return
    pytest.fail("no position with a modelled play")

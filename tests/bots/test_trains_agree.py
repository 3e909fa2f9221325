"""The Mexican Train kernel (``domino.core.trains.TrainSim``) against the engine: the same random rounds
played through both, move by move, with the legal moves, the table and the result compared at every step."""

from __future__ import annotations

import random
from typing import Any

import pytest

import domino
from domino.core.trains import to_code, to_move
from domino.testing import train_sim

SETUPS: list[tuple[int, dict[str, Any]]] = [
    (4, {}),
    (2, {}),
    (3, {"first_turn_double": "immediate", "drawn_tile_play": "may"}),
    (5, {"may_draw_when_playable": True, "mexican_train": False}),
    (4, {"engine_setup": "set_aside", "boneyard_reserve": 4, "double_blank_value": 50}),
]


def _same_table(state: domino.State, sim: Any) -> None:
    expected = train_sim(state)
    assert sim.bone[sim.bpos :] == expected.bone
    for field in ("hands", "ends", "markers", "pending", "first", "phase", "drawn", "turn"):
        assert getattr(sim, field) == getattr(expected, field), field


def _play_round(rules: domino.Rules, seed: str, rng: random.Random, bias: float = 0.8) -> str:
    """One round through both, a random move at each step (a play with probability ``bias`` when there is
    one): the round's end (``domino`` or ``blocked``)."""
    state = domino.new_game(rules, seed=seed)
    sim = train_sim(state)
    n = rules.players
    while state.round == 1 and not state.finished:
        legal = domino.legal_moves(state)
        assert sorted(sim.legal()) == sorted(to_code(m, n) for m in legal)
        # Plays first more often than not, so that rounds reach their late stages (doubles, blocks).
        plays = [m for m in legal if isinstance(m, domino.Play)]
        move = rng.choice(plays if plays and rng.random() < 0.8 else list(legal))
        assert to_move(to_code(move, n), sim.tb, n) == move
        state = domino.apply(state, move)
        sim.apply(to_code(move, n))
        if state.round == 1 and not state.finished:
            assert not sim.over
            _same_table(state, sim)
    result = state.rounds[0]
    assert sim.over
    assert sim.went_out == (result.winner if result.end == "domino" else -1)
    assert tuple(sim.penalties()) == result.points
    return result.end


@pytest.mark.parametrize("players, overrides", SETUPS)
def test_the_kernel_plays_mexican_train_as_the_engine_does(players: int, overrides: dict[str, Any]) -> None:
    rules = domino.Rules.preset("mexican_train", players=players, **overrides)
    rng = random.Random(f"agree-{players}-{sorted(overrides.items())}")
    for k in range(12):
        _play_round(rules, f"trains-agree-{k}", rng)


def test_both_endings_are_compared() -> None:
    """Rounds that go out and rounds that block, through both (random play that often declines to play
    where it may draw blocks about one round in four)."""
    rules = domino.Rules.preset("mexican_train", players=4, may_draw_when_playable=True)
    rng = random.Random(7)
    endings = {_play_round(rules, f"ends-{k}", rng, bias=0.0) for k in range(40)}
    assert endings == {"domino", "blocked"}

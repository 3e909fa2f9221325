"""A State played on the kernel (hands, board and log kept compact until read) is the same value, and plays
the same, as the state decoded from its document (every field given, the kernel rebuilt from them)."""

from __future__ import annotations

import pickle
import random
import threading
from dataclasses import FrozenInstanceError

import pytest

import domino
from domino.state import evolve

SETUPS = [
    ("block", 2, {}),
    ("block", 4, {"teams": "partners_opposite"}),
    ("draw", 3, {}),
    ("all_fives", 2, {"target_check": "immediate"}),
    ("all_fives", 3, {"opener_extra_play": True}),
]


@pytest.mark.parametrize("setup", SETUPS, ids=lambda s: f"{s[0]}{s[1]}")
def test_kernel_states_equal_their_decoded_copies(setup: tuple[str, int, dict[str, object]]) -> None:
    name, players, options = setup
    rules = domino.Rules.preset(name, players=players, **options)  # type: ignore[arg-type]
    for g in range(4):
        rng = random.Random(g)
        state = domino.new_game(rules, seed=f"kernel-{g}")
        while state.outcome is None:
            legal = domino.legal_moves(state)
            copy = domino.from_dict(domino.to_dict(state))
            assert copy == state and hash(copy) == hash(state)
            assert domino.legal_moves(copy) == legal
            for move in legal[:3]:  # the same state played several ways: it is never changed by a step
                after, events = domino.step(state, move)
                again, events_again = domino.step(copy, move)
                assert after == again and events == events_again
                assert domino.to_live(after) == domino.to_live(again)
            state = domino.apply(state, legal[rng.randrange(len(legal))])
        assert pickle.loads(pickle.dumps(state)) == state


def test_states_are_immutable_and_evolve_keeps_the_rest() -> None:
    state = domino.new_game(domino.Rules.preset("block", players=2), seed="frozen")
    state = domino.apply(state, domino.legal_moves(state)[0])
    with pytest.raises(FrozenInstanceError):
        state.turn = 1  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del state.hands  # type: ignore[misc]
    changed = evolve(state, drawn=1)
    assert changed.drawn == 1 and changed.hands == state.hands and changed.board == state.board
    assert changed.log == state.log and changed != state
    with pytest.raises(TypeError):
        evolve(state, no_such_field=1)


def test_a_state_stepped_from_stays_the_same_and_steps_alike_again() -> None:
    """The first step from a state takes its kernel to play on; the state keeps its value, and later
    steps from it (in this thread or others at once) rebuild the kernel and agree."""
    rules = domino.Rules.preset("block", players=4, teams="partners_opposite")
    rng = random.Random(7)
    state = domino.new_game(rules, seed="handed-on")
    while state.outcome is None:
        decoded = domino.from_dict(domino.to_dict(state))
        legal = domino.legal_moves(state)
        move = legal[rng.randrange(len(legal))]
        first = domino.apply(state, move)
        assert state == decoded and domino.to_live(state) == domino.to_live(decoded)
        assert domino.legal_moves(state) == legal
        results: list[domino.State] = []
        threads = [threading.Thread(target=lambda: results.append(domino.apply(state, move))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == [first] * 4 and state == decoded
        state = first

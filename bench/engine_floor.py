"""The floor of an immutable public API on the line kernel, for ``bench/engine_speed.py``.

What ``legal_moves`` + ``apply`` cannot cost less than while states stay immutable values: each move checks
the move is one of the listed ones, plays it on the kernel's ``LineSim`` handed on from the state before,
and wraps it in a new 8-slot state with its next legal moves from the same cache ``domino.legal_moves``
uses. No scoring, no round records, no match: a round ends the "match", and the next one starts with
``domino.new_game`` (the seeded deal included). The real API does all of that too, so its rounds/s are
bounded by this one's, in the same bench loop, on the same machine.
"""

from __future__ import annotations

import random
from typing import Any

import domino
from domino.core.codes import PASS_CODE, to_code
from domino.moves import Move
from domino.variants import line_kernel


class Bare:
    """A state of the floor: the kernel position in a box (taken by the step from it), its listed moves
    and what the bench loop reads."""

    __slots__ = ("box", "legal", "origin", "outcome", "rounds", "turn", "trail")
    box: list[Any]  # the LineSim, until a step takes it
    legal: tuple[Move, ...]
    origin: Any  # line_kernel.Origin: the tables and the listed-moves cache
    outcome: bool | None
    rounds: tuple[int, ...]  # who went out of each finished round (-1: blocked)
    turn: int
    trail: Any  # (earlier trail, move code): the moves made, as the real API keeps them


# id of a listed move (the kernel's shared objects) -> its move code, as ``line_kernel.take`` finds it
_CODE: dict[int, int] = {}


def _code_table(origin: Any) -> None:
    if not _CODE:
        _CODE.update({id(m): to_code(m) for m in origin.moves})


def _start(rules: domino.Rules, seed: str, deal_version: int) -> Bare:
    state = domino.new_game(rules, seed=seed, deal_version=deal_version)
    pos = line_kernel.position(state)
    sim = pos.box.pop()
    s = Bare()
    s.box, s.origin, s.outcome, s.rounds, s.turn, s.trail = [sim], pos.origin, None, (), sim.turn, None
    _code_table(pos.origin)
    s.legal = line_kernel.listed(sim, pos.origin)
    return s


def _apply(s: Bare, move: Move) -> Bare:
    if s.outcome is not None:
        raise domino.GameOverError("the game is over")
    for m in s.legal:
        if m is move:
            break
    else:
        raise domino.IllegalMoveError("not a listed move", s.legal)
    code = _CODE[id(move)]
    sim = s.box.pop()
    if code >= 0:
        sim.play_plain(code >> 3, code & 7)
    elif code == PASS_CODE:
        sim.pass_()
    n = Bare.__new__(Bare)
    n.box, n.origin, n.turn, n.trail = [sim], s.origin, sim.turn, (s.trail, code)
    n.legal = line_kernel.listed(sim, s.origin)
    if sim.over:
        n.outcome, n.rounds = True, s.rounds + (sim.went_out,)
    else:
        n.outcome, n.rounds = None, s.rounds
    return n


def run(rules: domino.Rules, i: int, games: int, deal_version: int = domino.DEAL_VERSION) -> tuple[int, int]:
    """``games`` rounds in ``bench/engine_speed.py``'s public loop, on the floor: (rounds, moves)."""
    rng = random.Random(i)
    moves = played = m = 0
    while played < games:
        state = _start(rules, f"bench-public-{i}-{m}", deal_version)
        m += 1
        while state.outcome is None and played < games:
            legal = state.legal
            before = len(state.rounds)
            state = _apply(state, rng.choice(legal))
            moves += 1
            played += len(state.rounds) - before
    return played, moves

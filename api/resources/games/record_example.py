"""The documented example of a game's record: a short real game (Block with a double-three set, dealt by version 2),
built by the engine, so that its JSON and its text agree and replay."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import domino
from domino.notation import Act, act_of, build

_RULES = domino.Rules.preset("block", players=2, set_max_pips=3, hand_size=2, target_score=3)
_SEED = "ex5"


def _acts() -> list[Act]:
    """Each seat plays its last legal move; Ana's first move was made by the server (her time ran out)."""
    state = domino.new_game(_RULES, seed=_SEED, deal_version=2)
    acts = [Act(0, "created")]
    while not state.finished:
        seat, version = state.turn, len(acts)
        state, events = domino.step(state, domino.legal_moves(state)[-1])
        act = act_of(version, events[0].to_dict(for_seat=seat))
        acts.append(replace(act, auto=version == 2))
    return acts


def _record() -> dict[str, Any]:
    acts = _acts()
    given = {
        "id": "h4k2mzq7c3x9b2rt", "variant": "block", "version": acts[-1].version,
        "seats": [{"seat": 0, "name": "Ana", "kind": "human"}, {"seat": 1, "name": "greedy", "kind": "bot"}],
        "rules": _RULES.to_dict(),
        "seed_commitment": "5be1f6e2a0b7f5c8d3e4a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0", "client_seeded": True,
        "seed": _SEED, "salt": "a1b2c3d4e5f60718293a4b5c6d7e8f90", "created_at": 1764951661.5, "deal_version": 2,
    }  # fmt: skip
    return build(given, acts)[0]


RECORD_EXAMPLE = _record()
TEXT_EXAMPLE = domino.notation.write_text(RECORD_EXAMPLE)

"""Golden playthroughs: one fixed-seed match per preset played by the ``greedy`` bot, recorded as text.
The files without a suffix pin deal version 1 (every game made before version 2 must replay as it was
played); ``_v2`` files pin version 2, what new games deal by.

Any rules change shows up as a diff of tests/engine/golden/<name>.txt. To rewrite the files after an
intended change: ``DOMINO_UPDATE_GOLDEN=1 python3 -m pytest tests/engine/test_golden.py``.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

import domino
import oracles
from domino import bots

GOLDEN = Path(__file__).parent / "golden"
MAX_STEPS = 20000

LOT_TEAMS = {"teams": "partners_opposite", "hand_size": 7, "starting_rule": "lot"}
# name -> (preset, players, rule options, deal version)
GAMES: dict[str, tuple[str, int, dict[str, Any], int]] = {
    "draw_2p": ("draw", 2, {}, 1),
    "draw_family_3p": ("draw_family", 3, {}, 1),
    "block_2p": ("block", 2, {}, 1),
    "block_4p_teams": ("block", 4, LOT_TEAMS, 1),
    "all_fives_2p": ("all_fives", 2, {}, 1),
    "all_fives_4p_teams": ("all_fives", 4, {"teams": "partners_opposite"}, 1),
    "draw_2p_v2": ("draw", 2, {}, 2),
    "block_4p_teams_v2": ("block", 4, LOT_TEAMS, 2),
    "block_2p_reshuffle_v2": ("block", 2, {"hand_size": 2, "no_double_fallback": "reshuffle"}, 2),
}


def _event_line(e: domino.Event) -> str:
    d = e.data
    if e.type == "round_started":
        return f"round {d['round']}: opener seat {d['opener']}, lead {(e.private or {}).get('lead', 'any')}"
    if e.type == "tile_played":
        pts = f" (+{d['points']})" if d["points"] else ""
        return f"  seat {e.seat}: play {d['tile']}{' ' + d['end'] if d['end'] else ''}{pts}"
    if e.type == "tile_drawn":
        assert e.private is not None
        return f"  seat {e.seat}: draw {e.private['tile']} ({d['boneyard_count']} left)"
    if e.type == "passed":
        return f"  seat {e.seat}: pass"
    if e.type == "round_ended":
        return (
            f"round {d['round']} ended: {d['end']}, winner {d['winner']}"
            + (f", team {d['team']}" if "team" in d else "")
            + f"; pips {d['pips_left']}; hands {' / '.join(' '.join(h) or '-' for h in d['hands'])}"
            + f"; points {d['points']} (award {d['award']}): {d['why']}"
        )
    if e.type == "game_ended":
        return f"game over: {d['reason']}, winners {d['winners']}, team {d['team']}; final scores {d['scores']}"
    raise AssertionError(f"unexpected event {e.type}")


def transcript(name: str) -> str:
    preset, players, options, deal_version = GAMES[name]
    rules = domino.Rules.preset(preset, players=players, **options)
    seed = f"golden-{name}"
    state = domino.new_game(rules, seed=seed, deal_version=deal_version)
    greedy = bots.get("greedy")
    rng = random.Random(seed)  # one generator for every seat: the bot must not depend on who it plays
    lines = [
        f"# {name}: greedy bot self-play, seed {seed!r}",
        f"# rules {json.dumps(rules.to_dict(), sort_keys=True)}",
        f"# round 1 deal: {' / '.join(' '.join(map(str, h)) for h in state.deal.hands)}",
    ]
    lines += [_event_line(e) for e in domino.opening_events(state)]
    for _ in range(MAX_STEPS):
        if state.outcome is not None:
            break
        move = greedy.choose(domino.view(state, state.turn), rng, bots.Budget(nodes=1))
        state, events = domino.step(state, move, seat=state.turn)
        for e in events:
            lines.append(_event_line(e))
            if e.type == "round_ended" and state.outcome is None:
                lines.append(f"scores {list(state.scores)}")
    assert state.outcome is not None, "the match did not finish"
    assert sum(1 for line in lines if line.startswith("game over")) == 1
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", list(GAMES))
def test_golden_playthrough(name: str) -> None:
    text = transcript(name)
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("DOMINO_UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"{path} is missing: run with DOMINO_UPDATE_GOLDEN=1"
    assert text == path.read_text(), f"{name} differs from its golden transcript"


def test_golden_transcripts_are_reproducible() -> None:
    assert transcript("block_2p") == transcript("block_2p")


# -- determinism and replay ------------------------------------------------------------------------


@pytest.mark.parametrize("preset, players, options", [
    ("draw", 2, {}), ("draw_family", 4, {"teams": "partners_opposite"}), ("block", 3, {"no_double_fallback": "reshuffle"}),
    ("all_fives", 3, {"starting_rule": "lot"}), ("all_fives", 4, {"teams": "partners_opposite"}),
])
def test_same_rules_seed_and_moves_give_the_same_state(preset: str, players: int, options: dict[str, Any]) -> None:
    rules = domino.Rules.preset(preset, players=players, target_score=80, **options)
    rng = random.Random(7)
    state = domino.new_game(rules, seed="determinism")
    moves: list[domino.Move] = []
    snapshots = []
    while state.outcome is None and len(moves) < 3000:
        move = rng.choice(domino.legal_moves(state))
        moves.append(move)
        state = domino.apply(state, move)
        snapshots.append(domino.to_dict(state))
    assert state.outcome is not None
    # Replaying the move log (through its JSON form) reproduces every state exactly.
    replay = domino.new_game(rules, seed="determinism")
    for move, snap in zip(moves, snapshots):
        replay = domino.apply(replay, domino.parse_move(json.loads(json.dumps(move.to_dict()))))
        assert domino.to_dict(replay) == snap
    assert replay == state
    # A different seed deals differently.
    assert domino.new_game(rules, seed="other").deal != domino.new_game(rules, seed="determinism").deal


@pytest.mark.parametrize("seed", ["pinned", "k3v9", "12345"])
@pytest.mark.parametrize("deal_version", [1, 2])
def test_seeded_deal_follows_the_documented_shuffle(seed: str, deal_version: int) -> None:
    state = domino.new_game(domino.Rules.preset("draw"), seed=seed, deal_version=deal_version)
    reference = oracles.deal_v1 if deal_version == 1 else oracles.deal_v2
    hands, boneyard = reference(seed, 6, 2, 7)
    assert [sorted(str(t) for t in h) for h in state.deal.hands] == [sorted(h) for h in hands]
    assert [str(t) for t in state.deal.boneyard] == boneyard

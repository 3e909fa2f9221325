"""The cost model that sizes a simulation's chunks (about ``simulation_chunk_seconds`` of work each).

A game (a whole match) costs its moves times the cost of one move. Its moves are its rounds times the moves
of a round. For a line game both are measured on a short sample, a short match of greedy play in the fast
core (a few rounds, or a target of 50; about a millisecond), scaled up to the real ``target_score`` or
``rounds``: the scoring, the set size, the hand size and the players all show in it. Mexican Train (no fast core) is estimated from its set: about 1.5 moves per tile a round. A
move costs the engine's step, plus each search seat's node budget (its think) on its turns.

Only chunk sizes depend on these figures, never the results. Seconds per move and per node are measured on
a laptop core and rounded up: an overestimate only makes chunks shorter.
"""

from __future__ import annotations

import dataclasses

import domino
from api.config import Settings

SECONDS_PER_MOVE = {"playout": 10e-6, "engine": 250e-6}
SECONDS_PER_SEARCH_NODE = 5e-6
SAMPLE_ROUNDS = 4
SAMPLE_TARGET = 50
SAMPLE_SEEDS = ("cost-1", "cost-2")
MEXICAN_MOVES_PER_TILE = 1.5


@dataclasses.dataclass(frozen=True)
class MatchShape:
    rounds: float  # per game
    moves_per_round: float


def match_shape(rules: domino.Rules) -> MatchShape:
    """How long a match of these rules is, in rounds and moves (measured for line games, else estimated)."""
    if not rules.is_line:
        n = rules.set_max_pips
        tiles = (n + 1) * (n + 2) // 2
        rounds = rules.rounds or max(1.0, (rules.target_score or 0) / (n * rules.players))
        return MatchShape(float(rounds), MEXICAN_MOVES_PER_TILE * tiles)
    # The sample: the same rules with a short match (a few rounds, or a low target), scaled up to the real one.
    fixed = rules.rounds is not None
    target = rules.target_score or 0
    short = {"rounds": min(rules.rounds or 0, SAMPLE_ROUNDS)} if fixed else {"target_score": min(target, SAMPLE_TARGET)}
    sample = domino.Rules.from_dict({**rules.to_dict(), **short})
    moves = rounds_played = lead = 0
    for seed in SAMPLE_SEEDS:
        res = domino.playout(sample, ["greedy"] * rules.players, seed)
        moves += res.moves
        rounds_played += len(res.rounds)
        lead += max(res.scores)
    per_round = moves / max(1, rounds_played)
    if fixed:
        return MatchShape(float(rules.rounds or 0), per_round)
    # The leader's points per round (the sample's last round overshoots its target) to the real target.
    return MatchShape(max(1.0, target * rounds_played / max(1, lead)), per_round)


def seconds_per_game(rules: domino.Rules, native: bool, search_nodes: list[int]) -> float:
    """One game's estimated cost: the fast core (``native``) or the engine, plus the node budget of each
    search seat (``search_nodes``: one entry per search seat) on its share of the moves."""
    shape = match_shape(rules)
    per_move = SECONDS_PER_MOVE["playout" if native else "engine"] + sum(search_nodes) / rules.players * SECONDS_PER_SEARCH_NODE
    return shape.rounds * shape.moves_per_round * per_move


def chunk_deals(settings: Settings, deals: int, rotations: int, per_game: float) -> int:
    """Deals per chunk: about ``simulation_chunk_seconds`` of work, bigger past ``simulation_max_chunks``."""
    per_chunk = max(1, int(settings.simulation_chunk_seconds / (per_game * rotations)))
    if -(-deals // per_chunk) > settings.simulation_max_chunks:
        per_chunk = -(-deals // settings.simulation_max_chunks)
    return min(per_chunk, deals)

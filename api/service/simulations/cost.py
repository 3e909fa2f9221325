"""The cost model that sizes a simulation's chunks (about ``simulation_chunk_seconds`` of work each).

A game (a whole match) costs its rounds times the cost of one round: dealing it (a fixed part, and a part
per tile of the set: the whole set is shuffled whatever the hand size), and its moves times the cost of one
move. The rounds and the moves of a round are measured for a line game on a short sample, a short match of
greedy play in the fast core (a few rounds, or a target of 50; about a millisecond), scaled up to the real
``target_score`` or ``rounds``: the scoring, the set size, the hand size and the players all show in it.
Mexican Train (no fast core) is estimated from its set: about 1.5 moves per tile a round. A move costs the
engine's step, plus each search seat's node budget (its think) on its turns.

Only chunk sizes (and the refusal of a game that would hold a worker too long) depend on these figures,
never the results. They were fitted on this project's 2-core machine and doubled (``bench/simulation_cost.py``
prints measured over estimated for a grid of rule sets): an overestimate only makes chunks shorter. A chunk that runs far over its estimate anyway stops (``Settings.simulation_overrun``,
:mod:`api.service.simulations.runner`).
"""

from __future__ import annotations

import dataclasses

import domino
from api.config import Settings

# CPU seconds, about twice what bench/simulation_cost.py fitted on this project's machine (fast core: 13 us a
# round, 0.1 us a tile of the set, 1.4 us a move; engine: about 35 us a move, 100-160 us to deal a round).
SECONDS_PER_MOVE = {"playout": 3e-6, "engine": 250e-6}
# Dealing a round: a fixed part and a part per tile of the set (a round of hand size 1 in a double-18 set is
# one move, but 190 tiles shuffled and dealt: issue 32 measured 20 times its moves' cost).
SECONDS_PER_ROUND = {"playout": 30e-6, "engine": 300e-6}
SECONDS_PER_ROUND_TILE = {"playout": 0.3e-6, "engine": 1e-6}
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
    moves = rounds_played = points = 0
    for seed in SAMPLE_SEEDS:
        res = domino.playout(sample, ["greedy"] * rules.players, seed)
        moves += res.moves
        rounds_played += len(res.rounds)
        points += sum(res.scores)
    per_round = moves / max(1, rounds_played)
    if fixed:
        return MatchShape(float(rules.rounds or 0), per_round)
    # An average side's points per round to the real target. Not the sample leader's: a short match's leader
    # is its luckiest player, whose pace overstates a long match's (and so understated its rounds).
    sides = 2 if rules.has_teams else rules.players  # with teams, each seat shows its team's
    return MatchShape(max(1.0, target * rounds_played * sides / max(1, points)), per_round)


def seconds_per_game(rules: domino.Rules, native: bool, search_nodes: list[int]) -> float:
    """One game's estimated cost: the fast core (``native``) or the engine, plus the node budget of each
    search seat (``search_nodes``: one entry per search seat) on its share of the moves."""
    shape = match_shape(rules)
    engine = "playout" if native else "engine"
    per_move = SECONDS_PER_MOVE[engine] + sum(search_nodes) / rules.players * SECONDS_PER_SEARCH_NODE
    tiles = (rules.set_max_pips + 1) * (rules.set_max_pips + 2) // 2
    per_round = SECONDS_PER_ROUND[engine] + tiles * SECONDS_PER_ROUND_TILE[engine]
    return shape.rounds * (per_round + shape.moves_per_round * per_move)


def chunk_deals(settings: Settings, deals: int, rotations: int, per_game: float) -> int:
    """Deals per chunk: about ``simulation_chunk_seconds`` of work, bigger past ``simulation_max_chunks``."""
    per_chunk = max(1, int(settings.simulation_chunk_seconds / (per_game * rotations)))
    if -(-deals // per_chunk) > settings.simulation_max_chunks:
        per_chunk = -(-deals // settings.simulation_max_chunks)
    return min(per_chunk, deals)

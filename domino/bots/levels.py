"""The search levels listed by ``GET /v1/bots``, with their measured strength (bench/bot_strength.py).

Both levels think within the caller's ``Budget`` (a deadline per seat in live play, a node count in
simulations); without one they use their own default time.
"""

from __future__ import annotations

from domino.bots.search import SearchBot
from domino.bots.train_search import TrainSearch

CLUB = SearchBot(
    id="club",
    description="Determinized Monte Carlo search: samples the hidden tiles from everything it has seen "
    "(passes and draws included) and plays each move out on every sample with a fast heuristic; "
    "30 ms a move by default. Mexican Train: a train planner.",
    strength=("vs greedy, duplicate deals, node budget ~30 ms (bench/bot_strength.py): 4p team block 72% "
    "(95% CI 64-79), 2p block 62% (54-71), 2p draw 67% (58-75), 4p All Fives teams 77% (68-83); "
    "Mexican Train (the planner) 4p lowest total 56% (51-61, n=400)"),
    default_ms=30.0,
    eps=0.1,
    win_bonus=30.0,
    bench_nodes=12000,
)
EXPERT = SearchBot(
    id="expert",
    description="Club's search with 100 ms a move by default and, in the block game, sampled deals weighted "
    "by how likely the other seats' plays were under a heavier-tile-first model whose strength it fits to "
    "the plays it has seen. Mexican Train: the same kind of search over the trains, sampling the hidden hands "
    "from who passed and who drew when which trains were open.",
    strength=("vs greedy, duplicate deals, node budget ~100 ms (bench/bot_strength.py): 4p team block 76% "
    "(95% CI 70-82), 2p block 64% (60-66, n=1000), 2p draw 69% (63-75), 4p All Fives teams 79% (72-85), "
    "Mexican Train 4p lowest total 62% (56-67, n=300); vs club: team block 50% (42-59), 2p block 56% (48-63), "
    "Mexican Train 25% (21-30, n=400; one seat against three, 25% is equal strength); vs abw333's "
    "probabilistic alpha-beta (pab), 4p team block, 40,000 nodes a move each: 58% (95% CI 54-63, n=410); "
    "vs OpenSpiel's ISMCTSBot, 2p block, equal CPU a move: 59% (55-63, n=500); "
    "p95 96 ms a move at the default 100 ms"),
    default_ms=100.0,
    eps=0.1,
    win_bonus=30.0,
    model_betas=(0.0, 0.5, 1.0, 2.0),
    bench_nodes=40000,
    trains=TrainSearch(),
)
LEVELS = [CLUB, EXPERT]

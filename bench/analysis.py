"""Analysis of finished games (docs/analysis.md): how long one takes, and whether it ranks players by strength.

    python bench/analysis.py [--speed-games 3] [--rank-games 40] [--nodes 12000] [--skip-rank]

**Speed.** Matches played by the built-in bots (``expert`` at 2,000 nodes a move, against ``greedy``) are
analysed whole at ``--nodes`` per position (the service's default budget), one process, as one worker runs
one job: a 2-player draw match to 100 (target: at most 10 s) and a 4-player Mexican Train match, double-12,
13 rounds (target: at most 60 s). Printed per game: wall and CPU seconds (on a shared machine the wall time
is mostly waiting for a core: the CPU time is what one worker with a core of its own takes), moves with a
choice, and the longest single position in CPU seconds (the analysis writes its progress between positions,
so that bounds the gap between two progress updates: target at most 2 s). Medians over ``--speed-games``.

**Ranking.** 2-player draw games (3 fixed rounds) between ``random``, ``greedy`` and ``expert`` (at 10,000 nodes
a move), the three pairs in turn and seats swapped every other game, so that each player plays ``--rank-games``
games; analysed at ``--nodes``: each player's mean loss per move with a choice, with a 95% interval by
bootstrap over games (2,000 resamples), and the same for the differences random - greedy and greedy - expert.
A step is significant when its interval excludes 0. (A pilot of 3-player draw games, 2 rounds, the three in
every game: random - greedy +0.40, 95% CI -0.15 to +0.93 over 40 games: three players share a round's points,
so a move's loss is noisier; 2-player games and more rounds measure more moves per game.)
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import domino  # noqa: E402
from domino.analysis import analyse_position, positions  # noqa: E402
from domino.testing import bot_record  # noqa: E402

PLAYERS = ("random", "greedy", "expert")
SPEED = {
    "2p draw to 100": (domino.Rules.preset("draw", players=2, target_score=100), ["expert", "greedy"]),
    "4p Mexican Train (13 rounds)": (domino.Rules.preset("mexican_train", players=4), ["expert", "greedy", "expert", "greedy"]),
}
RANK_RULES = domino.Rules.preset("draw", players=2, match_end="fixed_rounds", rounds=3)
PAIRS = (("random", "greedy"), ("greedy", "expert"), ("expert", "random"))


def timed_analysis(record: dict[str, object], nodes: int) -> tuple[float, float, int, float, list[tuple[int, float]]]:
    """(wall s, CPU s, moves analysed, longest position in CPU s, [(seat, loss)])."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    longest = 0.0
    losses = []
    for p in positions(record):
        t = time.process_time()
        m = analyse_position(str(record["id"]), p, nodes)
        longest = max(longest, time.process_time() - t)
        losses.append((m.seat, m.loss))
    return time.perf_counter() - wall0, time.process_time() - cpu0, len(losses), longest, losses


def speed(games: int, nodes: int) -> None:
    for name, (rules, players) in SPEED.items():
        rows = []
        for g in range(games):
            record = bot_record(rules, f"bench-speed-{g}", players, nodes=2000, game_id=f"gspeed{g}")
            wall, cpu, n, longest, _ = timed_analysis(record, nodes)
            rows.append((wall, cpu, n, longest))
            print(f"  {name} game {g}: {wall:.1f} s wall, {cpu:.1f} s CPU, {n} moves, longest position {longest:.2f} s CPU",
                  flush=True)  # fmt: skip
        med = [statistics.median(r[k] for r in rows) for k in range(4)]
        print(f"{name}: median {med[0]:.1f} s wall, {med[1]:.1f} s CPU, {med[2]:.0f} moves, "
              f"longest position {max(r[3] for r in rows):.2f} s CPU (n={games})", flush=True)  # fmt: skip


def _bootstrap(per_game: list[dict[str, list[float]]], stat, rng: random.Random) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    vals = sorted(stat([rng.choice(per_game) for _ in per_game]) for _ in range(2000))
    return vals[50], vals[1949]


def _mean(games: list[dict[str, list[float]]], who: str) -> float:
    xs = [x for g in games for x in g[who]]
    return sum(xs) / max(1, len(xs))  # over moves: a game without the player adds none


def rank(games: int, nodes: int) -> None:
    per_game: list[dict[str, list[float]]] = []
    for g in range(games * 3 // 2):  # each player sits in two games of three
        pair = PAIRS[g % 3]
        seats = list(pair if g % 2 == 0 else pair[::-1])
        record = bot_record(RANK_RULES, f"bench-rank-{g}", seats, nodes=10000, game_id=f"grank{g}")
        *_, losses = timed_analysis(record, nodes)
        per_game.append({who: [loss for seat, loss in losses if seats[seat] == who] for who in PLAYERS})
        if (g + 1) % 10 == 0:
            print(f"  {g + 1} games: " + ", ".join(f"{w} {_mean(per_game, w):.2f}" for w in PLAYERS), flush=True)
    rng = random.Random(1)
    for who in PLAYERS:
        lo, hi = _bootstrap(per_game, lambda s, w=who: _mean(s, w), rng)
        n = sum(len(g[who]) for g in per_game)
        print(f"{who}: mean loss {_mean(per_game, who):.3f} points a move (95% CI {lo:.3f}-{hi:.3f}, {n} moves)")
    for a, b in (("random", "greedy"), ("greedy", "expert")):
        d = _mean(per_game, a) - _mean(per_game, b)
        lo, hi = _bootstrap(per_game, lambda s, a=a, b=b: _mean(s, a) - _mean(s, b), rng)
        print(f"{a} - {b}: {d:+.3f} (95% CI {lo:+.3f} to {hi:+.3f}) {'significant' if lo > 0 else 'NOT significant'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--speed-games", type=int, default=3)
    parser.add_argument("--rank-games", type=int, default=40)
    parser.add_argument("--nodes", type=int, default=12000)
    parser.add_argument("--skip-rank", action="store_true")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}", flush=True)
    speed(args.speed_games, args.nodes)
    if not args.skip_rank:
        rank(args.rank_games, args.nodes)
    print(f"load average at end: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()

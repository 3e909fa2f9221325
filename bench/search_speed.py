"""Search bots' nodes per second (simulator moves, as their node budgets count them) on fixed positions.

    python bench/search_speed.py [--runs 3] [--nodes 20000]

For each scenario, positions are taken from seeded games played by the greedy bot (every 3rd move of the
first round where the seat has a choice); each bot chooses a move in each with ``Budget(nodes=N)``, so the
work is fixed and the time is what is measured. Printed: nodes/s, the median over ``--runs`` runs with
[min, max].
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import domino  # noqa: E402
from domino.bots import Budget, get  # noqa: E402

SCENARIOS = {
    "2p block": domino.Rules.preset("block", players=2),
    "4p team block": domino.Rules.preset("block", players=4, teams="partners_opposite", hand_size=7),
    "2p draw": domino.Rules.preset("draw", players=2),
    "4p all_fives": domino.Rules.preset("all_fives", players=4),
}


def positions(rules: domino.Rules, games: int) -> list[Any]:
    """Views of the seat to move, where it has more than one legal move."""
    greedy = get("greedy")
    out = []
    for g in range(games):
        state = domino.new_game(rules, seed=f"search-speed-{g}")
        rng = random.Random(g)
        k = 0
        while state.outcome is None and state.round == 1:
            view = domino.view(state, state.turn)
            if len(view.legal_moves) > 1:
                k += 1
                if k % 3 == 0:
                    out.append(view)
            state = domino.apply(state, greedy.choose(view, rng, Budget()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--games", type=int, default=3)
    args = ap.parse_args()
    print(f"{args.runs} runs; nodes/s: median [min–max] over the runs; {args.nodes} nodes a move\n")
    for name, rules in SCENARIOS.items():
        views = positions(rules, args.games)
        for bot_id in ("club", "expert"):
            bot = get(bot_id)
            rates = []
            for run in range(args.runs):
                rng = random.Random(run)
                t0 = time.perf_counter()
                for v in views:
                    bot.choose(v, rng, Budget(nodes=args.nodes))
                rates.append(len(views) * args.nodes / (time.perf_counter() - t0))
            print(
                f"{name:<15}{bot_id:<8}{len(views):>4} positions  {statistics.median(rates):>10,.0f} "
                f"[{min(rates):,.0f}–{max(rates):,.0f}] nodes/s"
            )


if __name__ == "__main__":
    main()

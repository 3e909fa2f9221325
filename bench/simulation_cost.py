"""Simulation cost model (issue 32, item 6): measured CPU over estimated cost, one game at a time, over a grid
of rule sets, and the issue's extreme case (`block`, double-18, hand size 1, target 100,000).

    nice python bench/simulation_cost.py [--games 2] [--quick]

For each rule set the spec is made as ``POST /v1/simulations`` makes it (``make_spec``: the same strategies,
the same fast core or engine), then ``--games`` games are played as a chunk plays them
(``api.service.simulations.play.play_game``) and timed with the CPU clock (``time.process_time``, which the
other load of a shared machine disturbs much less than the wall clock). The ratio is measured / estimated
per game: at most 1 means the estimate is on the safe side (chunks shorter than planned); the guard
(``DOMINO_SIMULATION_OVERRUN``, 2) stops a chunk above 2. Rule sets the API refuses (one game estimated over
``simulation_max_game_seconds``) are counted as refused, not played.

The grid: line variants `draw`, `block`, `all_fives` with 2 and 4 players, sets double-6 to double-18, the
default hand or one tile, matches to the preset's target, to 500 or 3 fixed rounds, greedy against random
(fast core); a sample of the same with `club` (search, engine path); Mexican Train double-9 and -12.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from api.config import Settings  # noqa: E402
from api.errors import InvalidRequest  # noqa: E402
from api.service.simulations.play import play_game  # noqa: E402
from api.service.simulations.spec import make_spec  # noqa: E402
import domino  # noqa: E402


def grid(quick: bool) -> list[tuple[str, list[str], dict[str, Any]]]:
    cases: list[tuple[str, list[str], dict[str, Any]]] = []
    sets = (6, 12, 18) if quick else (6, 9, 12, 15, 18)
    ends: list[dict[str, Any]] = [{}, {"target_score": 500}, {"match_end": "fixed_rounds", "rounds": 3}]
    for variant, players, pips, hand, end in itertools.product(("draw", "block", "all_fives"), (2, 4), sets, (None, 1), ends):
        rules: dict[str, Any] = {"set_max_pips": pips, **end}
        if hand:
            rules["hand_size"] = hand
        cases.append((variant, ["greedy", "random"] * (players // 2), rules))
    for variant, pips in itertools.product(("draw", "block"), (6, 12)):
        cases.append((variant, ["club", "greedy"], {"set_max_pips": pips, "match_end": "fixed_rounds", "rounds": 2}))
    for pips, hand in ((9, 8), (12, 12)):
        mexican = {"set_max_pips": pips, "hand_size": hand, "match_end": "fixed_rounds", "rounds": 2}
        cases.append(("mexican_train", ["greedy", "random", "greedy"], mexican))
    return cases


def measure(settings: Settings, variant: str, strategies: list[str], rules: dict[str, Any], games: int) -> tuple[float, float] | None:
    """(estimated, measured CPU) seconds per game, or None when the API refuses the rule set."""
    try:
        spec = make_spec(settings, variant, strategies, games, rules, seed="cost-bench")
    except InvalidRequest:
        return None
    resolved = domino.Rules.from_dict(spec.rules)
    cpu0 = time.process_time()
    for deal in range(games):
        play_game(spec, resolved, deal, 0)
    return spec.game_seconds, (time.process_time() - cpu0) / games


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2, choices=range(1, 21), metavar="1..20")
    parser.add_argument("--quick", action="store_true", help="a smaller grid")
    args = parser.parse_args()
    settings = Settings()
    started = time.monotonic()
    ratios: list[tuple[float, str]] = []
    refused = 0
    for variant, strategies, rules in grid(args.quick):
        try:
            got = measure(settings, variant, strategies, rules, args.games)
        except domino.errors.DominoError:  # a combination the variant does not allow (e.g. a hand too big)
            continue
        if got is None:
            refused += 1
            continue
        estimated, measured = got
        ratios.append((measured / estimated, f"{variant} {'/'.join(strategies)} {rules} est {estimated:.4f} s got {measured:.4f} s"))
    ratios.sort()
    values = [r for r, _ in ratios]
    print(f"{len(ratios)} rule sets played ({args.games} games each), {refused} refused; CPU seconds measured / estimated:")
    print(f"  min {values[0]:.2f}  median {statistics.median(values):.2f}  p90 {values[int(0.9 * (len(values) - 1))]:.2f}  max {values[-1]:.2f}")
    print(f"  over 1: {sum(1 for v in values if v > 1)}   over 2 (the guard would stop it): {sum(1 for v in values if v > 2)}")
    for ratio, label in ratios[-3:]:
        print(f"  highest: {ratio:.2f}  {label}")
    extreme = measure(settings, "block", ["greedy", "greedy"], {"set_max_pips": 18, "hand_size": 1, "target_score": 100000}, 1)
    if extreme is None:
        print("issue 32's extreme case (block, double-18, hand 1, to 100,000): refused")
    else:
        est, got = extreme
        print(f"issue 32's extreme case (block, double-18, hand 1, to 100,000): estimated {est:.2f} s, measured {got:.2f} s CPU, ratio {got / est:.2f}")
    print(f"elapsed {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

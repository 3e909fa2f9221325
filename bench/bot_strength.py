"""Bot strength: duplicate matches between two bots, per variant (a benchmark, not a test).

Every deal (one round, as the anchors count a "game") is played once per rotation of the seats, so each
side plays each set of hands and the luck of the deal cancels. Printed per setup: the bot's win rate with
a 95% Wilson interval (a round the bot's side scores more than every other side; an exact tie counts as
half), the mean point margin (bot side minus the best other side) with its standard error, and the time
per bot move (median, p95, max; only moves with a choice).

    python bench/bot_strength.py                         # every setup, node budgets (deterministic)
    python bench/bot_strength.py --setup block2 --deals 200 --bot expert --opp greedy
    python bench/bot_strength.py --timed --deals 20      # wall-clock budgets: latency at the default 100 ms
    python bench/bot_strength.py --setup mexican4 --bot expert --opp club   # the train search vs the planner
    python bench/bot_strength.py --setup team_block --opp pab --abw333 PATH  # vs abw333's best (bench/abw333_pab.py)
    python bench/bot_strength.py --setup team_block --opp pab --pab-cache /tmp/pab.sqlite3  # pab's moves kept
    python bench/bot_strength.py --setup block2_lot --opp ismcts  # OpenSpiel's ISMCTSBot, equal CPU a move

pab's searches are most of a run against it; ``--pab-cache`` makes its move a function of its view (its random
numbers seeded from it) and keeps the moves in a file, so that another run on the same deals (a version of
our bot being compared with another) pays only for the positions it reaches that no run reached before.

In Mexican Train (``mexican4``: one bot seat against three, the lowest penalty wins the round) ``club``
plays with the train planner, as ``expert`` did before its train search: ``--opp club`` measures the new
``expert`` against the old one.

Node budgets (each search bot's ``bench_nodes``, calibrated to cost about its default time on the bench
machine) make the strength runs reproducible and independent of machine load; ``--timed`` gives each bot
its default time budget instead (deadline = now + default), which is what live play does: use it for
latency. A full default run takes about 15 minutes per setup group on one core; run it with ``nice``.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import domino  # noqa: E402
from domino.bots import Budget, get  # noqa: E402

SETUPS: dict[str, tuple[str, int, dict[str, Any]]] = {
    "team_block": ("block", 4, {"teams": "partners_opposite", "hand_size": 7}),
    "block2": ("block", 2, {}),
    "block2_lot": ("block", 2, {"starting_rule": "lot"}),  # OpenSpiel's game: the opener leads any tile
    "draw2": ("draw", 2, {}),
    "fives4": ("all_fives", 4, {"teams": "partners_opposite"}),
    "fives4_solo": ("all_fives", 4, {}),
    "mexican4": ("mexican_train", 4, {}),
}
DEFAULT_ORDER = ("team_block", "block2", "draw2", "fives4", "mexican4")


@dataclass
class Tally:
    wins: float = 0.0
    games: int = 0
    margins: list[float] = field(default_factory=list)
    times: list[float] = field(default_factory=list)


def wilson(p_hat: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    denom = 1 + z * z / n
    centre = (p_hat + z * z / (2 * n)) / denom
    half = z * math.sqrt(p_hat * (1 - p_hat) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def bot_seats(rules: domino.Rules, rotation: int) -> set[int]:
    """Seats of the bot under test in this rotation: one side (a team, or one seat)."""
    if rules.has_teams:
        return {rotation % 2, rotation % 2 + 2}
    return {rotation}


def rotations(rules: domino.Rules) -> int:
    return 2 if rules.has_teams else rules.players


def play_round(
    rules: domino.Rules, seed: str, seats: set[int], bot: Any, opp: Any, nodes: int | None, timed: bool, tally: Tally
) -> None:
    state = domino.new_game(rules, seed=seed)
    rng = random.Random(seed + ":" + ",".join(map(str, sorted(seats))))
    rnd = state.round
    while not state.finished and state.round == rnd:
        seat = state.turn
        view = domino.view(state, seat)
        strat = bot if seat in seats else opp
        if timed:
            t0 = time.monotonic()
            budget = Budget(deadline=t0 + getattr(strat, "default_ms", 100.0) / 1000.0)
        else:
            t0 = time.monotonic()
            budget = Budget(nodes=nodes if nodes is not None else getattr(strat, "bench_nodes", 2000))
        move = strat.choose(view, rng, budget)
        dt = time.monotonic() - t0
        if seat in seats and len(view.legal_moves) > 1:
            tally.times.append(dt)
        state = domino.apply(state, move)
    result = state.rounds[rnd - 1]
    pts = result.points
    if rules.scoring == "mexican_penalty":
        mine = min(pts[s] for s in seats)
        other = min(p for s, p in enumerate(pts) if s not in seats)
        margin = other - mine  # lower is better
    else:
        mine = max(pts[s] for s in seats)
        other = max(p for s, p in enumerate(pts) if s not in seats)
        margin = mine - other
    tally.wins += 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
    tally.games += 1
    tally.margins.append(margin)


def strategy(bot_id: str, abw333: str | None, pab_cache: str | None = None) -> Any:
    """A built-in level, or ``pab``: abw333's probabilistic alpha-beta, loaded from ``abw333`` (a path), its
    moves kept in ``pab_cache`` if given."""
    if bot_id == "ismcts":
        return None  # made in ``run``, given the bot it is matched with
    if bot_id == "pab":
        import abw333_pab  # bench/abw333_pab.py, beside this file

        return abw333_pab.Pab(abw333_pab.load(abw333), pab_cache)
    return get(bot_id)


def run(
    setup: str, deals: int, bot_id: str, opp_id: str, nodes: int | None, timed: bool, seed0: int,
    abw333: str | None = None, every: int = 0, pab_cache: str | None = None, ismcts_ms: float = 100.0,
) -> Tally:
    name, players, overrides = SETUPS[setup]
    rules = domino.Rules.preset(name, players=players, **overrides)
    bot, opp = strategy(bot_id, abw333, pab_cache), strategy(opp_id, abw333, pab_cache)
    if opp_id == "ismcts":  # bench/openspiel_ismcts.py: it gets the bot's mean process CPU time a move
        import openspiel_ismcts

        bot = openspiel_ismcts.Metered(bot)
        opp = openspiel_ismcts.Ismcts(bot, ismcts_ms, seed0)
    tally = Tally()
    t0 = time.monotonic()
    for d in range(deals):
        seed = f"bench-{setup}-{seed0 + d}"
        for rot in range(rotations(rules)):
            play_round(rules, seed, bot_seats(rules, rot), bot, opp, nodes, timed, tally)
        if every and (d + 1) % every == 0 and d + 1 < deals:  # long runs: a figure so far, in case it is cut
            print("  so far: " + report(setup, bot_id, opp_id, nodes, timed, tally, time.monotonic() - t0), flush=True)
    if opp_id == "ismcts":
        print(f"  process CPU ms a move with a choice: {bot_id} {cpu_ms(bot.cpu)}, ismcts {cpu_ms(opp.cpu)}"
              f" ({statistics.fmean(opp.sims or [0]):.0f} simulations a move)", flush=True)
    return tally


def cpu_ms(secs: list[float]) -> str:
    return f"mean {1000 * statistics.fmean(secs or [0.0]):.1f} (n={len(secs)})"


def report(setup: str, bot_id: str, opp_id: str, nodes: int | None, timed: bool, t: Tally, secs: float) -> str:
    p = t.wins / t.games if t.games else 0.0
    lo, hi = wilson(p, t.games)
    m = statistics.fmean(t.margins) if t.margins else 0.0
    se = statistics.stdev(t.margins) / math.sqrt(len(t.margins)) if len(t.margins) > 1 else 0.0
    budget = "timed(default)" if timed else f"nodes={nodes or 'own'}"
    line = (
        f"{setup:11s} {bot_id} vs {opp_id} [{budget}]: win {100 * p:5.1f}% "
        f"(95% CI {100 * lo:.1f}-{100 * hi:.1f}, n={t.games})  margin {m:+.2f} ± {se:.2f}"
    )
    if t.times:
        ts = sorted(t.times)
        p95 = ts[min(len(ts) - 1, int(0.95 * len(ts)))]
        line += (
            f"  move ms: median {1000 * statistics.median(ts):.1f} p95 {1000 * p95:.1f} max {1000 * ts[-1]:.1f}"
            f" (n={len(ts)})"
        )
    return line + f"  [{secs:.0f}s]"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--setup", action="append", choices=sorted(SETUPS), help="repeatable; default: all")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--bot", default="expert")
    ap.add_argument("--opp", default="greedy")
    ap.add_argument("--nodes", type=int, default=None, help="node budget per move for both (default: each bot's own)")
    ap.add_argument("--timed", action="store_true", help="wall-clock default budget instead of nodes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--abw333", default=None, help="checkout of abw333/dominoes for pab (else $DOMINO_ABW333)")
    ap.add_argument("--every", type=int, default=0, help="print the figure so far every N deals")
    ap.add_argument(
        "--pab-cache", default=None,
        help="SQLite file of pab's moves: its random numbers from its view, its moves kept and reused across runs",
    )  # fmt: skip
    ap.add_argument("--ismcts-ms", type=float, default=100.0, help="ISMCTS's CPU ms a move until the bot has moved")
    args = ap.parse_args(argv)
    setups = args.setup or list(DEFAULT_ORDER)
    for setup in setups:
        if setup == "mexican4" and "mexican_train" not in domino.PRESETS:
            continue
        if "pab" in (args.bot, args.opp) and setup != "team_block":
            print(f"{setup:11s} skipped: pab plays only the 4-player team block game", flush=True)
            continue
        nodes = args.nodes  # None: each search bot its own ``bench_nodes`` (about its default time)
        t0 = time.monotonic()
        try:
            tally = run(
                setup, args.deals, args.bot, args.opp, nodes, args.timed, args.seed, args.abw333, args.every,
                args.pab_cache, args.ismcts_ms,
            )
        except NotImplementedError as exc:  # a variant the engine does not play yet
            print(f"{setup:11s} skipped: {exc}", flush=True)
            continue
        print(report(setup, args.bot, args.opp, nodes, args.timed, tally, time.monotonic() - t0), flush=True)


if __name__ == "__main__":
    main()

"""Engine speed (issue 2, "Speed"): random-vs-random play in one process, against the Python anchors.

    python bench/engine_speed.py [--runs 3] [--scale 0.5]

One "game" is one round, as abw333 ``dominoes`` and OpenSpiel count; whole matches are counted apart.
Each scenario is timed ``--runs`` times over fixed seeds (run i plays the same matches on every
invocation); a reference engine's run is timed right after ours, so both see the same machine load.
Printed: the median rate with [min – max] over the runs; ratios to an anchor are taken run by run.

Scenarios: 2-player block (the preset), 4-player team block (all 28 dealt, opener by lot, any tile),
2-player draw and 4-player All Fives (presets), played by ``domino.playout``; the anchors, when the
``bench`` extra is installed: ``dominoes`` (4-player team block, ``Game.new()``: all 28 dealt, player 0
leads any tile) and OpenSpiel's ``python_block_dominoes`` (2-player block, 7 tiles each). The public
immutable API (``legal_moves`` + ``apply``, a random legal move each time) on the two anchored scenarios,
timed in the same interleaved runs, so that its ratios to the anchors are per run too. On 4-player team
block, also the floor of any immutable API on the same kernel (``bench/engine_floor.py``: no scoring, no
records, a move checked, played and wrapped), what the public API's ratio is bounded by.

``--deal-version`` (default 2, what new games use) deals every scenario by that version (1: as before
version 2); the deal's own cost in both versions is printed first (the 4-player team block's round start:
the shuffle and the lot), run by run interleaved.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from typing import Callable, NamedTuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import domino  # noqa: E402
import engine_floor  # noqa: E402
from domino import shuffle  # noqa: E402



class Count(NamedTuple):
    games: int  # rounds
    moves: int
    matches: int


class Rate(NamedTuple):
    games: list[float]
    moves: list[float]
    matches: list[float]


def timed(fn: Callable[[int], Count], run: int) -> tuple[Count, float]:
    t0 = time.perf_counter()
    c = fn(run)
    return c, time.perf_counter() - t0


def summary(values: list[float]) -> str:
    """The median with [min – max] over the runs (a t interval needs more runs than fit in a minute)."""
    med = statistics.median(values)
    if len(values) < 2:
        return f"{med:>11,.0f}"
    return f"{med:>11,.0f}  [{min(values):,.0f} – {max(values):,.0f}]"


# -- ours ------------------------------------------------------------------------------------------

SCENARIOS: dict[str, domino.Rules] = {
    "2p block": domino.Rules.preset("block", players=2),
    "4p team block": domino.Rules.preset(
        "block", players=4, teams="partners_opposite", hand_size=7, starting_rule="lot"
    ),
    "2p draw": domino.Rules.preset("draw", players=2),
    "4p all_fives": domino.Rules.preset("all_fives", players=4),
}
# Matches per run at scale 1 (about half a second each on a 2-core box).
MATCHES = {"2p block": 700, "4p team block": 1000, "2p draw": 600, "4p all_fives": 1000}
PUBLIC_GAMES = 600  # rounds per run of the public API, at scale 1


def core_runner(name: str, matches: int, deal_version: int = domino.DEAL_VERSION) -> Callable[[int], Count]:
    rules = SCENARIOS[name]
    strategies = ["random"] * rules.players

    def run(i: int) -> Count:
        games = moves = 0
        for m in range(matches):
            r = domino.playout(rules, strategies, f"bench-{i}-{m}", deal_version=deal_version)
            games += len(r.rounds)
            moves += r.moves
        return Count(games, moves, matches)

    return run


def public_runner(name: str, games_per_run: int, deal_version: int = domino.DEAL_VERSION) -> Callable[[int], Count]:
    """The public immutable API: legal_moves + apply, a random legal move each time."""
    rules = SCENARIOS[name]

    def run(i: int) -> Count:
        rng = random.Random(i)
        moves = games = 0
        m = 0
        while games < games_per_run:
            state = domino.new_game(rules, seed=f"bench-public-{i}-{m}", deal_version=deal_version)
            m += 1
            while state.outcome is None and games < games_per_run:
                legal = domino.legal_moves(state)
                before = len(state.rounds)
                state = domino.apply(state, rng.choice(legal))  # the anchors pick as this does
                moves += 1
                games += len(state.rounds) - before
        return Count(games, moves, 0)

    return run


def floor_runner(name: str, games_per_run: int, deal_version: int = domino.DEAL_VERSION) -> Callable[[int], Count]:
    """The floor of an immutable API on the same kernel (``bench/engine_floor.py``), in the same loop."""
    rules = SCENARIOS[name]

    def run(i: int) -> Count:
        games, moves = engine_floor.run(rules, i, games_per_run, deal_version)
        return Count(games, moves, 0)

    return run


def deal_runner(deal_version: int, deals: int) -> Callable[[int], Count]:
    """The chance of a 4-player team block round start alone: the shuffle (28 tiles, the first hand's order
    skipped, as the engine deals) and the lot, by one deal version; a "game" is a deal."""

    def run(i: int) -> Count:
        for d in range(deals):
            seed = f"bench-deal-{i}-{d}"
            shuffle.order(28, seed, 1, "deal", deal_version, unordered=7)
            shuffle.first_draw(seed, 1, "lot", 4, deal_version)
        return Count(deals, 0, 0)

    return run


def print_deal_costs(runs: int, deals: int) -> None:
    """Microseconds per deal in each version, runs interleaved, and the ratio run by run."""
    rates = {v: Rate([], [], []) for v in domino.DEAL_VERSIONS}
    runners = {v: deal_runner(v, deals) for v in domino.DEAL_VERSIONS}
    for v in domino.DEAL_VERSIONS:
        runners[v](-1)  # warm the plans' caches
    for i in range(runs):
        for v in domino.DEAL_VERSIONS:
            measure(runners[v], range(i, i + 1), rates[v])
    for v in domino.DEAL_VERSIONS:
        us = [1e6 / r for r in rates[v].games]
        print(f"deal v{v} (4p team block: shuffle + lot) {statistics.median(us):8.2f} µs a round [{min(us):.2f} – {max(us):.2f}]")
    ratios = [a / b for a, b in zip(rates[2].games, rates[1].games)]
    print(f"deal v2 / v1 speed: {statistics.median(ratios):.1f}x [{min(ratios):.1f} – {max(ratios):.1f}] over {runs} runs\n")


# -- anchors ---------------------------------------------------------------------------------------


def dominoes_runner(games_per_run: int) -> Callable[[int], Count] | None:
    try:
        import dominoes  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        return None

    def run(i: int) -> Count:
        random.seed(1000 + i)  # dominoes deals with the global generator
        rng = random.Random(i)
        moves = 0
        for _ in range(games_per_run):
            game = dominoes.Game.new()  # 4 players in 2 teams, 7 tiles each, player 0 leads any tile
            while game.result is None:
                game.make_move(*rng.choice(game.valid_moves))  # passes are automatic there
                moves += 1
        return Count(games_per_run, moves, 0)

    return run


def openspiel_runner(games_per_run: int) -> Callable[[int], Count] | None:
    try:
        import pyspiel  # type: ignore[import-not-found,import-untyped,unused-ignore]
        from open_spiel.python.games import block_dominoes  # type: ignore[import-not-found,import-untyped,unused-ignore]  # noqa: F401  (registers the game)
    except ImportError:
        return None
    game = pyspiel.load_game("python_block_dominoes")

    def run(i: int) -> Count:
        rng = random.Random(i)
        moves = 0
        for _ in range(games_per_run):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():  # the deal, one tile at a time, uniform
                    state.apply_action(rng.choice(state.chance_outcomes())[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
                    moves += 1
        return Count(games_per_run, moves, 0)

    return run


# -- main ------------------------------------------------------------------------------------------


def measure(fn: Callable[[int], Count], runs: range, rate: Rate) -> Rate:
    for i in runs:
        c, dt = timed(fn, i)
        rate.games.append(c.games / dt)
        rate.moves.append(c.moves / dt)
        rate.matches.append(c.matches / dt)
    return rate


def ratio_line(name: str, what: str, ours: Rate, theirs: Rate, label: str, target: float) -> str:
    ratios = [a / b for a, b in zip(ours.games, theirs.games)]
    med = statistics.median(ratios)
    verdict = "meets" if med >= target else "MISSES"
    return (
        f"{name}, {what}: {med:.2f}x {label.split(' (')[0]} games/s [{min(ratios):.2f}–{max(ratios):.2f}] "
        f"(per-run ratios {', '.join(f'{x:.2f}' for x in ratios)}); target {target:g}x: {verdict}"
    )


Anchors = dict[str, tuple[str, Callable[[int], Count] | None, float, float]]


def print_ratios(
    anchors: Anchors, ours: dict[str, Rate], public: dict[str, Rate], floor: dict[str, Rate], theirs: dict[str, Rate]
) -> None:
    for name, (label, ref, target, public_target) in anchors.items():
        if ref is None:
            print(f"{label}: not installed (pip install -e '.[bench]')")
            continue
        print(ratio_line(name, "domino.playout", ours[name], theirs[name], label, target))
        print(ratio_line(name, "public API", public[name], theirs[name], label, public_target))
        if name in floor:  # what no immutable API on this kernel can beat (bench/engine_floor.py)
            print(ratio_line(name, "floor of an immutable API", floor[name], theirs[name], label, public_target))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scale", type=float, default=0.5, help="work per run (1.0: about half a second)")
    ap.add_argument("--deal-version", type=int, default=domino.DEAL_VERSION, choices=domino.DEAL_VERSIONS)
    args = ap.parse_args()
    runs, scale, version = args.runs, args.scale, args.deal_version
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs, load {load:.2f}")
    print(f"{runs} runs per scenario; median [min – max] over the runs; our rounds dealt by deal version {version}\n")
    print_deal_costs(runs, max(1, int(20000 * scale)))
    # scenario -> (anchor label, anchor runner, target for playout, target for the public API)
    anchors: Anchors = {
        "4p team block": ("dominoes 6.1.0 (4p team block)", dominoes_runner(int(4000 * scale)), 3.0, 1.5),
        "2p block": ("open-spiel python_block_dominoes (2p)", openspiel_runner(int(1500 * scale)), 10.0, 3.0),
    }
    header = f"{'engine / scenario':<42}{'games/s':>34}{'moves/s':>36}{'matches/s':>34}"
    print(header)
    print("-" * len(header))
    ours: dict[str, Rate] = {}
    public: dict[str, Rate] = {}
    floor: dict[str, Rate] = {}
    theirs: dict[str, Rate] = {}
    for name in SCENARIOS:
        run_ours = core_runner(name, max(1, int(MATCHES[name] * scale)), version)
        run_ours(-1)  # warm the caches (tables, rules config) outside the timing
        label, ref, _, _ = anchors.get(name, ("", None, 0.0, 0.0))
        games = max(1, int(PUBLIC_GAMES * scale))
        run_public = public_runner(name, games, version) if name in anchors else None
        run_floor = floor_runner(name, games, version) if name == "4p team block" else None
        ours[name] = Rate([], [], [])
        if ref is not None:
            theirs[name] = Rate([], [], [])
        if run_public is not None:
            public[name] = Rate([], [], [])
        if run_floor is not None:
            floor[name] = Rate([], [], [])
        for i in range(runs):  # interleaved, so that a burst of machine load hits every engine alike
            measure(run_ours, range(i, i + 1), ours[name])
            if run_public is not None:
                measure(run_public, range(i, i + 1), public[name])
            if run_floor is not None:
                measure(run_floor, range(i, i + 1), floor[name])
            if ref is not None:
                measure(ref, range(i, i + 1), theirs[name])
        r = ours[name]
        print(f"{'domino.playout ' + name:<42}{summary(r.games):>34}{summary(r.moves):>36}{summary(r.matches):>34}")
        if run_public is not None:
            pub = public[name]
            print(f"{'public API (legal_moves+apply) ' + name:<42}{summary(pub.games):>34}{summary(pub.moves):>36}")
        if run_floor is not None:
            fl = floor[name]
            print(f"{'floor of an immutable API ' + name:<42}{summary(fl.games):>34}{summary(fl.moves):>36}")
        if ref is not None:
            t = theirs[name]
            print(f"{label:<42}{summary(t.games):>34}{summary(t.moves):>36}{'':>34}")
    print()
    print_ratios(anchors, ours, public, floor, theirs)
    core_moves = statistics.median(ours["2p block"].moves)
    print(f"2p block: the core makes {core_moves / statistics.median(public['2p block'].moves):.1f}x the public API's moves/s")


if __name__ == "__main__":
    main()

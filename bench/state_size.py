"""Per-move cost of the stored state through a match: encode + decode + one step, round by round.

    python bench/state_size.py [--runs 6] [--reps 10] [--positions all|first]
    python bench/state_size.py --instructions [--positions all|first]

For a 4-player Mexican Train match and a 2-player draw match (random legal moves, fixed seeds), every
position of every round where a seat is to move (``--positions first``: only each round's first move) is
taken through what the service does on a move: encode it to JSON (orjson), decode it, and make one move.
One pass over every position comes first, unmeasured (caches, the interpreter's specialisation).

CPU time (the default; the process's, so other load on the machine moves it less than wall time would, though
it still shares the caches): each round's positions are timed ``--reps`` times per run, rounds interleaved
within a run so that a burst of load spreads over all of them. Printed per round: the median over ``--runs``
runs of the mean µs per move, with a 95% interval of the median from the runs' order statistics (6 runs
or more; fewer give [min, max]), and the live document's mean size. Two documents: the live one
(``domino.to_live`` / ``domino.from_live``: what a move needs) and, for comparison, the whole state
(``domino.to_dict`` / ``domino.from_dict``: every finished round included). The ratios last round ÷ first
and last ÷ second are taken within each run, then summarised the same way.

``--instructions``: the same loop, once per round with the live document, under callgrind (valgrind must be
installed): the bench runs itself under ``valgrind --tool=callgrind`` with PYTHONHASHSEED=0, each round's
loop inside ``sys.call_tracing`` so that callgrind counts that call alone (``--toggle-collect``) and dumps
its count (``--dump-after``). Instructions are deterministic and other load on the machine does not move
them: one run, no interval. Slow (a minute or two).

Round 1 has no finished round, so its live document lacks ``last_round`` (the latest round's result and
deal, which every view shows and which the game's history keeps); from round 2 on the document has the
same shape. Last ÷ second compares like with like; last ÷ first includes that one record.
Target: with the live document, the last round costs within 20% of the first.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import domino  # noqa: E402
from load_clients import median_interval  # noqa: E402

MATCHES = {
    "4p mexican_train": (domino.Rules.preset("mexican_train", players=4), "state-size-mt"),
    "2p draw": (domino.Rules.preset("draw", players=2, target_score=150), "state-size-draw"),
}
Encode = Callable[[domino.State], Any]
Decode = Callable[[Any], domino.State]
FORMS: dict[str, tuple[Encode, Decode]] = {
    "live": (domino.to_live, domino.from_live),
    "whole": (domino.to_dict, domino.from_dict),
}
TARGET = 1.2


def round_positions(rules: domino.Rules, seed: str, first_only: bool) -> list[list[domino.State]]:
    """Per round, the states where a seat is to move, of one match played with random legal moves."""
    rng = random.Random(seed)
    state = domino.new_game(rules, seed=seed)
    rounds = [[state]]
    while state.outcome is None:
        legal = domino.legal_moves(state)
        nxt = domino.apply(state, legal[rng.randrange(len(legal))])
        if nxt.outcome is None:
            if nxt.round != state.round:
                rounds.append([nxt])
            elif not first_only:
                rounds[-1].append(nxt)
        state = nxt
    return rounds


def per_move(states: list[domino.State], encode: Encode, decode: Decode, reps: int) -> None:
    """``reps`` passes of encode + decode + one step over ``states``."""
    for _ in range(reps):
        for state in states:
            loaded = decode(orjson.loads(orjson.dumps(encode(state))))
            domino.step(loaded, domino.legal_moves(loaded)[0])


def timed(states: list[domino.State], encode: Encode, decode: Decode, reps: int) -> float:
    """CPU seconds per move of :func:`per_move` (this process's CPU time: time spent waiting for a core while
    other processes run is not counted)."""
    t0 = time.process_time()
    per_move(states, encode, decode, reps)
    return (time.process_time() - t0) / (reps * len(states))


def size_kb(states: list[domino.State]) -> float:
    return statistics.mean(len(orjson.dumps(domino.to_live(s))) for s in states) / 1024


def summary(values: list[float], scale: float = 1.0, digits: int = 0) -> str:
    mid, low, high = median_interval([v * scale for v in values])
    return f"{mid:.{digits}f} [{low:.{digits}f}–{high:.{digits}f}]"


def ratios_line(per_round: list[list[float]]) -> str:
    """Last ÷ first and last ÷ second, taken within each run (element i of each round's list)."""
    out = []
    for label, i in (("first", 0), ("second", 1)):
        ratios = [last / base for last, base in zip(per_round[-1], per_round[i])]
        verdict = "meets" if statistics.median(ratios) <= TARGET else "MISSES"
        out.append(f"last round / {label} = {summary(ratios, digits=2)} (target <= {TARGET:.2f}: {verdict})")
    return "live: " + "; ".join(out)


def cpu_time(args: argparse.Namespace) -> None:
    print(f"{args.runs} runs of {args.reps} passes over each round's positions ({args.positions}); "
          "CPU µs per move: median [95% interval of the median, or min–max under 6 runs] over the runs\n")
    for name, (rules, seed) in MATCHES.items():
        rounds = round_positions(rules, seed, args.positions == "first")
        times: dict[str, list[list[float]]] = {form: [[] for _ in rounds] for form in FORMS}
        for enc, dec in FORMS.values():  # warm-up (caches, specialization): not timed
            per_move([s for states in rounds for s in states], enc, dec, 1)
        for _ in range(args.runs):  # runs outermost, so that a burst of load spreads over every round
            for i, states in enumerate(rounds):
                for form, (enc, dec) in FORMS.items():
                    times[form][i].append(timed(states, enc, dec, args.reps))
        print(f"{name}: {len(rounds)} rounds, {sum(map(len, rounds))} positions")
        print(f"{'round':>5} {'moves':>5}  {'live µs/move':>20} {'KB':>5}  {'whole µs/move':>20}")
        for i, states in enumerate(rounds):
            print(f"{i + 1:>5} {len(states):>5}  {summary(times['live'][i], 1e6):>20} {size_kb(states):5.1f}"
                  f"  {summary(times['whole'][i], 1e6):>20}")
        print(ratios_line(times["live"]) + "\n")


def count_rounds(positions: str) -> None:
    """Under callgrind: each round's loop in its own ``sys.call_tracing`` call (see the module's text); prints
    one line per match, its name and the number of positions of each round, separated by tabs."""
    enc, dec = FORMS["live"]
    for name, (rules, seed) in MATCHES.items():
        rounds = round_positions(rules, seed, positions == "first")
        print(name, *map(len, rounds), sep="\t")
        per_move([s for states in rounds for s in states], enc, dec, 1)  # warm-up (caches, specialization): not counted
        # A full collection's cost depends on the whole heap, not on the round it happens to land in: move what
        # exists now out of its reach, so that each round counts its own work.
        gc.collect()
        gc.freeze()
        for states in rounds:
            sys.call_tracing(per_move, (states, enc, dec, 1))


def callgrind_counts(positions: str) -> list[tuple[str, list[int], list[int]]]:
    """Per match: its name, the positions of each round, and the instructions of each round's loop."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg"
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--collect-atstart=no",
               "--toggle-collect=sys_call_tracing", "--dump-after=sys_call_tracing",
               sys.executable, __file__, "--count-rounds", "--positions", positions]
        run = subprocess.run(cmd, env={**os.environ, "PYTHONHASHSEED": "0"}, capture_output=True, text=True, check=True)
        dumps = iter(sorted(Path(tmp).glob("cg.*"), key=lambda p: int(p.suffix[1:])))  # one per call, in order
        matches = []
        for line in run.stdout.splitlines():
            name, *moves = line.split("\t")
            counts = [int(next(t for t in next(dumps).read_text().splitlines() if t.startswith("totals:")).split()[1])
                      for _ in moves]
            matches.append((name, [int(m) for m in moves], counts))
    return matches


def instructions(args: argparse.Namespace) -> None:
    print(f"instructions per move (callgrind, one deterministic run; positions: {args.positions})\n")
    for name, moves, counts in callgrind_counts(args.positions):
        per_round = [c / m for c, m in zip(counts, moves)]
        print(f"{name}: {len(moves)} rounds, {sum(moves)} positions")
        print(f"{'round':>5} {'moves':>5} {'instructions/move':>18}")
        for i, (m, c) in enumerate(zip(moves, per_round)):
            print(f"{i + 1:>5} {m:>5} {c:>18,.0f}")
        later = per_round[1:]
        print(f"live: last round / first = {per_round[-1] / per_round[0]:.2f}, last / second = "
              f"{per_round[-1] / per_round[1]:.2f} (target <= {TARGET:.2f}); rounds 2 to last from "
              f"{min(later) / 1e3:,.0f}k to {max(later) / 1e3:,.0f}k\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=6)
    ap.add_argument("--reps", type=int, default=10, help="passes over each round's positions per run")
    ap.add_argument("--positions", choices=("all", "first"), default="all")
    ap.add_argument("--instructions", action="store_true", help="count instructions under callgrind instead")
    ap.add_argument("--count-rounds", action="store_true", help=argparse.SUPPRESS)  # the run under callgrind
    args = ap.parse_args()
    if args.count_rounds:
        count_rounds(args.positions)
    elif args.instructions:
        instructions(args)
    else:
        cpu_time(args)


if __name__ == "__main__":
    main()

"""The public API's cost per round against the anchors, in instructions (callgrind) rather than seconds.

    python bench/engine_instructions.py [--rounds 200]

``bench/engine_speed.py``'s loops (the public API, the floor of an immutable API, ``dominoes``; on the
2-player block, the public API and OpenSpiel), each counted by ``valgrind --tool=callgrind`` with
PYTHONHASHSEED=0: a run plays a fixed warm-up, then N rounds; the count of a run of ``--rounds`` rounds is
taken from the count of a run of three times as many, and the difference divided by the extra rounds, so
start-up, imports and the warm-up cancel out. The public API is counted dealing by version 2 (new games)
and by version 1 (older games), and the 4-player team block's deal alone (shuffle and lot) in both. Instructions do not depend on other load on the machine, so
the ratios are repeatable where wall-time ratios on a busy machine are not; they are not the bench's
target (seconds are), but a cross-check of it: fewer instructions is not always less time (allocation and
cache misses cost time, not instructions). One run per figure: it is deterministic up to the anchors' own
use of addresses in hashing.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import engine_speed  # noqa: E402

WARM_UP = 50  # rounds played first in every run, uncounted by the difference
Runner = Callable[[int], engine_speed.Count]
# name -> (scenario, the loop of n rounds, or None when that anchor is not installed)
LOOPS: dict[str, tuple[str, Callable[[int], Runner | None]]] = {
    "public API, 4p team block": ("4p team block", lambda n: engine_speed.public_runner("4p team block", n)),
    "public API, 4p team block, deal v1": (
        "4p team block",
        lambda n: engine_speed.public_runner("4p team block", n, deal_version=1),
    ),
    "the deal alone (shuffle + lot), v1": ("4p team block", lambda n: engine_speed.deal_runner(1, n)),
    "the deal alone (shuffle + lot), v2": ("4p team block", lambda n: engine_speed.deal_runner(2, n)),
    "floor of an immutable API, 4p team block": (
        "4p team block",
        lambda n: engine_speed.floor_runner("4p team block", n),
    ),
    "dominoes 6.1.0, 4p team block": ("4p team block", engine_speed.dominoes_runner),
    "public API, 2p block": ("2p block", lambda n: engine_speed.public_runner("2p block", n)),
    "open-spiel python_block_dominoes, 2p block": ("2p block", engine_speed.openspiel_runner),
}
ANCHOR = {"4p team block": "dominoes 6.1.0, 4p team block", "2p block": "open-spiel python_block_dominoes, 2p block"}


def play(name: str, rounds: int) -> None:
    """Under callgrind: the warm-up, then ``rounds`` rounds of the loop."""
    make = LOOPS[name][1]
    warm, counted = make(WARM_UP), make(rounds)
    assert warm is not None and counted is not None
    warm(-1)
    counted(0)


def instructions(name: str, rounds: int) -> int:
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    out = subprocess.run([*cmd, "--play", name, "--rounds", str(rounds)], env=env, capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode != 0 or found is None:
        raise SystemExit(f"callgrind failed for {name}:\n{out.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--play", help=argparse.SUPPRESS)  # the run under callgrind
    args = ap.parse_args()
    if args.play:
        play(args.play, args.rounds)
        return
    print(f"instructions per round (callgrind, PYTHONHASHSEED=0; runs of {args.rounds} and {3 * args.rounds} rounds)")
    names = [name for name, (_, make) in LOOPS.items() if make(1) is not None]
    runs = [(name, n) for name in names for n in (args.rounds, 3 * args.rounds)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # each run is its own process
        counts = dict(zip(runs, pool.map(instructions, *zip(*runs))))
    extra = 2 * args.rounds
    per_round = {name: (counts[name, 3 * args.rounds] - counts[name, args.rounds]) / extra for name in names}
    for name in LOOPS:
        shown = f"{per_round[name]:>14,.0f}" if name in per_round else "not installed (pip install -e '.[bench]')"
        print(f"{name:<46}{shown}")
    print()
    for name, (scenario, _) in LOOPS.items():
        anchor = ANCHOR[scenario]
        if name != anchor and name in per_round and anchor in per_round:
            ratio = per_round[anchor] / per_round[name]
            print(f"{name}: {ratio:.2f}x (the anchor's instructions a round / these)")


if __name__ == "__main__":
    main()

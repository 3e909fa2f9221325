"""Per-move cost of the stored state through a match: encode + decode + one step, round by round.

    python bench/state_size.py [--runs 3] [--reps 200]

For a 4-player Mexican Train match and a 2-player draw match (random legal moves, fixed seeds), the state
at the first move of every round is taken through what the service does on a move: encode it to JSON
(orjson), decode it, and make one move. Timed ``--reps`` times per round and run; printed: the median over
``--runs`` runs of the mean time per move, with [min, max] over the runs, and the document's size. Two
documents: the live one (``domino.to_live`` / ``domino.from_live``: what a move needs) and, for
comparison, the whole state (``domino.to_dict`` / ``domino.from_dict``: every finished round included).
Target: with the live document, the last round costs within 20% of the first.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from typing import Any, Callable

import orjson

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import domino  # noqa: E402

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


def round_starts(rules: domino.Rules, seed: str) -> list[domino.State]:
    """The state at the first move of every round of one match played with random legal moves."""
    rng = random.Random(seed)
    state = domino.new_game(rules, seed=seed)
    starts = [state]
    while state.outcome is None:
        legal = domino.legal_moves(state)
        nxt = domino.apply(state, legal[rng.randrange(len(legal))])
        if nxt.outcome is None and nxt.round != state.round:
            starts.append(nxt)
        state = nxt
    return starts


def per_move(state: domino.State, encode: Encode, decode: Decode, reps: int) -> float:
    """Seconds for one encode + decode + step of ``state``, the mean over ``reps``."""
    t0 = time.perf_counter()
    for _ in range(reps):
        loaded = decode(orjson.loads(orjson.dumps(encode(state))))
        domino.step(loaded, domino.legal_moves(loaded)[0])
    return (time.perf_counter() - t0) / reps


def fmt(values: list[float]) -> str:
    us = [v * 1e6 for v in values]
    return f"{statistics.median(us):7.0f} [{min(us):.0f}–{max(us):.0f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args()
    print(f"{args.runs} runs of {args.reps} moves per round; µs per move: median [min–max] over the runs\n")
    for name, (rules, seed) in MATCHES.items():
        starts = round_starts(rules, seed)
        times: dict[str, list[list[float]]] = {form: [[] for _ in starts] for form in FORMS}
        for _ in range(args.runs):  # runs outermost, so that a burst of load spreads over every round
            for i, s in enumerate(starts):
                for form, (enc, dec) in FORMS.items():
                    times[form][i].append(per_move(s, enc, dec, args.reps))
        print(f"{name}: {len(starts)} rounds")
        print(f"{'round':>5}  {'live µs/move':>22} {'KB':>6}  {'whole µs/move':>22} {'KB':>6}")
        for i, s in enumerate(starts):
            sizes = [len(orjson.dumps(enc(s))) / 1024 for enc, _ in FORMS.values()]
            print(f"{s.round:>5}  {fmt(times['live'][i]):>22} {sizes[0]:6.1f}  {fmt(times['whole'][i]):>22} {sizes[1]:6.1f}")
        first, last = (statistics.median(times["live"][i]) for i in (0, -1))
        verdict = "meets" if last <= 1.2 * first else "MISSES"
        print(f"live: last round / first = {last / first:.2f} (target <= 1.20: {verdict})\n")


if __name__ == "__main__":
    main()

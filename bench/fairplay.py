"""Fair-play screen target (issue 35): a peeking player is flagged in >= 90% of 20-game samples; honest
``expert`` and ``greedy`` in <= 5% (a benchmark, not a test).

Each game is played by the engine directly: the screened seat (seat 0; in a team game, team 0 = seats 0 and 2)
plays as ``peeker`` (domino.testing.Peeker: sees the other hands, plays the omniscient best), ``expert`` (at
the analysis budget) or ``greedy``; the other seats play ``--opp``. Every choice position of the screened
side is then read as the service reads a finished game: the analysis's values from the mover's information,
the values to one who sees the other hands (domino.analysis.omniscient) and the honest expert's pick, all
at ``--nodes`` (node budgets: deterministic, independent of the machine's load).

Per kind, the per-game counts go to ``--out`` (JSON lines, so a run can be resumed and read again with
``--report``); the report splits the games into disjoint samples of ``--sample`` games and prints the share
flagged with a 95% Wilson interval, plus the share over 2000 random (overlapping) samples of the pool.

    nice python bench/fairplay.py --games 100 --out /tmp/fairplay.jsonl      # ~? min on one core
    python bench/fairplay.py --report --out /tmp/fairplay.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import domino  # noqa: E402
from domino.analysis import DEFAULT_NODES  # noqa: E402
from domino.analysis.fairplay import Choice, Tally, screen, tally  # noqa: E402
from domino.testing import screened_game  # noqa: E402

SETUPS: dict[str, tuple[str, int, dict[str, Any]]] = {
    "draw2": ("draw", 2, {}),
    "block2": ("block", 2, {}),
    "team_block": ("block", 4, {"teams": "partners_opposite", "hand_size": 7}),
}


def play(setup: str, kind: str, opp: str, game: int, nodes: int) -> tuple[list[Choice], int]:
    preset, players, options = SETUPS[setup]
    rules = domino.Rules.preset(preset, players=players, **options)
    return screened_game(rules, f"fairplay-{setup}-{kind}-{game}", kind, opp, nodes)


def sample_tally(games: list[dict[str, Any]]) -> Tally:
    return sum((Tally.from_dict(g["tally"]) for g in games), Tally())


def flagged(games: list[dict[str, Any]]) -> bool:
    """The screen of a sample, from its games' tallies (the screen reads only these sums)."""
    return screen(sample_tally(games)).flag


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, mid - half), min(1.0, mid + half)


def report(rows: list[dict[str, Any]], sample: int) -> None:
    by_kind: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        by_kind.setdefault((r["setup"], r["kind"]), []).append(r)
    for (setup, kind), games in sorted(by_kind.items()):
        games.sort(key=lambda g: g["game"])
        disjoint = [games[i : i + sample] for i in range(0, len(games) - sample + 1, sample)]
        k = sum(flagged(s) for s in disjoint)
        lo, hi = wilson(k, len(disjoint))
        rng = random.Random(0)
        over = sum(flagged(rng.sample(games, sample)) for _ in range(2000)) if len(games) >= sample else 0
        whole = screen(sample_tally(games))
        secs = sorted(g["seconds"] for g in games)
        print(
            f"{setup:10} {kind:8} games={len(games):4} positions={whole.positions} telling={whole.tally.telling} "
            f"rate={whole.rate:.3f} expert_rate={whole.expert_rate:.3f} (McNemar p={whole.p_value:.2g}) "
            f"gain={whole.gain:.2f} (98% CI {whole.gain_interval[0]:.2f} to {whole.gain_interval[1]:.2f}) "
            f"flagged {k}/{len(disjoint)} disjoint {sample}-game samples ({100 * k / max(1, len(disjoint)):.0f}%, "
            f"95% CI {100 * lo:.0f}-{100 * hi:.0f}%); of 2000 overlapping samples {100 * over / 2000:.1f}%; "
            f"median {secs[len(secs) // 2]:.1f} s a game"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--setup", default="draw2", choices=sorted(SETUPS))
    ap.add_argument("--kinds", default="peeker,expert,greedy")
    ap.add_argument("--opp", default="greedy")
    ap.add_argument("--games", type=int, default=60, help="games per kind")
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--nodes", type=int, default=DEFAULT_NODES, help="the analysis budget a position")
    ap.add_argument("--out", default="/tmp/fairplay_bench.jsonl")
    ap.add_argument("--report", action="store_true", help="only report what --out holds")
    args = ap.parse_args()
    out = Path(args.out)
    rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    if not args.report:
        done = {(r["setup"], r["kind"], r["game"]) for r in rows}
        for game in range(args.games):
            for kind in args.kinds.split(","):
                if (args.setup, kind, game) in done:
                    continue
                t0 = time.process_time()
                choices, moves = play(args.setup, kind, args.opp, game, args.nodes)
                row = {"setup": args.setup, "kind": kind, "game": game, "nodes": args.nodes, "opp": args.opp,
                       "moves": moves, "seconds": time.process_time() - t0, "tally": tally(choices).to_dict()}
                rows.append(row)
                with out.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(json.dumps(row), flush=True)
    report(rows, args.sample)


if __name__ == "__main__":
    main()

"""Deadline lateness (issue 31): how late the sweep notices turn deadlines when many fall due together.

    python bench/deadlines.py [--games 10000] [--window 60] [--sweep-interval 2.0]

Method: a private Redis; ``--games`` two-human games created through the service, each with a
``turn_timeout_s`` chosen so that the deadlines fall evenly within ``--window`` seconds after the setup;
then the sweep runs as ``domino-serve`` runs it (one pass, then a wait until the next interval) until every
deadline has been seen. A game's lateness is the time from its deadline to the end of the sweep pass that
enqueued its timeout move (the first time only; no worker plays the moves here, so the job's own run, a few
milliseconds on an idle worker, is not counted). Figures: p50, p99 and the worst lateness, the sweep passes
and their longest duration, with the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from api.config import Settings  # noqa: E402
from api.service.create import GameRequest  # noqa: E402
from api.service.service import Service  # noqa: E402
from workers.redis_server import RedisServer  # noqa: E402

TWO = [{"name": "Ana"}, {"name": "Bo"}]


def create_games(service: Service, games: int, first_deadline: float, window: float) -> dict[str, float]:
    deadlines: dict[str, float] = {}
    for i in range(games):
        due = first_deadline + window * i / games
        request = GameRequest("draw", TWO, turn_timeout_s=max(0.01, due - time.time()))
        view, _tokens, _version, game_id = service.create_game(request, f"bench-{i % 1000}")
        deadlines[game_id] = view["deadline"]
    return deadlines


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--window", type=float, default=60.0)
    parser.add_argument("--sweep-interval", type=float, default=Settings().sweep_interval)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deadlines-") as folder:
        server = RedisServer(folder, persistent=False)
        url = server.start()
        try:
            settings = replace(
                Settings(), redis_url=url, key_prefix="bench", min_turn_timeout=0.01, games_per_client=0,
                rate_limit="0", sweep_interval=args.sweep_interval,
            )  # fmt: skip
            service = Service(settings)
            started = time.time()
            setup = max(30.0, args.games * 0.01)  # time to create them (the first deadline comes after)
            deadlines = create_games(service, args.games, started + setup, args.window)
            made = time.time() - started
            if made > setup:
                print(f"warning: the setup took {made:.1f} s, past the first deadline ({setup:.0f} s)")
            late: dict[str, float] = {}
            passes, longest = 0, 0.0
            while len(late) < len(deadlines):
                t0 = time.time()
                report = service.sweep()
                done = time.time()
                passes += 1
                longest = max(longest, done - t0)
                for game_id, _version, _attempt in report.timeouts:
                    if game_id in deadlines and game_id not in late:
                        late[game_id] = done - deadlines[game_id]
                time.sleep(max(0.0, args.sweep_interval - (time.time() - t0)))
        finally:
            server.stop()
    values = list(late.values())
    print(
        f"{args.games} games, deadlines over {args.window:g} s, sweep every {args.sweep_interval:g} s "
        f"(setup {made:.1f} s; load average {os.getloadavg()[0]:.1f})"
    )
    print(
        f"lateness: p50 {statistics.median(values):.3f} s, p99 {percentile(values, 0.99):.3f} s, "
        f"worst {max(values):.3f} s; {passes} sweep passes, the longest {longest:.3f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Deadline lateness: how late the sweep enforces turn deadlines when many fall due together.

    python bench/deadlines.py [--games 10000] [--window 60] [--sweep-interval 2.0] [--timer-batch 200]
                              [--timer-max-wait 1.0] [--setup SECONDS]

Method: a private Redis; ``--games`` two-human games created through the service, each with a
``turn_timeout_s`` chosen so that the deadlines fall evenly within ``--window`` seconds after the setup;
then the sweep runs as ``domino-serve`` runs it (``workers.sweep.start_thread``: the interval pass and the
timer, its two threads) until every deadline has been enforced. A game's lateness is the time from its
deadline to the sweep's log line for its timeout job, written once the job is enqueued (the first time only;
no worker plays the moves here, so the job's own run, a few milliseconds on an idle worker, is not counted).
Figures: p50, p99 and the worst lateness over all games of one run, with the load average (the machine is
shared: a loaded one makes every figure later).
"""

from __future__ import annotations

import argparse
import logging
import os
import threading
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
from workers import sweep  # noqa: E402
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


class Enforced(logging.Handler):
    """When the sweep logged each game's timeout (the first time)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.at: dict[str, float] = {}
        self.all = threading.Event()
        self.expected = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg.startswith("turn timeout") and isinstance(record.args, tuple):
            self.at.setdefault(str(record.args[0]), record.created)
            if len(self.at) >= self.expected:
                self.all.set()


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--window", type=float, default=60.0)
    parser.add_argument("--sweep-interval", type=float, default=Settings().sweep_interval)
    parser.add_argument("--timer-batch", type=int, default=Settings().timer_batch)
    parser.add_argument("--timer-max-wait", type=float, default=Settings().timer_max_wait)
    parser.add_argument("--setup", type=float, help="seconds before the first deadline (default: 30, or 10 ms a game)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deadlines-") as folder:
        server = RedisServer(folder, persistent=False)
        url = server.start()
        try:
            settings = replace(
                Settings(), redis_url=url, key_prefix="bench", min_turn_timeout=0.01, games_per_client=0,
                rate_limit="0", sweep_interval=args.sweep_interval, timer_batch=args.timer_batch,
                timer_max_wait=args.timer_max_wait,
            )  # fmt: skip
            service = Service(settings)
            started = time.time()
            setup = args.setup or max(30.0, args.games * 0.01)  # to create them (the first deadline comes after)
            deadlines = create_games(service, args.games, started + setup, args.window)
            made = time.time() - started
            if made > setup:
                print(f"warning: the setup took {made:.1f} s, past the first deadline ({setup:.0f} s)")
            enforced = Enforced()
            enforced.expected = len(deadlines)
            logger = logging.getLogger("workers.sweep")
            logger.setLevel(logging.INFO)
            logger.addHandler(enforced)
            stop = threading.Event()
            thread = sweep.start_thread(service, stop)
            finished = enforced.all.wait(setup + args.window + 120)
            stop.set()
            thread.join()
        finally:
            server.stop()
    if not finished:
        print(f"warning: {len(deadlines) - len(enforced.at)} deadlines not enforced in time")
    values = [at - deadlines[game_id] for game_id, at in enforced.at.items() if game_id in deadlines]
    print(
        f"{args.games} games, deadlines over {args.window:g} s, sweep every {args.sweep_interval:g} s, timer batches "
        f"of {args.timer_batch}, waits of at most {args.timer_max_wait:g} s (setup {made:.1f} s; load average "
        f"{os.getloadavg()[0]:.1f})"
    )
    print(
        f"lateness: p50 {statistics.median(values):.3f} s, p99 {percentile(values, 0.99):.3f} s, "
        f"worst {max(values):.3f} s, over {len(values)} deadlines"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

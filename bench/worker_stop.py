"""Workers stop (issue 36): start and SIGTERM ``domino-worker`` processes of every kind, half of them busy, beside
two CPU-bound processes, and print how long each took to exit, the worst, and every failure.

    python bench/worker_stop.py [--rounds 20] [--hogs 2]

Method: a private Redis; ``--hogs`` processes spinning on the CPU (on this 2-core machine, the workers get what
the scheduler leaves them); then ``--rounds`` rounds of one worker of each kind as domino-serve runs them
(``bots --sweep``, ``bots``, ``bot-games`` at nice 10, ``webhooks``, ``simulations``, ``archive``: 6 stops a
round, 120 by default), each kind busy in every other round. A round starts the processes together, waits
until each is registered on its queue and catches SIGTERM, makes the busy ones busy (short jobs of 0.3 s on the
non-forking kinds; a 120 s job on ``simulations``), sends SIGTERM to all and times each exit, watching all
every 5 ms (tests/workers/worker_stops.py, as test_worker_stop.py does). Default settings (a long job's grace:
3 s). A stop fails when the worker is still running 10 s after SIGTERM, exits with a code other than 0, stays
registered, leaves a work horse or a started job behind, did not finish its short job, or did not put its long
job back at the front of its queue. Figures: median, 90th percentile and worst of the stop times, per kind and
overall; the load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "workers")]

import redis  # noqa: E402
from worker_stops import KINDS, Outcome, cpu_hogs, end_hogs, stop_together  # noqa: E402

from workers.redis_server import RedisServer  # noqa: E402


def summary(label: str, outcomes: list[Outcome]) -> str:
    times = sorted(o.seconds for o in outcomes if o.seconds is not None)
    failed = sum(not o.ok for o in outcomes)
    if not times:
        return f"{label:<18} {len(outcomes):>4} stops, {failed} failed, none within the ceiling"
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    worst = "> 10 s (killed)" if len(times) < len(outcomes) else f"{times[-1]:.2f} s"
    return (
        f"{label:<18} {len(outcomes):>4} stops, {failed} failed; median {statistics.median(times):.2f} s, "
        f"p90 {p90:.2f} s, worst {worst}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20, help="rounds of one worker of each kind (default 20)")
    parser.add_argument(
        "--hogs",
        type=int,
        default=2,
        help="CPU-bound processes beside the workers (default 2)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="worker-stop-") as folder:
        server = RedisServer(folder, persistent=False)
        url = server.start()
        hogs = cpu_hogs(args.hogs)
        outcomes: list[Outcome] = []
        try:
            conn = redis.Redis.from_url(url)
            for i in range(args.rounds):
                plan = [(kind, (i + j) % 2 == 0) for j, kind in enumerate(KINDS)]
                for outcome in stop_together(url, conn, plan):
                    outcomes.append(outcome)
                    if not outcome.ok:
                        print(f"FAILED {outcome}", flush=True)
        finally:
            end_hogs(hogs)
            server.stop()
    one, five, _ = os.getloadavg()
    print(
        f"\n{len(outcomes)} stops beside {args.hogs} CPU-bound processes; load {one:.2f}/{five:.2f} (1/5 min) "
        f"on {os.cpu_count()} cores"
    )
    for kind in KINDS:
        for busy in (False, True):
            picked = [o for o in outcomes if o.kind == kind and o.busy == busy]
            if picked:
                print(summary(f"{kind} {'busy' if busy else 'idle'}", picked))
    print(summary("all", outcomes))
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())

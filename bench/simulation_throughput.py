"""Simulation throughput (issue 6): a 100,000-game simulation through the service with 1 and 2 worker processes,
and the service's speed against the engine's own playout in one process.

    nice python bench/simulation_throughput.py [--games 100000] [--runs 1] [--raw-games 20000] [--raw-runs 3]

Scenario: 2-player draw (the preset, matches to 100), greedy against random, seeded, independent mode.

- Service: a private Redis (or ``DOMINO_REDIS_URL``), N ``domino-worker simulations`` processes (forking RQ
  workers, as deployed) started and registered first; then ``POST /v1/simulations`` (the Flask app in this
  process) and ``GET`` every 0.2 s until ``finished``. The time is the record's ``finished_at - created_at``
  (Redis' clock: queueing, every chunk, every count), so games/s = games / that time.
- Raw engine: ``domino.playout`` on the same matches (same deal seeds and bots' generators), in this process,
  timed with the wall clock and with the CPU clock.
- Overhead: service games/s with 1 worker / raw games/s. Also the same ratio in games per CPU second (the
  chunks' own ``process_time``), which the other load of a shared machine disturbs much less.
- Cores obtained: games/s divided by games per CPU second, i.e. how many cores the workers really had; the
  scaling per core obtained separates the service's own scaling from the machine's other load.

Each figure is the median of its runs; the load average is printed with each, because this machine has 2
cores shared with other work and 2 workers can only reach 2x when both cores are free.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import domino  # noqa: E402
from api.service.simulations import play  # noqa: E402
from api.service.simulations.spec import make_spec  # noqa: E402
from api.config import Settings  # noqa: E402

BODY = {"variant": "draw", "strategies": ["greedy", "random"], "seed": "bench-throughput", "duplicate": False}


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f} (1/5 min) on {os.cpu_count()} cores"


def raw_engine(settings: Settings, games: int) -> tuple[float, float]:
    """(games/s wall, games per CPU second) of domino.playout on the simulation's first ``games`` matches."""
    spec = make_spec(settings, BODY["variant"], BODY["strategies"], games, seed=BODY["seed"])
    rules = domino.Rules.from_dict(spec.rules)
    t0, c0 = time.perf_counter(), time.process_time()
    for d in range(games):
        domino.playout(rules, spec.lineup(0), play.game_seed(spec, d), rng=play.bots_rng(spec, d, 0))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return games / wall, games / cpu


def start_workers(n: int, env: dict[str, str], settings: Settings) -> list[subprocess.Popen[bytes]]:
    from rq import Queue, Worker

    from api.store import Store
    from api.queues import SERIALIZER

    cmd = [sys.executable, "-m", "workers.cli", "worker", "simulations", "--log-level", "WARNING"]
    procs = [subprocess.Popen(cmd, env=env, start_new_session=True) for _ in range(n)]
    store = Store(settings)
    queue = Queue(settings.simulations_queue, connection=store.rq_connection(), serializer=SERIALIZER)
    deadline = time.monotonic() + 60
    while Worker.count(connection=store.rq_connection(), queue=queue) < n:
        if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
            raise RuntimeError("the workers did not start")
        time.sleep(0.1)
    return procs


def stop_workers(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)  # warm shutdown: finish the current job (there is none left)
    for p in procs:
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def through_service(settings: Settings, workers: int, games: int) -> dict:  # type: ignore[type-arg]
    from api.app import create_app

    tag = uuid.uuid4().hex[:8]
    s = replace(settings, key_prefix=f"bench-{tag}", simulations_queue=f"simulations-bench-{tag}")
    env = {
        **os.environ,
        "DOMINO_REDIS_URL": s.redis_url,
        "DOMINO_KEY_PREFIX": s.key_prefix,
        "DOMINO_SIMULATIONS_QUEUE": s.simulations_queue,
    }
    procs = start_workers(workers, env, s)
    try:
        client = create_app({"DOMINO": s}).test_client()
        resp = client.post("/v1/simulations", json={**BODY, "games": games})
        assert resp.status_code == 202, resp.get_json()
        url = resp.headers["Location"]
        while True:
            sim = client.get(url).get_json()
            if sim["status"] != "queued" and sim["status"] != "running":
                break
            time.sleep(0.2)
        assert sim["status"] == "finished", sim
        fields, _ = client.application.extensions["domino.service"].store.simulations.load(sim["id"])
        sim["_total_seconds"] = float(fields["finished_at"]) - float(fields["created_at"])
        return sim  # type: ignore[no-any-return]
    finally:
        stop_workers(procs)


def raw_runs(settings: Settings, runs: int, games: int) -> tuple[float, float]:
    """The raw engine's medians over ``runs`` runs of ``games``: games per second, wall and CPU."""
    raw_wall, raw_cpu = [], []
    for i in range(runs):
        w, c = raw_engine(settings, games)
        raw_wall.append(w)
        raw_cpu.append(c)
        print(f"raw playout run {i + 1}: {w:8.1f} games/s wall, {c:8.1f} games per CPU s   [{load()}]")
    return statistics.median(raw_wall), statistics.median(raw_cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=1, help="runs of each service measurement (median)")
    parser.add_argument("--raw-games", type=int, default=20_000)
    parser.add_argument("--raw-runs", type=int, default=3)
    args = parser.parse_args()

    server = None
    url = os.environ.get("DOMINO_REDIS_URL")
    if not url:
        from workers.redis_server import RedisServer

        server = RedisServer(Path(tempfile.mkdtemp(prefix="bench-redis-")), persistent=False)
        url = server.start()
    settings = replace(Settings.from_env(), redis_url=url)
    try:
        print(f"simulation throughput: {BODY['variant']} 2 players, greedy vs random; python {sys.version.split()[0]}")
        spec = make_spec(settings, BODY["variant"], BODY["strategies"], args.games, seed=BODY["seed"])
        print(f"{args.games} games in {spec.chunks} chunks of {spec.chunk_deals} (target {settings.simulation_chunk_seconds} s each)\n")

        raw, raw_c = raw_runs(settings, args.raw_runs, args.raw_games)

        rates: dict[int, list[float]] = {1: [], 2: []}
        cpu_rates: dict[int, list[float]] = {1: [], 2: []}
        for run in range(args.runs):
            for workers in (1, 2):
                sim = through_service(settings, workers, args.games)
                rate = sim["games_done"] / sim["_total_seconds"]
                cpu_rate = sim["games_done"] / sim["worker_cpu_seconds"]
                rates[workers].append(rate)
                cpu_rates[workers].append(cpu_rate)
                print(
                    f"service, {workers} worker{'s' if workers > 1 else ' '} run {run + 1}: {rate:8.1f} games/s "
                    f"({sim['games_done']} games in {sim['_total_seconds']:.1f} s, {sim['chunks_total']} chunks), "
                    f"{cpu_rate:8.1f} games per worker CPU s   [{load()}]"
                )
        one, two = statistics.median(rates[1]), statistics.median(rates[2])
        one_c = statistics.median(cpu_rates[1])
        # games/s divided by games per CPU second = the CPU cores the workers actually got on average.
        cores = {w: statistics.median(r / c for r, c in zip(rates[w], cpu_rates[w])) for w in (1, 2)}
        print(
            f"\nmethod: medians of {args.runs} service run(s) of {args.games} games per worker count and of "
            f"{args.raw_runs} raw runs of {args.raw_games} games"
        )
        print(f"raw engine (domino.playout, one process): {raw:8.1f} games/s, {raw_c:8.1f} games per CPU s")
        print(f"service, 1 worker:                        {one:8.1f} games/s")
        print(f"service, 2 workers:                       {two:8.1f} games/s")
        print(f"2 workers / 1 worker:                     {two / one:8.2f}x   (target >= 1.8x)")
        print(f"service 1 worker / raw engine (wall):     {one / raw:8.1%}   (target >= 80%)")
        print(f"service / raw engine (per CPU second):    {one_c / raw_c:8.1%}")
        print(f"cores the workers got (games/s / games per CPU s): 1 worker {cores[1]:.2f}, 2 workers {cores[2]:.2f}")
        print(f"2 workers / 1 worker per core obtained:   {(two / cores[2]) / (one / cores[1]):8.2f}x")
        print(f"[{load()}]")
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

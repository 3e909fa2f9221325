"""Archiving throughput: finished two-player draw games moved from Redis to the archive, one worker.

Starts a private redis-server (127.0.0.1, a free port, no persistence) and the archive: a SQLite file in a
temporary folder and, when PostgreSQL is installed, a private cluster (tests/postgres_cluster.py). Plays a
few one-round games of two human seats through ``Service`` to their end (as the API stores them), then makes
``--games`` finished games by copying their Redis keys under new ids (the same document, rounds and events:
the bytes a real game leaves), each marked due as an ending commit marks it. Then one process drains the due
set with ``Service.archive_games`` (the job's code: lease a batch, read the games, render their records,
write the batch in one transaction, flag them and set their grace expiry, clear the entries) until nothing is
due. Each run uses fresh games; prints games per second per run (wall time, and this process's CPU time: on a
shared machine the wall figure falls with the load, the CPU one much less; the database's and Redis's own CPU
are not in it; then with Redis's own CPU seconds added, as Redis counts them: on an idle machine of two cores
the two run side by side, the database's work is in the process for SQLite; and the wall time less the time
the process waited, runnable, for a CPU (/proc's schedstat): the rest is its own work and its waits on Redis
and the database; for PostgreSQL, the server's own CPU time too, read from /proc for the cluster's processes:
the database's work a game, which the load hardly changes), the median and the range over ``--runs``, and the
load average.

    python bench/archive.py [--games 2001] [--runs 3] [--batch 500] [--dialects sqlite,postgresql]

With ``--reads`` it measures reads of archived games instead (bench/archive_reads.py says how):

    python bench/archive.py --reads [--sizes 25000,250000] [--requests 1000] [--runs 3] [--dialects ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import domino  # noqa: E402
from api.archive import Archive  # noqa: E402
from api.config import Settings  # noqa: E402
from api.service.create import GameRequest  # noqa: E402
from api.service.security import new_id  # noqa: E402
from api.service.service import Service  # noqa: E402
from workers.cli import settle_heap  # noqa: E402
from workers.redis_server import RedisServer  # noqa: E402

from archive_reads import add_arguments, reads, report  # noqa: E402

TEMPLATES = 8
FIGURES = {
    "wall": "games/s",
    "cpu": "per CPU second of the archiving process",
    "with redis": "of it and Redis together",
    "unqueued": "wall time less the waits for a CPU",
    "with server": "of it, Redis and the database server together",
    "server us": "the server's CPU microseconds a game",
}
SERVER_FIGURES = ("with server", "server us")


def play_one(service: Service) -> str:
    request = GameRequest("draw", [{"name": "Ana"}, {"name": "Bo"}], rules={"match_end": "fixed_rounds", "rounds": 1})
    _view, tokens, _v, game_id = service.create_game(request, "127.0.0.1")
    by_seat = {t["seat"]: t["token"] for t in tokens}
    while True:
        game = service.games.read(game_id)
        if game.state.finished:
            return game_id
        move = domino.legal_moves(game.state)[0]
        service.play_move(game_id, move.to_dict(), by_seat[game.state.to_move])


def copies(service: Service, templates: list[str], n: int) -> None:
    """``n`` finished games copied from ``templates`` under new ids, each marked due for the archive."""
    store = service.store
    whole = store.whole_games.load(templates)
    pipe = store.redis.pipeline(transaction=False)
    ids = []
    for i in range(n):
        source = whole[templates[i % len(templates)]]
        game_id = new_id()
        ids.append(game_id)
        doc = {**source.doc, "id": game_id}
        state = store.games.state_key(game_id)
        pipe.hset(state, mapping={"v": source.version, "doc": orjson.dumps(doc), "r": b"".join(orjson.dumps(r) + b"\n" for r in source.rounds)})
        for sid, event in source.events:
            pipe.xadd(store.games.events_key(game_id), {"e": orjson.dumps(event)}, id=sid)
        if len(pipe) > 5000:
            pipe.execute()
    pipe.execute()
    store.archive_due.mark_many(ids, 0.0)


def one_dialect(name: str, url: str, redis_url: str, args: argparse.Namespace, server_cpu: Callable[[], float] | None) -> dict[str, list[float]]:
    """Per run: games/s of wall time, per CPU second of this process, of it and Redis (and of the database
    server, ``server_cpu``: its CPU seconds so far, None when the database is in this process), and of the
    wall time less the waits for a CPU; and the server's CPU microseconds a game."""
    archive = Archive(url)
    archive.migrate()
    settings = Settings(redis_url=redis_url, key_prefix=f"bench-{name}", archive_url=url, archive_batch=args.batch)
    service = Service(settings, archive=archive)
    templates = [play_one(service) for _ in range(TEMPLATES)]
    service.store.archive_due.clear_many(templates)
    settle_heap()  # as domino-worker does once its Service is built
    out: dict[str, list[float]] = {k: [] for k in FIGURES if server_cpu is not None or k not in SERVER_FIGURES}
    n = args.games
    for run in range(args.runs):
        copies(service, templates, n)
        before = archive.count()
        server = server_cpu() if server_cpu else 0.0
        start, cpu, redis_cpu, queued = time.perf_counter(), time.process_time(), redis_seconds(service), runqueue_seconds()
        while service.store.archive_due.count_due() > 0:
            service.archiving.drain()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        redis_cpu, queued = redis_seconds(service) - redis_cpu, runqueue_seconds() - queued
        server = (server_cpu() if server_cpu else 0.0) - server
        assert archive.count() - before == n, "every game archived once"
        figures = [n / elapsed, n / cpu, n / (cpu + redis_cpu), n / (elapsed - queued), n / (cpu + redis_cpu + server), server / n * 1e6]
        for key, value in zip(out, figures):
            out[key].append(value)
        said = f"; the server's {server:.2f} s = {figures[-1]:.0f} us a game" if server_cpu else ""
        print(
            f"{name}: run {run + 1}: {n} games in {elapsed:.2f} s = {figures[0]:,.0f} games/s "
            f"({cpu:.2f} s of CPU = {figures[1]:,.0f} games per CPU second; with Redis's {redis_cpu:.2f} s: "
            f"{figures[2]:,.0f}{said}); {queued:.2f} s of it waiting for a CPU: {figures[3]:,.0f} games/s without",
            flush=True,
        )
    archive.dispose()
    return out


def runqueue_seconds() -> float:
    """How long this process's main thread has waited, runnable, for a CPU (the kernel's schedstat): what the
    machine's load adds to its wall time."""
    return int(Path("/proc/thread-self/schedstat").read_text().split()[1]) / 1e9


def redis_seconds(service: Service) -> float:
    """The CPU seconds Redis has used (its own count: user and system, all its threads)."""
    info = service.store.redis.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2001)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--dialects", default="sqlite,postgresql")
    add_arguments(parser)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="domino-bench-archive-"))
    redis = RedisServer(folder / "redis", persistent=False)
    redis_url = redis.start()
    cluster = None
    try:
        results = {}
        for name in args.dialects.split(","):
            server_cpu = None  # SQLite's work is in this process
            if name == "sqlite":
                url = f"sqlite:///{folder / 'archive.sqlite3'}"
            else:
                from postgres_cluster import PostgresCluster, binaries

                found = binaries()
                if found is None:
                    print("postgresql: not installed, skipped")
                    continue
                cluster = PostgresCluster(found)
                cluster.create()
                url = cluster.start()
                server_cpu = cluster.cpu_seconds
            if args.reads:
                results[name] = reads(name, redis_url, url, [int(n) for n in args.sizes.split(",")], args.runs, args.requests, server_cpu)
            else:
                results[name] = one_dialect(name, url, redis_url, args, server_cpu)
        if args.reads:
            print(f"\nReads of archived games over 100 apps, {args.requests} requests of each kind per run, {args.runs} runs:")
            for name, out in results.items():
                report(name, out)
            print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
            return
        print(f"\n{args.games} finished one-round draw games per run, batches of {args.batch}, one process, {args.runs} runs:")
        for name, figures in results.items():
            said = ";  ".join(
                f"{FIGURES[k]}: median {statistics.median(v):,.0f}  [min {min(v):,.0f}, max {max(v):,.0f}]" for k, v in figures.items()
            )
            print(f"  {name:10s} {said}")
        print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
    finally:
        if cluster is not None:
            cluster.remove()
        redis.stop()


if __name__ == "__main__":
    main()

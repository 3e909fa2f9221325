"""Abuse (issue 32, item 3): Redis filled to its ``maxmemory`` by a flood of games. 127.0.0.0/8 only; bounded.

Starts a private ``redis-server`` (``--maxmemory``, default 16mb, policy ``noeviction``, as domino-serve's
own) and ``domino-serve`` on it (``bench/abuse.py``'s ``Served``), with the rate limit and the games per
client raised for the flood. Each of ``--runs`` runs:

1. the flood: ``--flooders`` connections create games of two humans (``POST /v1/games``, ~7 KB each in Redis)
   until Redis refuses writes (503 ``storage-full``);
2. while it is full, a human in a game against a ``greedy`` computer player posts its move ``--moves``
   times: each answer's time and status (503 ``storage-full`` expected), and the game's view (a read: 200);
   ``/readyz`` (503 expected);
3. memory freed (the flood's games deleted from Redis, as an operator, their expiry or the archive would):
   the time until the same move is accepted, the client trying it again every 50 ms, and until the computer
   player's reply is seen on the game's events.

Then whether every process domino-serve started (the API and each worker) is still the same process, alive.
Figures: median over the runs of each run's p50 and p99 (with the runs' range), and each run's times to
resume.

    python bench/abuse_full_redis.py [--maxmemory 16mb] [--runs 3] [--moves 200] [--flooders 4]
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import redis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from abuse import HOST, ROOT, Served, call, new_game, pct  # noqa: E402

sys.path.insert(0, str(ROOT))
from workers.redis_server import RedisServer  # noqa: E402

PREFIX = "dom"


def children(pid: int) -> dict[int, str]:
    """domino-serve's processes: command lines by pid."""
    out = {}
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        try:
            out[int(child)] = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()[-60:]
        except OSError:
            pass
    return out


def flood(port: int, flooders: int) -> tuple[list[str], float]:
    """Games of two humans from ``flooders`` connections until each is refused with 503: (their ids, seconds)."""
    made: list[str] = []
    lock = threading.Lock()
    body = {"variant": "draw", "seats": [{"name": "A"}, {"name": "B"}]}

    def one() -> None:
        conn = http.client.HTTPConnection(HOST, port, timeout=30)
        while True:
            status, data = call(port, "POST", "/v1/games", body, conn=conn)
            if status == 503:
                assert data["type"] == "/problems/storage-full", data
                break
            assert status == 201, (status, data)
            with lock:
                made.append(data["game"]["id"])
        conn.close()

    t0 = time.perf_counter()
    threads = [threading.Thread(target=one) for _ in range(flooders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return made, time.perf_counter() - t0


def human_to_move(port: int) -> dict[str, Any]:
    """A game of a human and a ``greedy`` computer player, at the human's turn: id, auth, the view."""
    created = new_game(port, [{"name": "Ana"}, {"bot": "greedy"}])
    game = {"id": created["game"]["id"], "auth": {"Authorization": f"Bearer {created['tokens'][0]['token']}"}}
    for _ in range(600):
        _, view = call(port, "GET", f"/v1/games/{game['id']}", headers=game["auth"])
        if view["turn"] == 0:
            return {**game, "view": view}
        time.sleep(0.05)
    raise RuntimeError("the computer player did not move")


def while_full(port: int, game: dict[str, Any], moves: int) -> tuple[list[float], list[float], dict[int, int]]:
    """The human's move posted ``moves`` times, and the view read as often: (move times, read times, statuses)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    view = game["view"]
    move = {**view["legal_moves"][0], "expected_version": view["version"]}
    writes, reads, statuses = [], [], {}
    for _ in range(moves):
        t0 = time.perf_counter()
        status, _ = call(port, "POST", f"/v1/games/{game['id']}/moves", move, game["auth"], conn=conn)
        writes.append(time.perf_counter() - t0)
        statuses[status] = statuses.get(status, 0) + 1
        t0 = time.perf_counter()
        status, _ = call(port, "GET", f"/v1/games/{game['id']}", headers=game["auth"], conn=conn)
        reads.append(time.perf_counter() - t0)
        assert status == 200, status
    conn.close()
    return writes, reads, statuses


def resume(port: int, game: dict[str, Any], conn: redis.Redis, flooded: list[str]) -> tuple[float, float]:
    """Free the flood's memory; seconds until the human's move is accepted, and until the reply is seen."""
    view = game["view"]
    move = {**view["legal_moves"][0], "expected_version": view["version"]}
    for i in range(0, len(flooded), 500):
        keys = [k for gid in flooded[i : i + 500] for k in conn.scan_iter(match=f"{PREFIX}:{{{gid}}}:*", count=1000)]
        conn.unlink(*keys) if keys else None
    freed = time.perf_counter()
    while True:
        status, answer = call(port, "POST", f"/v1/games/{game['id']}/moves", move, game["auth"])
        if status == 200:
            break
        time.sleep(0.05)
    accepted = time.perf_counter() - freed
    cursor = answer["version"] if "version" in answer else answer["game"]["version"]
    while True:
        _, page = call(port, "GET", f"/v1/games/{game['id']}/events?after={cursor - 1}&wait=10", headers=game["auth"])
        turns = [e for e in page["events"] if e["type"] == "turn_started"]
        if page["ended"] or (turns and turns[-1]["seat"] == 0):
            return accepted, time.perf_counter() - freed
        cursor = page["last_version"] + 1


def line(label: str, runs: list[list[float]]) -> str:
    p50s, p99s = [pct(r, 50) for r in runs], [pct(r, 99) for r in runs]
    return (
        f"{label:<40} p50 {statistics.median(p50s):6.2f} ms (runs {min(p50s):.2f}-{max(p50s):.2f})"
        f"   p99 {statistics.median(p99s):6.2f} ms (runs {min(p99s):.2f}-{max(p99s):.2f})   n={sum(map(len, runs))}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--maxmemory", default="16mb")
    parser.add_argument("--runs", type=int, default=3, choices=range(1, 11), metavar="1..10")
    parser.add_argument("--moves", type=int, default=200, choices=range(10, 5001), metavar="10..5000")
    parser.add_argument("--flooders", type=int, default=4, choices=range(1, 33), metavar="1..32")
    args = parser.parse_args()

    folder = tempfile.mkdtemp(prefix="domino-full-")
    server = RedisServer(Path(folder) / "redis", persistent=False, maxmemory=args.maxmemory)
    url = server.start()
    conn = redis.Redis.from_url(url)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOMINO_")}
    env.update(
        DOMINO_REDIS_URL=url, DOMINO_RATE_LIMIT="1000000/60", DOMINO_GAMES_PER_CLIENT="0",
        DOMINO_FINISHED_GAMES_PER_CLIENT="0", DOMINO_LOG_LEVEL="WARNING", DOMINO_ARCHIVE_URL=f"sqlite:///{folder}/a.sqlite3",
    )  # fmt: skip
    started = time.monotonic()
    served = Served(env)
    port = served.port
    writes, reads, figures = [], [], []
    try:
        before = children(served.proc.pid)
        for _ in range(args.runs):
            game = human_to_move(port)
            flooded, took = flood(port, args.flooders)
            w, r, statuses = while_full(port, game, args.moves)
            ready = call(port, "GET", "/readyz")[0]
            accepted, replied = resume(port, game, conn, flooded)
            writes.append(w)
            reads.append(r)
            figures.append((len(flooded), took, statuses, ready, accepted, replied))
        after = children(served.proc.pid)
    finally:
        served.stop()
        server.stop()

    print(f"domino-serve defaults on a redis-server of maxmemory {args.maxmemory} (noeviction), {args.runs} runs, "
          f"{args.flooders} flooding connections; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")  # fmt: skip
    print(line("move while Redis is full (503)", writes))
    print(line("view while Redis is full (200)", reads))
    for i, (n, took, statuses, ready, accepted, replied) in enumerate(figures, 1):
        print(
            f"run {i}: {n} games filled it in {took:.1f} s; moves answered {statuses}; /readyz {ready}; freed: move "
            f"accepted after {accepted:.2f} s, computer reply seen after {replied:.2f} s"
        )
    same = set(before) == set(after)
    gone = {pid: cmd for pid, cmd in before.items() if pid not in after}
    print(f"processes: {len(before)} before, {len(after)} after: {'the same ones, alive' if same else f'GONE {gone}'}")
    print("targets: moves answer 503 within 10 ms (p50 and p99), no process dies, play resumes within 5 s of memory freed")
    print(f"elapsed {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Abuse (issue 32, item 3): Redis filled to its ``maxmemory`` by a flood of games. 127.0.0.0/8 only; bounded.

Starts a private ``redis-server`` (``--maxmemory``, default 16mb, policy ``noeviction``, as domino-serve's
own) and ``domino-serve`` on it (``bench/served.py``), with the rate limit and the games per
client raised for the flood. Each of ``--runs`` runs:

1. the flood: ``--flooders`` connections create games of two humans (``POST /v1/games``, ~7 KB each in Redis)
   until Redis refuses writes (503 ``storage-full``), and go on meanwhile (a create that finds a moment's
   room gets in);
2. while it is full, a human in a game against a ``greedy`` computer player posts its move ``--moves``
   times: each answer's time and status (503 ``storage-full`` expected), and the game's view (a read: 200);
   ``/readyz`` (503 expected);
3. the flood stopped, memory freed (its games deleted from Redis, as an operator, their expiry or the
   archive would):
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
import multiprocessing
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import redis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from served import HOST, Served, call, new_game, pct, serve_env  # noqa: E402
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


class Flood:
    """Games of two humans from ``flooders`` connections, each until it is refused (503 ``storage-full``), then
    on (the attack goes on, and Redis stays at its limit) until ``stop``. The connections run in a process of
    their own: in this one they would share the measured client's GIL, and its times would count their turns."""

    def __init__(self, port: int, flooders: int) -> None:
        context = multiprocessing.get_context("fork")
        self.refused, self.stopping = context.Event(), context.Event()
        self.made_out, made_in = context.Pipe(duplex=False)
        self.process = context.Process(target=flood, args=(port, flooders, self.refused, self.stopping, made_in))
        t0 = time.perf_counter()
        self.process.start()
        self.refused.wait()  # every connection refused once: Redis is full
        self.took = time.perf_counter() - t0
        self.made: list[str] = []

    def stop(self) -> None:
        self.stopping.set()
        self.made = self.made_out.recv()
        self.process.join()


def flood(port: int, flooders: int, refused: Any, stopping: Any, made_in: Any) -> None:
    """The flooding process: ``flooders`` threads, ``refused`` set once each has been refused, the ids of the
    games made sent on ``made_in`` once ``stopping`` is set."""
    made: list[str] = []
    lock, barrier = threading.Lock(), threading.Barrier(flooders, action=refused.set)

    def one() -> None:
        conn = http.client.HTTPConnection(HOST, port, timeout=30)
        body = {"variant": "draw", "seats": [{"name": "A"}, {"name": "B"}]}
        waited = False
        while not stopping.is_set():
            status, data = call(port, "POST", "/v1/games", body, conn=conn)
            if status == 201:
                with lock:
                    made.append(data["game"]["id"])
                continue
            assert status == 503 and data["type"] == "/problems/storage-full", (status, data)
            if not waited:
                waited = True
                barrier.wait()
        conn.close()

    threads = [threading.Thread(target=one) for _ in range(flooders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    made_in.send(made)


def human_to_move(port: int, game: dict[str, Any] | None = None, seconds: float = 60.0) -> dict[str, Any]:
    """A game of a human and a ``greedy`` computer player (a new one unless given), once it is the human's
    turn (or over): id, auth, its view."""
    if game is None:
        created = new_game(port, [{"name": "Ana"}, {"bot": "greedy"}])
        game = {"id": created["game"]["id"], "auth": {"Authorization": f"Bearer {created['tokens'][0]['token']}"}}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        _, view = call(port, "GET", f"/v1/games/{game['id']}", headers=game["auth"])
        if view["turn"] == 0 or view["status"] != "playing":
            return {**game, "view": view}
        time.sleep(0.01)
    raise RuntimeError("the computer player did not move")


def try_move(port: int, game: dict[str, Any], conn: Any = None) -> int:
    """The human's first legal move, at the version it last read; its status."""
    view = game["view"]
    move = {**view["legal_moves"][0], "expected_version": view["version"]}
    return call(port, "POST", f"/v1/games/{game['id']}/moves", move, game["auth"], conn=conn)[0]


def while_full(port: int, game: dict[str, Any], moves: int) -> tuple[list[float], list[float], dict[int, int]]:
    """The human's move posted ``moves`` times, its view read after each: (move times, read times, statuses).
    A move that got in (Redis had a moment's room) is counted as such; the same one is posted again meanwhile."""
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    writes: list[float] = []
    reads: list[float] = []
    statuses: dict[int, int] = {}
    for _ in range(moves):
        t0 = time.perf_counter()
        status = try_move(port, game, conn)
        writes.append(time.perf_counter() - t0)
        statuses[status] = statuses.get(status, 0) + 1
        t0 = time.perf_counter()
        read, view = call(port, "GET", f"/v1/games/{game['id']}", headers=game["auth"], conn=conn)
        reads.append(time.perf_counter() - t0)
        assert read == 200, read
        if view.get("legal_moves"):
            game["view"] = view  # else a move got in, and the reply waits for room: the same move again
    conn.close()
    return writes, reads, statuses


def resume(port: int, game: dict[str, Any], conn: redis.Redis, flooded: list[str]) -> tuple[float, float]:
    """Free the flood's memory; seconds until the human's move is accepted (tried every 50 ms), and until the
    computer player's reply is seen."""
    ids = {f"{{{gid}}}".encode() for gid in flooded}
    keys = [k for k in conn.scan_iter(match=f"{PREFIX}:{{*", count=5000) if k.split(b":")[1] in ids]
    for i in range(0, len(keys), 1000):
        conn.unlink(*keys[i : i + 1000])
    freed = time.perf_counter()
    while try_move(port, game, None) != 200:
        time.sleep(0.05)
        game.update(human_to_move(port, game))
    accepted = time.perf_counter() - freed
    game.update(human_to_move(port, game))  # the reply: the human to move again, or the game over
    return accepted, time.perf_counter() - freed


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
    env = serve_env(
        DOMINO_REDIS_URL=url, DOMINO_RATE_LIMIT="1000000/60", DOMINO_GAMES_PER_CLIENT="0",
        DOMINO_FINISHED_GAMES_PER_CLIENT="0", DOMINO_ARCHIVE_URL=f"sqlite:///{folder}/a.sqlite3",
    )  # fmt: skip
    started = time.monotonic()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # a timeout's SIGTERM still stops the servers
    served = Served(env)
    port = served.port
    writes, reads, figures = [], [], []
    try:
        before = children(served.proc.pid)
        for _ in range(args.runs):
            game = human_to_move(port)
            attack = Flood(port, args.flooders)
            w, r, statuses = while_full(port, game, args.moves)
            ready = call(port, "GET", "/readyz")[0]
            attack.stop()
            accepted, replied = resume(port, game, conn, attack.made)
            writes.append(w)
            reads.append(r)
            figures.append((len(attack.made), attack.took, statuses, ready, accepted, replied))
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

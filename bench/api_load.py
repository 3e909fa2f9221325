"""Load: concurrent clients playing complete games against each other over HTTP (issue 8).

Production configuration on 127.0.0.1: a private redis-server, gunicorn sync workers serving the API (rate
limits on, with a limit the bench cannot reach, so their cost is counted; metrics in multiprocess mode), a
gthread gunicorn for event streams and long polls, a bots worker with the sweep. Clients come in pairs: one
creates a two-seat game, both play it to the end, then start another, until the time is up. Each seat reads
its view, then follows the game's events (``--wait sse``, the default: one Server-Sent Events stream per seat;
or ``--wait longpoll``) and, when ``turn_started`` names it, posts one of the legal moves that event carries
with ``expected_version`` and ``Prefer: return=minimal`` (it has no use for its view between turns). ``--wait poll`` is the naive client instead: it polls its view with
``If-None-Match`` every 2 ms and moves when the view lists legal moves. The server's CPU time per move (and per request) is measured from /proc, so that the comparison with
the bare endpoint does not depend on the load generator sharing the cores. Then the same clients hit a bare Flask endpoint
doing one Redis GET and SET of a 2 KB JSON document under the same gunicorn configuration.

    python bench/api_load.py [--clients 32] [--seconds 20] [--api-workers 2] [--wait sse|longpoll|poll] [--floor] [--runs 1]

Prints moves/s, p50/p95/p99 latency of a move and of a view (and, following events, from a move sent to
the other seat told that it is its turn), errors, the bare endpoint's requests/s and the
ratio, how busy the machine was, the load generator's CPU per move, and the load average (the machine is
shared). ``--floor`` plays the same clients against bench/floor_app.py, a move with no rules: the most the API
could reach on this stack.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] * 1000


def request(port: int, method: str, path: str, body: object = None, headers: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    data = None if body is None else json.dumps(body)
    h = dict(headers or {})
    if data is not None:
        h["Content-Type"] = "application/json"
    t0 = time.perf_counter()
    conn.request(method, path, body=data, headers=h)
    resp = conn.getresponse()
    raw = resp.read()
    elapsed = time.perf_counter() - t0
    conn.close()
    return resp.status, raw, elapsed


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.moves: list[float] = []
        self.views: list[float] = []
        self.errors: list[str] = []
        self.games = 0
        self.requests = 0
        self.polls = 0  # long polls, or events received over SSE
        self.turns: list[float] = []  # a move sent -> the other seat told it is its turn (events only)

    def add(self, kind: str, elapsed: float) -> None:
        with self.lock:
            getattr(self, kind).append(elapsed)
            self.requests += 1


def start_server(app: str, port: int, workers: int, env: dict[str, str], threads: int = 0) -> subprocess.Popen[bytes]:
    extra = ["--worker-class", "gthread", "--threads", str(threads)] if threads else []
    return subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", str(workers), "--bind", f"127.0.0.1:{port}", *extra,
         "--no-control-socket", "--log-level", "warning", "--pythonpath", str(ROOT / "bench"), app],
        env=env, cwd=ROOT, start_new_session=True,
    )  # fmt: skip


def pids_of(proc: subprocess.Popen[bytes]) -> list[int]:
    """A gunicorn master and its workers (or any process and its children)."""
    path = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    children = [int(p) for p in path.read_text().split()] if path.exists() else []
    return [proc.pid, *children]


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes (Linux /proc)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of all cores since boot (Linux /proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)


def busy_share(before: tuple[float, float], after: tuple[float, float]) -> float:
    return (after[0] - before[0]) / max(1, after[1] - before[1])


def wait_up(port: int, path: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if request(port, "GET", path)[0] in (200, 404, 405):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"server on {port} did not start")


STREAMS_PORT = 0  # the gthread server for long polls and event streams
WAIT = "sse"  # how a seat learns that it is its turn: sse, longpoll or poll


def play_pair(port: int, stats: Stats, stop: float, seed: int) -> None:
    """Two clients (two threads) playing games against each other until ``stop``."""
    rng = random.Random(seed)
    while time.monotonic() < stop:
        status, raw, _ = request(
            port, "POST", "/v1/games",
            {"variant": "draw", "seats": [{"name": "A"}, {"name": "B"}], "rules": {"match_end": "fixed_rounds", "rounds": 1}},
        )  # fmt: skip
        with stats.lock:
            stats.requests += 1
        if status != 201:
            stats.errors.append(f"create {status} {raw[:200]!r}")
            return
        created = json.loads(raw)
        game_id = created["game"]["id"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        done = threading.Event()
        posted: dict[int, float] = {}  # version a move will make -> when it was sent (for the turn latency)
        play = play_seat_polling if WAIT == "poll" else play_seat_following
        threads = [
            threading.Thread(target=play, args=(port, stats, stop, game_id, seat, tokens[seat], done, random.Random(rng.random()), posted))
            for seat in (0, 1)
        ]  # fmt: skip
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if done.is_set():
            with stats.lock:
                stats.games += 1


def post_move(port, stats, path, auth, move, version, posted, minimal=False):  # type: ignore[no-untyped-def]
    """Post ``move`` at ``version``; the seat's new view (only its version and status with ``minimal``:
    ``Prefer: return=minimal``), or None (an error, counted)."""
    move = {**move, "expected_version": version}
    posted[version + 1] = time.perf_counter()
    headers = {**auth, "Prefer": "return=minimal"} if minimal else auth
    status, raw, elapsed = request(port, "POST", f"{path}/moves", move, headers)
    if status != 200:
        stats.errors.append(f"move {status} {raw[:200]!r}")
        return None
    stats.add("moves", elapsed)
    return json.loads(raw)


def sse_events(port: int, path: str, headers: dict[str, str]):  # type: ignore[no-untyped-def]
    """The events of a Server-Sent Events stream, as dicts, as they arrive (None for a keep-alive)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={**headers, "Accept": "text/event-stream"})
    resp = conn.getresponse()
    if resp.status != 200:
        raise RuntimeError(f"events {resp.status} {resp.read()[:200]!r}")
    try:
        while True:
            line = resp.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                yield json.loads(line[6:])
            elif line.startswith(b":"):
                yield None
    finally:
        conn.close()


def long_poll_events(port: int, path: str, headers: dict[str, str], stats: Stats):  # type: ignore[no-untyped-def]
    after = -1
    while True:
        status, raw, _ = request(port, "GET", f"{path}/events?after={after}&wait=1", headers=headers)
        if status != 200:
            raise RuntimeError(f"events {status} {raw[:200]!r}")
        with stats.lock:
            stats.polls += 1
        page = json.loads(raw)
        yield from page["events"] or [None]  # None: the wait ran out
        after = page["last_version"]


def play_seat_following(port, stats, stop, game_id, seat, token, done, rng, posted) -> None:  # type: ignore[no-untyped-def]
    """Read the view once, then follow the game's events: move when ``turn_started`` names this seat, with
    one of the legal moves it carries (no view read in between)."""
    auth = {"Authorization": f"Bearer {token}"}
    path = f"/v1/games/{game_id}"
    status, raw, elapsed = request(port, "GET", path, headers=auth)
    stats.add("views", elapsed)
    if status != 200:
        stats.errors.append(f"view {status} {raw[:200]!r}")
        return
    json.loads(raw)
    events = sse_events(STREAMS_PORT, f"{path}/events", auth) if WAIT == "sse" else long_poll_events(STREAMS_PORT, path, auth, stats)
    try:
        for event in events:
            if time.monotonic() >= stop:
                return
            if event is None:
                continue
            if WAIT == "sse":
                with stats.lock:
                    stats.polls += 1
            if event["type"] == "game_ended":
                done.set()
                return
            if event["type"] == "turn_started" and event["seat"] == seat:
                sent = posted.get(event["version"])
                if sent is not None:
                    with stats.lock:
                        stats.turns.append(time.perf_counter() - sent)
                move = rng.choice(event["legal_moves"])
                if post_move(port, stats, path, auth, move, event["version"], posted, minimal=True) is None:
                    return
    except (OSError, RuntimeError) as exc:
        stats.errors.append(f"events {exc}")
    finally:
        events.close()


def play_seat_polling(port, stats, stop, game_id, seat, token, done, rng, posted) -> None:  # type: ignore[no-untyped-def]
    """Poll the view (``If-None-Match``: a 304 while nothing changed) every 2 ms; move when it is this seat's turn."""
    auth = {"Authorization": f"Bearer {token}"}
    path = f"/v1/games/{game_id}"
    etag = None
    view = None
    while time.monotonic() < stop and not done.is_set():
        headers = dict(auth)
        if etag and view is not None:
            headers["If-None-Match"] = etag
        status, raw, elapsed = request(port, "GET", path, headers=headers)
        stats.add("views", elapsed)
        if status == 200:
            view = json.loads(raw)
            etag = f'"{view["version"]}"'
        elif status != 304:
            stats.errors.append(f"view {status} {raw[:200]!r}")
            return
        while view is not None and view["status"] == "playing" and view["legal_moves"] and time.monotonic() < stop:
            view = post_move(port, stats, path, auth, rng.choice(view["legal_moves"]), view["version"], posted)
            if view is None:
                return
            etag = f'"{view["version"]}"'
        if view is not None and view["status"] != "playing":
            done.set()
            return
        time.sleep(0.002)  # the other seat is to move: poll again shortly


def bare_client(port: int, stop: float, key: str, out: list[float], errors: list[str]) -> None:
    while time.monotonic() < stop:
        status, raw, elapsed = request(port, "POST", f"/bare/{key}", {})
        if status != 200:
            errors.append(f"bare {status}")
            return
        out.append(elapsed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=32, help="clients (pairs play each other)")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--bare-seconds", type=float, default=10.0)
    parser.add_argument("--api-workers", type=int, default=2, help="gunicorn sync workers for REST")
    parser.add_argument("--runs", type=int, default=1, help="runs on the same servers; the medians are printed")
    parser.add_argument(
        "--wait", choices=("sse", "longpoll", "poll"), default="sse",
        help="how a seat learns that it is its turn: following the game's events (Server-Sent Events, or long "
        "polls) on the gthread streams server and moving on `turn_started`, which carries its legal "
        "moves; or polling its view with If-None-Match every 2 ms",
    )  # fmt: skip
    parser.add_argument(
        "--floor", action="store_true",
        help="serve bench/floor_app.py instead of the API: a move's Redis work and its event fan-out with no "
        "rules, auth, rate limit, metrics or schemas; its ratio bounds what the API can reach (with --wait sse)",
    )  # fmt: skip
    args = parser.parse_args()
    if args.floor and args.wait != "sse":
        parser.error("--floor serves event streams only: use it with --wait sse")

    from workers.redis_server import RedisServer, free_port

    with tempfile.TemporaryDirectory() as tmp:
        redis_server = RedisServer(Path(tmp) / "redis", persistent=False)
        url = redis_server.start()
        metrics_dir = Path(tmp) / "metrics"
        metrics_dir.mkdir()
        # Every client of the bench is 127.0.0.1: no rate limit or game cap to speak of.
        env = dict(
            os.environ, DOMINO_REDIS_URL=url, DOMINO_RATE_LIMIT="100000000/60", DOMINO_GAMES_PER_CLIENT="0",
            PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
        )  # fmt: skip
        env["DOMINO_KEEPALIVE_INTERVAL"] = "1"  # seats still waiting when the time is up notice within a second
        env["PYTHONPATH"] = str(ROOT)
        api_port, bare_port, streams_port = free_port(), free_port(), free_port()
        global STREAMS_PORT, WAIT
        STREAMS_PORT, WAIT = streams_port, args.wait
        app = "floor_app:app" if args.floor else "api.app:create_app()"
        procs = [
            start_server(app, api_port, args.api_workers, env),
            start_server(app, streams_port, 1, env, threads=64),
            start_server("bare_app:app", bare_port, args.api_workers, env),
            subprocess.Popen([sys.executable, "-m", "workers.cli", "worker", "bots", "--sweep", "--log-level", "WARNING"],
                             env=env, cwd=ROOT, start_new_session=True),
        ]  # fmt: skip
        try:
            wait_up(api_port, "/healthz")
            wait_up(bare_port, "/bare/x")
            parts = {
                "REST workers": pids_of(procs[0]),
                "streams server": pids_of(procs[1]),
                "Redis": [redis_server.process.pid],  # type: ignore[union-attr]
            }
            api_pids = [pid for pids in parts.values() for pid in pids]
            bare_pids = pids_of(procs[2]) + [redis_server.process.pid]  # type: ignore[union-attr]
            figures: list[dict[str, float]] = []
            ok = True
            for run in range(1, args.runs + 1):
                if args.runs > 1:
                    print(f"-- run {run} of {args.runs}")
                stats = Stats()
                cpu0 = cpu_seconds(api_pids)
                machine0, client0 = machine_busy(), os.times()
                part0 = {name: cpu_seconds(pids) for name, pids in parts.items()}
                t0 = time.monotonic()
                stop = t0 + args.seconds
                pairs = [threading.Thread(target=play_pair, args=(api_port, stats, stop, i)) for i in range(args.clients // 2)]
                for t in pairs:
                    t.start()
                for t in pairs:
                    t.join(args.seconds + 30)
                elapsed = min(time.monotonic() - t0, args.seconds)  # no move or view starts after the stop
                load_game = os.getloadavg()
                api_cpu = cpu_seconds(api_pids) - cpu0
                machine_game, client_game = busy_share(machine0, machine_busy()), os.times()
                client_game_cpu = client_game.user + client_game.system - client0.user - client0.system
                part_cpu = {name: cpu_seconds(pids) - part0[name] for name, pids in parts.items()}
                bare_cpu0 = cpu_seconds(bare_pids)
                machine0, client0 = machine_busy(), os.times()

                bare: list[float] = []
                bare_errors: list[str] = []
                b0 = time.monotonic()
                bstop = b0 + args.bare_seconds
                threads = [threading.Thread(target=bare_client, args=(bare_port, bstop, f"k{i}", bare, bare_errors)) for i in range(args.clients)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join(args.bare_seconds + 30)
                belapsed = time.monotonic() - b0
                load_bare = os.getloadavg()
                bare_cpu = cpu_seconds(bare_pids) - bare_cpu0
                machine_bare, client_bare = busy_share(machine0, machine_busy()), os.times()
                client_bare_cpu = client_bare.user + client_bare.system - client0.user - client0.system

                moves_s = len(stats.moves) / elapsed
                bare_s = len(bare) / belapsed
                print(f"{'floor (bench/floor_app.py)' if args.floor else 'api'}: {args.clients} clients, {args.api_workers} gunicorn sync workers, {elapsed:.1f} s, cores {os.cpu_count()}")
                print(f"  clients wait by {args.wait}; games finished {stats.games}, moves {len(stats.moves)} = {moves_s:.0f} moves/s, "
                      f"views {len(stats.views)}, {'events received' if args.wait == 'sse' else 'long polls'} {stats.polls}, REST requests {stats.requests / elapsed:.0f}/s")
                print(f"  move latency ms: p50 {pct(stats.moves, 50):.1f}  p95 {pct(stats.moves, 95):.1f}  p99 {pct(stats.moves, 99):.1f}")
                if stats.turns:
                    print(f"  a move sent -> the other seat told it is its turn, ms: p50 {pct(stats.turns, 50):.1f}  "
                          f"p95 {pct(stats.turns, 95):.1f}  p99 {pct(stats.turns, 99):.1f}")
                print(f"  view latency ms: p50 {pct(stats.views, 50):.1f}  p95 {pct(stats.views, 95):.1f}  p99 {pct(stats.views, 99):.1f}")
                print(f"  errors: {len(stats.errors)} {stats.errors[:3]}")
                print(f"bare GET+SET 2 KB: {bare_s:.0f} requests/s, p50 {pct(bare, 50):.1f} ms, p99 {pct(bare, 99):.1f} ms, errors {len(bare_errors)}")
                print(f"ratio moves/s : bare requests/s = {moves_s / bare_s:.2f} (target >= 0.60); "
                      f"(moves + views)/s : bare = {stats.requests / elapsed / bare_s:.2f}")
                per_move = api_cpu / max(1, len(stats.moves))
                per_bare = bare_cpu / max(1, len(bare))
                print(f"server CPU (gunicorn workers + Redis): {per_move * 1000:.2f} ms per move with the reads and waits "
                      f"it takes, {api_cpu / max(1, stats.requests + (stats.polls if args.wait == 'longpoll' else 0)) * 1000:.2f} ms per API request; "
                      f"bare {per_bare * 1000:.2f} ms per request -> CPU ratio {per_bare / per_move:.2f} "
                      f"(moves per bare request on the same CPU)")
                print("  per move: " + ", ".join(f"{name} {cpu / max(1, len(stats.moves)) * 1000:.2f} ms" for name, cpu in part_cpu.items()))
                print(f"machine busy: {machine_game:.0%} of {os.cpu_count()} cores during the games, {machine_bare:.0%} during the bare run; "
                      f"load generator CPU {client_game_cpu / max(1, len(stats.moves)) * 1000:.2f} ms per move, "
                      f"{client_bare_cpu / max(1, len(bare)) * 1000:.2f} ms per bare request")
                print(f"load average: {load_game[0]:.2f} after the games, {load_bare[0]:.2f} after the bare run")
                ok = ok and not stats.errors and not bare_errors
                figures.append({"moves/s": moves_s, "bare requests/s": bare_s, "ratio": moves_s / bare_s,
                                "move p99 ms": pct(stats.moves, 99), "CPU ratio": per_bare / per_move})
            if args.runs > 1:
                print(f"-- {args.runs} runs (each: the games, then the bare endpoint): median [min, max]")
                for name in figures[0]:
                    values = sorted(f[name] for f in figures)
                    print(f"  {name}: {statistics.median(values):.2f} [{values[0]:.2f}, {values[-1]:.2f}]")
            return 0 if ok else 1
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
            redis_server.stop()


if __name__ == "__main__":
    sys.exit(main())

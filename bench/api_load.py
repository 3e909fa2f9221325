"""Load: concurrent clients playing complete matches against each other over HTTP (issues 8 and 16).

Production configuration on 127.0.0.1: a private redis-server, gunicorn sync workers serving the API (rate
limits on, with a limit the bench cannot reach, so their cost is counted; metrics in multiprocess mode), a
gthread gunicorn for event streams and long polls, a bots worker with the sweep. Clients sit at tables of
the scenario's size (``--variant``: 2-seat ``draw``, one round; 4-seat ``all_fives``, teams to 150; 4-seat
``mexican_train``, 13 rounds); a table plays a match to its end, then another, until ``--seconds`` are up
(matches of several rounds in play then are played to their end, for up to ``--match-seconds``). How a
seat plays is in bench/load_clients.py: it follows the game's events (``--wait sse``, the default, or
``longpoll``) and moves on ``turn_started`` with one of the legal moves it carries, or polls its view
(``--wait poll``). Then the same number of clients hit a bare Flask endpoint doing one Redis GET and SET of
a 2 KB JSON document under the same gunicorn configuration.

    python bench/api_load.py [--variant draw] [--clients 32] [--seconds 20] [--runs 3]
                             [--compare-floor | --floor] [--vs-bot greedy] [--wait sse|longpoll|poll]
                             [--app-events turn.started]

Server CPU is measured two ways. For the whole run, from /proc: the REST workers, the streams server,
Redis and the bots worker, per move a client made (so the load generator sharing the cores does not count). Per move: the API and the floor are
served by bench/cpu_app.py, which puts the CPU time of each request's thread in a ``Server-Timing`` header;
the clients keep it with the round of the move, and the bench prints the REST worker's CPU per move (the
app's share, gunicorn's own work aside), for the API by third of the matches' rounds (thread CPU time: other processes on the machine do not
inflate it, only share its caches).

``--compare-floor`` plays the same clients, in the same run, against bench/floor_app.py (a move with no
rules: its Redis work and event fan-out only) after the API, and prints API moves/s ÷ floor moves/s (2-seat
draw only). ``--app-events turn.started`` plays the API a second time in each run, its games created with the
key of an app whose webhook (a local endpoint answering 204, delivered to by a webhooks worker) subscribes to
those events, and prints that play's moves/s ÷ floor moves/s too. ``--floor`` serves only the floor. ``--vs-bot STRATEGY`` seats a computer player in seat 1 and
times each human move to the computer player's reply in the events (run it with few clients on an idle
machine: it is a latency figure). ``--runs N`` measures N times on the same servers and prints each
figure's median with a 95% interval of the median from the runs' order statistics (6 runs or more;
fewer give [min, max]); with ``--compare-floor`` the runs alternate which of the API and the floor goes
first, and each prints, besides moves/s ÷ floor moves/s (which other load on the machine moves), floor
server CPU per move ÷ the API's (what the ratio would be if the server's CPU were all that limited it).
"""

from __future__ import annotations

import argparse
import http.server
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from load_clients import SCENARIOS, Stats, Target, bare_client, median_interval, pct, play_tables, request  # noqa: E402


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


class Served:
    """A served app (the API or the floor): its REST and streams servers and what counts as its CPU."""

    def __init__(self, name: str, app: str, workers: int, env: dict[str, str], shared: dict[str, int]) -> None:
        from workers.redis_server import free_port

        self.name = name
        self.port, self.streams_port = free_port(), free_port()
        self.procs = [start_server(app, self.port, workers, env), start_server(app, self.streams_port, 1, env, threads=64)]
        self.shared = shared  # Redis and the bots worker, by name

    def parts(self) -> dict[str, list[int]]:
        own = {"REST workers": pids_of(self.procs[0]), "streams server": pids_of(self.procs[1])}
        return own | {name: [pid] for name, pid in self.shared.items()}


def run_tables(target: Target, stats: Stats, tables: int, seconds: float, match_seconds: float) -> float:
    """``tables`` tables start matches for ``seconds``, those in play then end within ``match_seconds``; the
    seconds it took."""
    t0 = time.monotonic()
    last_start = t0 + seconds
    stop = last_start + match_seconds
    threads = [threading.Thread(target=play_tables, args=(target, stats, stop, i, last_start)) for i in range(tables)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(stop - t0 + 30)
    return min(time.monotonic() - t0, stop - t0)  # no move or view starts after the stop


def play_games(served: Served, args: argparse.Namespace, variant: str, app_key: str | None = None) -> dict[str, float]:
    """Clients play matches for ``args.seconds`` (games owned by the app of ``app_key``, when given); prints what
    they saw and returns the run's figures."""
    stats = Stats()
    parts = served.parts()
    part0 = {name: cpu_seconds(pids) for name, pids in parts.items()}
    machine0, client0 = machine_busy(), os.times()
    target = Target(served.port, served.streams_port, args.wait, variant, args.vs_bot, app_key)
    seats = SCENARIOS[variant][0] - (1 if args.vs_bot else 0)
    whole = SCENARIOS[variant][1].get("rounds") != 1  # matches of several rounds are played to their end
    tables = max(1, args.clients // seats)
    elapsed = run_tables(target, stats, tables, args.seconds, args.match_seconds if whole else 0)
    load = os.getloadavg()[0]
    part_cpu = {name: cpu_seconds(pids) - part0[name] for name, pids in parts.items()}
    machine, client = busy_share(machine0, machine_busy()), os.times()
    client_cpu = client.user + client.system - client0.user - client0.system
    moves = max(1, len(stats.moves))
    server_cpu = sum(part_cpu.values())
    moves_s = len(stats.moves) / elapsed

    owned = f", games of an app subscribed to {args.app_events}" if app_key else ""
    print(f"{served.name}{owned}: {variant}, {tables} tables of {seats} clients{f' and a {args.vs_bot} bot' if args.vs_bot else ''}, "
          f"{args.api_workers} gunicorn sync workers, {elapsed:.1f} s, cores {os.cpu_count()}")
    print(f"  clients wait by {args.wait}; matches finished {stats.games}, moves {len(stats.moves)} = {moves_s:.0f} moves/s, "
          f"views {len(stats.views)}, {'events received' if args.wait == 'sse' else 'long polls'} {stats.polls}, "
          f"REST requests {stats.requests / elapsed:.0f}/s")
    print(f"  move latency ms: p50 {pct(stats.moves, 50):.1f}  p95 {pct(stats.moves, 95):.1f}  p99 {pct(stats.moves, 99):.1f}")
    if stats.turns:
        print(f"  a move sent -> the next seat told it is its turn, ms: p50 {pct(stats.turns, 50):.1f}  "
              f"p95 {pct(stats.turns, 95):.1f}  p99 {pct(stats.turns, 99):.1f}")
    if stats.replies:
        print(f"  a human move sent -> the computer player's reply in the events, ms ({len(stats.replies)}): "
              f"p50 {pct(stats.replies, 50):.1f}  p95 {pct(stats.replies, 95):.1f}  p99 {pct(stats.replies, 99):.1f}")
    print(f"  view latency ms: p50 {pct(stats.views, 50):.1f}  p99 {pct(stats.views, 99):.1f}")
    print(f"  errors: {len(stats.errors)} {stats.errors[:3]}")
    print(f"  server CPU per move (with the reads and waits it takes): {server_cpu / moves * 1000:.2f} ms = "
          + ", ".join(f"{name} {cpu / moves * 1000:.2f}" for name, cpu in part_cpu.items()))
    thirds, known = stats.cpu_thirds()
    several = known and thirds[2] == thirds[2]  # not NaN: the matches have rounds in their last third
    if known:
        by_third = f"first {thirds[0]:.3f}, middle {thirds[1]:.3f}, last {thirds[2]:.3f} -> last/first {thirds[2] / thirds[0]:.2f}"
        print(f"  REST worker CPU per move (Server-Timing), ms: {by_third if several else f'{thirds[0]:.3f} (one-round matches)'} "
              f"({known} matches of known length)")
    print(f"  machine busy {machine:.0%} of {os.cpu_count()} cores; load generator CPU {client_cpu / moves * 1000:.2f} ms "
          f"per move; load average {load:.2f}")
    figures = {"moves/s": moves_s, "move p99 ms": pct(stats.moves, 99), "server CPU ms/move": server_cpu / moves * 1000,
               "errors": float(len(stats.errors))}  # fmt: skip
    if known:
        figures["REST CPU ms/move"] = statistics.fmean([c for m in stats.matches for _, c in m.moves])
    if several:
        figures.update({"CPU first third ms": thirds[0], "CPU middle third ms": thirds[1], "CPU last third ms": thirds[2],
                        "CPU last/first": thirds[2] / thirds[0]})  # fmt: skip
    if stats.replies:
        figures.update({"bot reply p50 ms": pct(stats.replies, 50), "bot reply p99 ms": pct(stats.replies, 99)})
    return figures


def play_bare(port: int, pids: list[int], args: argparse.Namespace) -> dict[str, float]:
    cpu0 = cpu_seconds(pids)
    bare: list[float] = []
    errors: list[str] = []
    t0 = time.monotonic()
    stop = t0 + args.bare_seconds
    threads = [threading.Thread(target=bare_client, args=(port, stop, f"k{i}", bare, errors)) for i in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(args.bare_seconds + 30)
    elapsed = time.monotonic() - t0
    per = (cpu_seconds(pids) - cpu0) / max(1, len(bare))
    print(f"bare GET+SET 2 KB: {len(bare) / elapsed:.0f} requests/s, p50 {pct(bare, 50):.1f} ms, p99 {pct(bare, 99):.1f} ms, "
          f"errors {len(errors)}, server CPU {per * 1000:.2f} ms per request; load average {os.getloadavg()[0]:.2f}")
    return {"bare requests/s": len(bare) / elapsed, "bare errors": float(len(errors))}


def print_medians(figures: list[dict[str, float]]) -> None:
    print(f"-- {len(figures)} runs: median [95% interval of the median; min, max under 6 runs]")
    for name in figures[0]:
        med, low, high = median_interval([f[name] for f in figures if name in f])
        print(f"  {name}: {med:.2f} [{low:.2f}, {high:.2f}]")


def start_endpoint() -> http.server.ThreadingHTTPServer:
    """An app's webhook endpoint on 127.0.0.1: reads each POST and answers 204, over HTTP/1.1 (a connection kept
    open when the caller keeps it, as receivers do)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def make_app(env: dict[str, str], endpoint: http.server.ThreadingHTTPServer, events: str) -> str:
    """An app (no game cap, a rate limit the bench cannot reach) whose webhook is ``endpoint``: its key."""
    from api.config import Settings
    from api.service.service import Service

    url = f"http://127.0.0.1:{endpoint.server_address[1]}/hooks"
    return Service(Settings.from_env(env)).create_app("bench-app", url, "100000000/60", 0, events).key


def one_run(served: list[Served], args: argparse.Namespace, run: int, bare_port: int, bare_pids: list[int]) -> dict[str, float]:
    """One run: the clients against each server, then the bare requests; the run's figures."""
    run_figures: dict[str, float] = {}
    # API then floor, then floor then API: a machine getting busier or quieter weighs on both alike.
    plays: list[tuple[Served, str | None]] = [(s, None) for s in served]
    if args.app_key is not None:
        plays.insert(1, (served[0], args.app_key))
    for s, key in plays if run % 2 else plays[::-1]:
        got = play_games(s, args, args.variant, key)
        prefix = "floor " if s.name.startswith("floor") and args.compare_floor else "app " if key else ""
        run_figures.update({prefix + k: v for k, v in got.items()})
    if args.compare_floor:
        run_figures["API/floor moves/s"] = run_figures["moves/s"] / run_figures["floor moves/s"]
        # What the ratio would be were the server's CPU all that limits it (others' load aside).
        run_figures["floor/API server CPU"] = (
            run_figures["floor server CPU ms/move"] / run_figures["server CPU ms/move"]
        )
        if "REST CPU ms/move" in run_figures and "floor REST CPU ms/move" in run_figures:
            run_figures["API/floor REST CPU"] = run_figures["REST CPU ms/move"] / run_figures["floor REST CPU ms/move"]
        print(f"API moves/s / floor moves/s = {run_figures['API/floor moves/s']:.2f}; "
              f"floor / API server CPU per move = {run_figures['floor/API server CPU']:.2f}")
        if args.app_key is not None:
            run_figures["API with app/floor moves/s"] = run_figures["app moves/s"] / run_figures["floor moves/s"]
            print(f"API with the app's {args.app_events} / floor moves/s = {run_figures['API with app/floor moves/s']:.2f}")
    if args.bare_seconds > 0:
        run_figures.update(play_bare(bare_port, bare_pids, args))
        print(f"moves/s / bare requests/s = {run_figures['moves/s'] / run_figures['bare requests/s']:.2f}")
    return run_figures


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", choices=tuple(SCENARIOS), default="draw")
    parser.add_argument("--clients", type=int, default=32, help="client seats (tables of the variant's size)")
    parser.add_argument("--seconds", type=float, default=20.0, help="no match starts after this")
    parser.add_argument("--match-seconds", type=float, default=120.0,
                        help="matches of several rounds in play after --seconds are played to their end, for up to this")
    parser.add_argument("--bare-seconds", type=float, default=10.0, help="0: no bare run")
    parser.add_argument("--api-workers", type=int, default=2, help="gunicorn sync workers for REST")
    parser.add_argument("--runs", type=int, default=1, help="runs on the same servers; the medians are printed")
    parser.add_argument("--wait", choices=("sse", "longpoll", "poll"), default="sse",
                        help="how a seat learns that it is its turn (see bench/load_clients.py)")  # fmt: skip
    floor = parser.add_mutually_exclusive_group()
    floor.add_argument("--floor", action="store_true", help="serve bench/floor_app.py instead of the API")
    floor.add_argument("--compare-floor", action="store_true", help="after the API, the same clients against the floor")
    parser.add_argument("--vs-bot", metavar="STRATEGY", help="a computer player in seat 1; times its replies")
    parser.add_argument("--app-events", metavar="EVENTS", help="also play the API with games of an app subscribed to these")
    args = parser.parse_args()
    args.app_key = None  # made once its Redis is up
    if (args.floor or args.compare_floor) and (args.wait != "sse" or args.variant != "draw" or args.vs_bot):
        parser.error("the floor serves 2-seat draw games followed by Server-Sent Events only")
    return args


def main() -> int:
    args = parse_args()

    from workers.redis_server import RedisServer, free_port

    with tempfile.TemporaryDirectory() as tmp:
        redis_server = RedisServer(Path(tmp) / "redis", persistent=False)
        url = redis_server.start()
        redis_pid = redis_server.process.pid  # type: ignore[union-attr]
        metrics_dir = Path(tmp) / "metrics"
        metrics_dir.mkdir()
        # Every client of the bench is 127.0.0.1: no rate limit, game cap or stream cap to speak of (the streams
        # of a run may still be closing when the next run on the same server starts: API, floor, floor, API...).
        env = dict(
            os.environ, DOMINO_REDIS_URL=url, DOMINO_RATE_LIMIT="100000000/60", DOMINO_GAMES_PER_CLIENT="0",
            DOMINO_FINISHED_GAMES_PER_CLIENT="0",  # no archive worker runs: finished games stay in Redis
            DOMINO_STREAMS_PER_CLIENT=str(3 * args.clients + 10), PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
        )  # fmt: skip
        env["DOMINO_KEEPALIVE_INTERVAL"] = "1"  # seats still waiting when the time is up notice within a second
        env["PYTHONPATH"] = str(ROOT)
        env["DOMINO_WEBHOOK_ALLOW_PRIVATE"] = "1"  # the app's endpoint listens on 127.0.0.1
        endpoint = start_endpoint() if args.app_events else None
        if endpoint is not None:
            args.app_key = make_app(env, endpoint, args.app_events)
        queues = ["bots", "bot-games", *(["webhooks"] if endpoint is not None else [])]
        bots_worker = subprocess.Popen([sys.executable, "-m", "workers.cli", "worker", *queues, "--sweep", "--log-level", "WARNING"],
                                       env=env, cwd=ROOT, start_new_session=True)  # fmt: skip
        shared = {"Redis": redis_pid, "bots worker": bots_worker.pid}
        served: list[Served] = []
        if not args.floor:
            served.append(Served("api", "cpu_app:api()", args.api_workers, env, shared))
        if args.floor or args.compare_floor:
            served.append(Served("floor (bench/floor_app.py)", "cpu_app:floor()", args.api_workers, env, shared))
        bare_port = free_port()
        procs = [bots_worker, *(p for s in served for p in s.procs)]
        procs.append(start_server("bare_app:app", bare_port, args.api_workers, env))
        try:
            for s in served:
                wait_up(s.port, "/healthz")
            wait_up(bare_port, "/bare/x")
            bare_pids = pids_of(procs[-1]) + [redis_pid]
            figures: list[dict[str, float]] = []
            for run in range(1, args.runs + 1):
                if args.runs > 1:
                    print(f"-- run {run} of {args.runs}")
                figures.append(one_run(served, args, run, bare_port, bare_pids))
            if args.runs > 1:
                print_medians(figures)
            return 0 if not any(f.get("errors") or f.get("floor errors") or f.get("bare errors") for f in figures) else 1
        finally:
            if endpoint is not None:
                endpoint.shutdown()
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

"""Deadline and reminder lateness: how late turn deadlines and apps' turn reminders are enforced when many fall
due together, with the sweep and the workers running as ``domino-serve`` runs them.

    python bench/deadlines.py [--games 10000] [--window 60] [--setup SECONDS] [--no-reminders]

Method: a private Redis; an app whose webhook (a sink in this process, answering 204 at once) subscribes to
``turn.reminder``; ``--games`` two-human games of that app created through the service, each with a
``turn_timeout_s`` chosen so that the deadlines fall evenly within ``--window`` seconds after the setup. Then
two worker processes as ``domino-serve`` starts them: ``domino-worker bots --sweep`` (the sweep, its timer, and
the bots queue, whose timeout jobs move for the seats) and ``domino-worker webhooks`` (the deliveries), every
setting at its default but one: ``DOMINO_REMINDER_MIN_TURN=0``, so that turns of a minute or two get their
reminder (at the default 600 s the bench would last ten minutes; the timer takes reminders as it takes
deadlines; ``--no-reminders``: every setting at its default, no reminder). Each game's reminder falls due at
80% of its turn (``DOMINO_REMINDER_FRACTION`` 0.2), so 10,000 reminders come due over the same minute or so,
just before and among the deadlines (and each game's next turn adds its own, later).

Figures, over every game of one run (the first deadline and the first reminder of each):
- a deadline's lateness: from the deadline to the commit of the move the server made for the seat (the next
  turn's deadline, less its ``turn_timeout_s``: the commit's own clock, to the millisecond);
- a reminder's lateness: from its due time to the ``timestamp`` of its ``turn.reminder`` delivery as the timer
  stored it (made when the timer sent it), and to its arrival at the sink (through the webhooks worker);
p50, p99 and the worst, with the load average: the machine is shared, and a loaded one makes every figure
later. Wall-clock figures by nature; the workers' CPU seconds from the first deadline until every deadline and
reminder was enforced (not their start-up and idle wait) are printed beside them, the bots worker's per game,
the webhooks worker's per reminder delivered by then (later turns' reminders included).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from collections.abc import Callable
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from api.config import Settings  # noqa: E402
from api.service.app_events import delivery_id  # noqa: E402
from api.service.create import GameRequest  # noqa: E402
from api.service.service import Service  # noqa: E402
from workers.redis_server import RedisServer  # noqa: E402

TWO = [{"name": "Ana", "player": "ana"}, {"name": "Bo", "player": "bo"}]
PREFIX = "bench"


class Sink(ThreadingHTTPServer):
    """The app's webhook: when each reminder (game id, version) arrived."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.arrived: dict[tuple[str, int], float] = {}
        self.sent: dict[tuple[str, int], float] = {}  # the body's timestamp


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = orjson.loads(self.rfile.read(int(self.headers["Content-Length"])))
        at = time.time()
        self.send_response(204)
        self.end_headers()
        sink: Sink = self.server  # type: ignore[assignment]
        if body.get("type") == "turn.reminder":
            key = (body["data"]["game_id"], body["data"]["version"])
            sink.arrived.setdefault(key, at)
            sink.sent.setdefault(key, _stamp(body["timestamp"]))

    def log_message(self, *args: Any) -> None:
        pass


def _stamp(text: str) -> float:
    """A body's ``timestamp`` (RFC 3339, UTC) as a Unix time."""
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def create_games(service: Service, app: Any, games: int, first_deadline: float, window: float) -> dict[str, dict[str, float]]:
    """The games, each with its deadline, turn timeout, version and reminder time (due)."""
    made: dict[str, dict[str, float]] = {}
    for i in range(games):
        due = first_deadline + window * i / games
        request = GameRequest("draw", TWO, turn_timeout_s=round(due - time.time(), 3))
        view, _tokens, version, game_id = service.create_game(request, "127.0.0.1", app=app)
        made[game_id] = {"deadline": view["deadline"], "timeout": view["turn_timeout_s"], "version": version}
    marked: list[tuple[bytes, float]] = service.store.redis.zrange(f"{PREFIX}:reminders:due", 0, -1, withscores=True)  # type: ignore[assignment]
    for member, score in marked:
        game_id, _, number = member.decode().rpartition(":")
        if game_id in made and int(number) == made[game_id]["version"]:
            made[game_id]["reminder"] = score
    return made


def worker(queue: str, env: dict[str, str], *more: str) -> subprocess.Popen[bytes]:
    code = "from workers.cli import worker; worker()"
    return subprocess.Popen([sys.executable, "-c", code, queue, *more], env=env, cwd=ROOT, stdin=subprocess.DEVNULL)


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a running process (/proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def enforced(service: Service, games: dict[str, dict[str, float]]) -> dict[str, float]:
    """When the server's move for each game's first deadline was committed: the event of the version after the
    game's first carries the next turn's deadline, set at that commit, less its timeout."""
    out = {}
    store = service.store
    ids = list(games)
    for start in range(0, len(ids), 500):
        pipe = store.redis.pipeline(transaction=False)
        for game_id in ids[start : start + 500]:
            pipe.xrange(store.games.events_key(game_id), min=f"{int(games[game_id]['version']) + 1}-0", count=1)
        for game_id, found in zip(ids[start : start + 500], pipe.execute()):
            event = orjson.loads(found[0][1][b"e"])["public"] if found else {}
            if event.get("auto") and event.get("deadline") is not None:
                out[game_id] = event["deadline"] - games[game_id]["timeout"]
    return out


def reminded(service: Service, games: dict[str, dict[str, float]], sink: Sink) -> dict[tuple[str, int], float]:
    """When each game's first reminder was sent: the ``timestamp`` of its body, as the timer stored it (kept
    until delivered) or as the webhook received it."""
    deliveries = service.store.app_deliveries
    keys = [(game_id, int(made["version"])) for game_id, made in games.items()]
    out = dict(sink.sent)
    pipe = deliveries.conn.pipeline(transaction=False)
    for game_id, version in keys:
        pipe.hgetall(deliveries.key(delivery_id(game_id, version, "turn.reminder")))
    for key, fields in zip(keys, pipe.execute()):
        raw = fields.get(fields.get(b"landed", b""))
        if raw is not None and key not in out:
            out[key] = _stamp(orjson.loads(orjson.loads(raw)["body"])["timestamp"])
    return out


def wait_until(done: Callable[[], bool], after: float, seconds: float) -> bool:
    """Poll ``done`` twice a second from ``after`` on, for at most ``seconds`` (what is counted is when the
    server acted, read from what it stored, not when this saw it)."""
    end = time.time() + seconds
    time.sleep(max(0.0, after - time.time()))
    while time.time() < end:
        if done():
            return True
        time.sleep(0.5)
    return False


def percentiles(name: str, values: list[float]) -> str:
    ordered = sorted(values)
    if not ordered:
        return f"{name}: none"
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"{name}: p50 {statistics.median(ordered):.3f} s, p99 {p99:.3f} s, worst {ordered[-1]:.3f} s "
        f"over {len(ordered)}"
    )


def run(args: argparse.Namespace, folder: str) -> None:
    server = RedisServer(folder, persistent=False)
    url = server.start()
    sink = Sink()
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    env = {
        **os.environ, "DOMINO_REDIS_URL": url, "DOMINO_KEY_PREFIX": PREFIX, "DOMINO_WEBHOOK_ALLOW_PRIVATE": "true",
        **({"DOMINO_REMINDER_MIN_TURN": "0"} if args.reminders else {}), "DOMINO_LOG_LEVEL": "WARNING",
        "DOMINO_ARCHIVE_URL": f"sqlite:///{folder}/archive.sqlite3",
    }  # fmt: skip
    settings = replace(Settings.from_env(env), games_per_client=0, rate_limit="0")
    service = Service(settings)
    workers: list[subprocess.Popen[bytes]] = []
    try:
        hook = f"http://127.0.0.1:{sink.server_address[1]}/hook"
        app = service.create_app("bench", hook, "0", 0, "turn.reminder" if args.reminders else "game.ended").app
        started = time.time()
        setup = args.setup or max(args.window + 40, args.games * 0.01)
        games = create_games(service, app, args.games, started + setup, args.window)
        made = time.time() - started
        if made > setup:
            print(f"warning: the setup took {made:.1f} s, past the first deadline ({setup:.0f} s)")
        workers = [worker("bots", env, "--sweep"), worker("webhooks", env)]
        last = max(g["deadline"] for g in games.values())
        reminders = {(game_id, int(g["version"])) for game_id, g in games.items() if "reminder" in g}
        at: dict[str, float] = {}
        sent: dict[tuple[str, int], float] = {}

        def enforced_all() -> bool:
            at.update(enforced(service, {g: made for g, made in games.items() if g not in at}))
            sent.update(reminded(service, {g: made for g, made in games.items() if (g, int(made["version"])) not in sent}, sink))
            return len(at) == len(games) and reminders <= sent.keys()

        first = min(g["deadline"] for g in games.values())
        time.sleep(max(0.0, first - time.time()))
        idle = [cpu_seconds(w.pid) for w in workers]  # started, and waited: not the deadlines' CPU
        done = wait_until(enforced_all, last, 300)
        used = [cpu_seconds(w.pid) - before for w, before in zip(workers, idle)]
        heard = len(sink.arrived)  # reminders delivered by then (later turns' too): what the webhooks CPU did
        wait_until(lambda: reminders <= sink.arrived.keys(), time.time(), 120)
    finally:
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait(30)
        sink.shutdown()
        server.stop()
    if not done:
        print("warning: not every deadline and reminder was enforced in time")
    report(args, games, at, sent, sink, made, used, heard)


def report(
    args: argparse.Namespace, games: dict[str, dict[str, float]], at: dict[str, float], sent: dict[tuple[str, int], float],
    sink: Sink, made: float, used: list[float], heard: int,
) -> None:
    due = {(g, int(v["version"])): v["reminder"] for g, v in games.items() if "reminder" in v}
    print(
        f"{args.games} games, deadlines evenly over {args.window:g} s, default settings"
        f"{' but reminders for any turn' if args.reminders else ''} "
        f"(setup {made:.1f} s; load average at the end {os.getloadavg()[0]:.1f}; CPU seconds from the first "
        f"deadline on: bots+sweep worker {used[0]:.1f}, {1000 * used[0] / args.games:.2f} ms a game; webhooks "
        f"worker {used[1]:.1f}, {1000 * used[1] / max(1, heard):.2f} ms a reminder delivered, {heard})"
    )
    print(percentiles("deadline to the server's move committed", [t - games[g]["deadline"] for g, t in at.items()]))
    first = min(g["deadline"] for g in games.values())
    parts: list[list[float]] = [[] for _ in range(6)]
    for game_id, t in at.items():
        deadline = games[game_id]["deadline"]
        parts[min(5, int(6 * (deadline - first) / args.window))].append(t - deadline)
    print("  p99 by sixth of the window:", ", ".join(f"{sorted(p)[int(0.99 * (len(p) - 1))]:.2f} s" for p in parts if p))
    print(percentiles("reminder due to sent (its delivery stored)", [t - due[k] for k, t in sent.items() if k in due]))
    print(percentiles("reminder due to arrived at the webhook", [t - due[k] for k, t in sink.arrived.items() if k in due]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--window", type=float, default=60.0)
    parser.add_argument("--setup", type=float, help="seconds before the first deadline (default: window + 40 s)")
    parser.add_argument(
        "--reminders", action=argparse.BooleanOptionalAction, default=True,
        help="reminders for every turn (DOMINO_REMINDER_MIN_TURN=0); --no-reminders: every setting at its default",
    )  # fmt: skip
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deadlines-") as folder:
        run(args, folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Hints under load: how soon a hint answers with 5 games asking at once, and how much live computer players'
replies slow meanwhile (issue 35: a hint p95 <= 300 ms; bot replies' p99 up by at most 20 ms). 127.0.0.1 only.

    python bench/hints.py [--games 5] [--seconds 40] [--bot greedy] [--think 0.3]

Method: the service as ``domino-serve`` runs it, every setting at its default (``DOMINO_HINT_NODES``
included) but the per-client caps and rate limit, which one bench client would reach: a private Redis (no
persistence, a temporary folder), the API on gunicorn (2 gevent processes, ``api.app:serve()``), one
``python -m workers.cli worker bots --sweep``, one ``worker bot-games --nice 10`` (a new game's first computer
turns, before the human has moved, go there) and ``--hint-workers`` (2, as
``domino-serve``) ``worker hints`` at ``--hint-nice`` (0). ``--games`` threads each play 2-player
``draw`` games created with ``"hints": true``, one human seat (seat 0, this thread) against a computer
player (seat 1, ``--bot``), one game after another until the phase's ``--seconds`` are up. In phase B, at
the start of each of its turns, the thread asks ``POST /v1/games/{id}/hint`` with its seat token and plays the
hint's best move on the hint's version; in phase A it asks nothing and plays a random legal move. Either way
it moves ``--think`` seconds after its turn began (or when the hint answers, if later), so that both phases
ask the computer players for replies at the same rate (with no pause, phase A's humans, not held up by
hints, drove the bots worker some four times as hard as B's, and A's replies were the slower). After each
move it follows the game's events (long poll, ``wait=5``) until the computer player's reply.

Figures: a hint's latency is from sending the request to its answer (B); a bot reply's latency is from the
human's move answered (its commit) to the first event of the computer player's after it seen in the long
poll (A and B: the same pacing and servers, one run, A first; matches to 100, each phase's cut short at its
end). p50/p95/p99 with counts, the load average at the end (the machine is shared: other load moves every
figure), and the CPU seconds of the hints and bots workers in each phase (from /proc).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from api_load import cpu_seconds  # noqa: E402
from load_clients import pct, request  # noqa: E402
from workers.redis_server import RedisServer, free_port  # noqa: E402

HUMAN, BOT = 0, 1


@dataclass
class Phase:
    hints: bool
    stop: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    hint_times: list[float] = field(default_factory=list)
    replies: list[float] = field(default_factory=list)
    games: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, values: list[float], value: float) -> None:
        with self.lock:
            values.append(value)


def call(port: int, method: str, path: str, auth: dict[str, str], body: object = None) -> dict[str, Any]:
    status, raw, _, _ = request(port, method, path, body, auth)
    if status != 200 and status != 201:
        raise RuntimeError(f"{method} {path}: {status} {raw[:200]!r}")
    return json.loads(raw)  # type: ignore[no-any-return]


def next_turn(port: int, path: str, auth: dict[str, str], after: int, phase: Phase, moved: float | None) -> dict[str, Any] | None:
    """Follow the events after ``after`` until the human's next turn (its ``turn_started``, with its legal
    moves) or the game's end (None); the first event of the computer player's is its reply to a move
    answered at ``moved``."""
    while time.monotonic() < phase.stop + 30:
        page = call(port, "GET", f"{path}/events?after={after}&wait=5", auth)
        for event in page["events"]:
            if moved is not None and event.get("seat") == BOT and event["type"] != "turn_started":
                phase.add(phase.replies, time.perf_counter() - moved)
                moved = None
            if event["type"] == "game_ended":
                return None
            if event["type"] == "turn_started" and event["seat"] == HUMAN:
                return event  # type: ignore[no-any-return]
        after = page["last_version"]
    raise RuntimeError(f"{path}: no turn within 30 s of the phase's end")


def after_move(port: int, path: str, auth: dict[str, str], view: dict[str, Any], phase: Phase, moved: float) -> dict[str, Any] | None:
    """The human's next turn after its move answered with ``view``: that view when the move ended nothing and
    left it to move (it drew), none when the move ended the game, else the next turn after the reply."""
    if view["status"] != "playing":
        return None
    if view["turn"] == HUMAN and view["legal_moves"]:
        return view
    return next_turn(port, path, auth, view["version"], phase, moved)


def play_game(port: int, phase: Phase, bot: str, think: float, rng: random.Random) -> None:
    seats = [{"name": "Ana"}, {"bot": bot}]
    made = call(port, "POST", "/v1/games", {}, {"variant": "draw", "seats": seats, "hints": True})
    game_id = made["game"]["id"]
    token = next(t["token"] for t in made["tokens"] if t["seat"] == HUMAN)
    auth, path = {"Authorization": f"Bearer {token}"}, f"/v1/games/{game_id}"
    view = call(port, "GET", path, auth)
    turn = view if view["turn"] == HUMAN and view["legal_moves"] else next_turn(port, path, auth, view["version"], phase, None)
    while turn is not None and time.monotonic() < phase.stop:
        began = time.perf_counter()
        version, move = turn["version"], rng.choice(turn["legal_moves"])
        if phase.hints:
            hint = call(port, "POST", f"{path}/hint", auth, {})
            phase.add(phase.hint_times, time.perf_counter() - began)
            version, move = hint["version"], hint["moves"][0]["move"]
        time.sleep(max(0.0, began + think - time.perf_counter()))  # the same pace with or without the hint
        answered = call(port, "POST", f"{path}/moves", auth, {**move, "expected_version": version})
        turn = after_move(port, path, auth, answered, phase, time.perf_counter())
    with phase.lock:
        phase.games += 1


def player(port: int, phase: Phase, bot: str, think: float, seed: int) -> None:
    rng = random.Random(seed)
    try:
        while time.monotonic() < phase.stop:
            play_game(port, phase, bot, think, rng)
    except (OSError, RuntimeError, KeyError) as exc:
        phase.errors.append(str(exc))


Workers = dict[str, list[subprocess.Popen[bytes]]]


def run_phase(port: int, args: argparse.Namespace, hints: bool, workers: Workers) -> tuple[Phase, dict[str, float]]:
    phase = Phase(hints, time.monotonic() + args.seconds)
    before = {name: cpu_seconds([w.pid for w in kind]) for name, kind in workers.items()}
    threads = [threading.Thread(target=player, args=(port, phase, args.bot, args.think, i + 100 * hints)) for i in range(args.games)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return phase, {name: cpu_seconds([w.pid for w in kind]) - before[name] for name, kind in workers.items()}


def start(args: argparse.Namespace, env: dict[str, str], port: int, children: list[subprocess.Popen[bytes]]) -> Workers:
    """The API and the workers, as ``domino-serve`` starts them (each added to ``children`` at once); the
    workers by kind, once the API answers."""
    children.append(subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", "2", "--worker-class", "gevent", "--config",
         "python:workers.gunicorn_config", "--bind", f"127.0.0.1:{port}", "--log-level", "warning",
         "--no-control-socket", "api.app:serve()"],
        env=env, cwd=ROOT, start_new_session=True,
    ))  # fmt: skip
    kinds = (("bots", ["bots", "--sweep"], 1), ("bot-games", ["bot-games", "--nice", "10"], 1),
             ("hints", ["hints", "--nice", str(args.hint_nice)], args.hint_workers))  # fmt: skip
    workers = {
        name: [
            subprocess.Popen([sys.executable, "-m", "workers.cli", "worker", *command], env=env, cwd=ROOT, start_new_session=True)
            for _ in range(n)
        ]
        for name, command, n in kinds
    }
    children.extend(w for kind in workers.values() for w in kind)
    end = time.monotonic() + 30
    while time.monotonic() < end:
        try:
            if request(port, "GET", "/healthz")[0] == 200:
                return workers
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("the API did not answer /healthz within 30 s")


def line(name: str, values: list[float]) -> str:
    return f"{name}: p50 {pct(values, 50):.0f} ms, p95 {pct(values, 95):.0f} ms, p99 {pct(values, 99):.0f} ms (n={len(values)})"


def report(args: argparse.Namespace, a: Phase, b: Phase, cpu_a: dict[str, float], cpu_b: dict[str, float]) -> None:
    print(
        f"{args.games} games at once, 2-player draw, a human seat vs {args.bot}, each human move {args.think:g} s "
        f"after its turn began, {args.seconds:g} s a phase; {args.hint_workers} hints worker(s) at nice {args.hint_nice}; "
        f"default settings (hint nodes {args.hint_nodes}); load average at "
        f"the end {os.getloadavg()[0]:.2f} (2 shared cores)"
    )
    print(line("B hint, request to answer", b.hint_times))
    print(line("A bot reply, no hints      ", a.replies))
    print(line("B bot reply, 5 hint askers ", b.replies))
    print(f"  p99 rise {pct(b.replies, 99) - pct(a.replies, 99):+.0f} ms; games A {a.games}, B {b.games}")
    print(
        f"CPU seconds: hints worker A {cpu_a['hints']:.1f}, B {cpu_b['hints']:.1f} "
        f"({1000 * cpu_b['hints'] / max(1, len(b.hint_times)):.0f} ms a hint); "
        f"bots worker A {cpu_a['bots']:.1f}, B {cpu_b['bots']:.1f}"
    )
    for name, phase in (("A", a), ("B", b)):
        for error in phase.errors:
            print(f"error in {name}: {error}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5, help="games at once, each asking for hints in phase B")
    parser.add_argument("--seconds", type=float, default=40.0, help="each phase's length")
    parser.add_argument("--bot", default="greedy", help="the computer player's strategy")
    parser.add_argument("--think", type=float, default=0.3, help="seconds from a human turn's start to its move")
    parser.add_argument("--hint-workers", type=int, default=2, help="hints workers (domino-serve's --hint-workers)")
    parser.add_argument("--hint-nice", type=int, default=0, help="the hints workers' nice value")
    args = parser.parse_args()
    from api.config import Settings

    args.hint_nodes = Settings.from_env().hint_nodes
    with tempfile.TemporaryDirectory(prefix="hints-") as folder:
        server = RedisServer(Path(folder), persistent=False)
        url = server.start()
        port = free_port()
        env = {
            **os.environ, "DOMINO_REDIS_URL": url, "DOMINO_KEY_PREFIX": "bench", "DOMINO_LOG_LEVEL": "WARNING",
            "DOMINO_ARCHIVE_URL": f"sqlite:///{folder}/archive.sqlite3", "DOMINO_RATE_LIMIT": "",
            "DOMINO_GAMES_PER_CLIENT": "0", "DOMINO_FINISHED_GAMES_PER_CLIENT": "0",
        }  # fmt: skip
        children: list[subprocess.Popen[bytes]] = []
        try:
            workers = start(args, env, port, children)
            a, cpu_a = run_phase(port, args, False, workers)
            b, cpu_b = run_phase(port, args, True, workers)
        finally:
            for proc in children:
                proc.terminate()
            for proc in children:
                proc.wait(30)
            server.stop()
    report(args, a, b, cpu_a, cpu_b)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

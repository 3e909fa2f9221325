"""The REST worker's CPU per move through the whole app, against the floor's, in one process (issue 16).

    python bench/move_wsgi_cpu.py [--matches 40] [--runs 9] [--callgrind]

What ``bench/api_load.py`` reports as "REST worker CPU per move" (the app's share of a ``POST .../moves``,
from ``Server-Timing``), measured without the load: a private redis-server; in this process the API
(``serve()``, configured as api_load serves it: rate limits on with a limit the bench cannot reach,
metrics in multiprocess mode) and bench/floor_app.py are called as WSGI apps. Two-seat ``draw`` matches, one
round, each dealt from its own seed and played with moves chosen by a generator of the same seed (so every run,
and every checkout, plays the same matches), are played as the load clients play them: the seat named by the turn notice posts one of the legal
moves it carries with ``expected_version``, its token and ``Prefer: return=minimal``; the floor is posted
its 35 moves likewise. One move's CPU is the thread CPU time of the app's call (Flask, every hook, parsing,
the service, the answer; building the request and reading the events are outside it). The runs alternate
the API and the floor (and which goes first), so drift on a shared machine falls on both alike.

Printed per run: the API's and the floor's mean CPU per move and their ratio; over the runs, each figure's
median with a distribution-free 95% interval of the median (order statistics of the runs).

``--callgrind`` runs the same moves under valgrind's callgrind (a few matches: it is ~50x slower), counting
instructions only inside the app's calls (a toggle through callgrind's client request, compiled with ``cc``),
and prints instructions per move for the API and the floor: a figure other processes on the machine do not
move at all. ``--keep DIR`` keeps the callgrind files there for ``callgrind_annotate --inclusive=yes``.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from load_clients import median_interval  # noqa: E402
from move_cpu import Turns  # noqa: E402

FLOOR_MOVES = 35  # bench/floor_app.py's game length
TOGGLE_C = """
#include <valgrind/callgrind.h>
void toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
"""

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class Caller:
    """Calls a WSGI app as gunicorn would, timing (or toggling callgrind around) only the app's work."""

    def __init__(self, app: WSGIApp, toggle: Callable[[], None] | None = None) -> None:
        self.app, self.toggle = app, toggle
        self.cpu_ns: list[int] = []
        self.timed = False

    def __call__(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        environ = wsgi_environ(method, path, body, headers)
        status: list[str] = []
        timed, toggle = self.timed, self.toggle
        if timed and toggle:
            toggle()
        t0 = time.thread_time_ns()
        chunks = self.app(environ, lambda s, h, *exc: status.append(s))
        raw = b"".join(chunks)
        getattr(chunks, "close", lambda: None)()
        t1 = time.thread_time_ns()
        if timed and toggle:
            toggle()
        if timed:
            self.cpu_ns.append(t1 - t0)
        return int(status[0].split()[0]), raw


def wsgi_environ(method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> dict[str, Any]:
    from werkzeug.test import EnvironBuilder

    import orjson

    data = None if body is None else orjson.dumps(body)
    return EnvironBuilder(
        path=path, method=method, data=data, headers=headers or {},
        content_type="application/json" if data is not None else None,
        environ_base={"REMOTE_ADDR": "127.0.0.1"},
    ).get_environ()  # fmt: skip


class Streams:
    """Each seat's Server-Sent Events stream of one game, served by the app as the streams server serves it;
    :meth:`pull` takes from each the frames of the last commit, timing (or toggling callgrind around) only
    the app's work for them (its read of Redis, the rendering of each event, the frames)."""

    def __init__(self, app: WSGIApp, toggle: Callable[[], None] | None = None) -> None:
        self.app, self.toggle = app, toggle
        self.cpu_ns: list[int] = []
        self.events = 0
        self.timed = False
        self.open_now: list[Any] = []

    def open(self, game_id: str, headers: list[dict[str, str]]) -> None:
        """One stream per seat (its token in ``headers``), read up to the first turn notice (not timed)."""
        for h in headers:
            status: list[str] = []
            environ = wsgi_environ("GET", f"/v1/games/{game_id}/events", None, {**h, "Accept": "text/event-stream"})
            body = self.app(environ, lambda s, _headers, *exc, out=status: out.append(s))
            assert status[0].startswith("200"), status
            frames = iter(body)
            while b"turn_started" not in next(frames):
                pass
            self.open_now.append((body, frames))

    def pull(self) -> None:
        """The frames each stream sends for the commit just made (one chunk: it is read at once)."""
        timed, toggle = self.timed, self.toggle
        for _body, frames in self.open_now:
            if timed and toggle:
                toggle()
            t0 = time.thread_time_ns()
            chunk = next(frames)
            t1 = time.thread_time_ns()
            if timed and toggle:
                toggle()
            if timed:
                self.cpu_ns.append(t1 - t0)
                self.events += chunk.count(b"\nid: ") + chunk.startswith(b"id: ")

    def close(self) -> None:
        for body, _frames in self.open_now:
            getattr(body, "close", lambda: None)()
        self.open_now = []


def api_match(call: Caller, service: Any, seed: str, streams: Streams | None = None) -> None:
    """One two-seat draw match over the API, dealt from ``seed`` and played with moves chosen from it (the same
    match for the same seed); only the moves are timed."""
    import orjson

    call.timed = False
    rng = random.Random(seed)
    status, raw = call("POST", "/v1/games", {"variant": "draw", "seats": [{"name": "P0"}, {"name": "P1"}],
                                             "rules": {"match_end": "fixed_rounds", "rounds": 1}, "seed": seed})  # fmt: skip
    assert status == 201, raw
    created = orjson.loads(raw)
    game_id = created["game"]["id"]
    auth = {t["seat"]: {"Authorization": f"Bearer {t['token']}", "Prefer": "return=minimal"} for t in created["tokens"]}
    turns = Turns(service, game_id)
    if streams is not None:
        streams.open(game_id, [{"Authorization": a["Authorization"]} for a in auth.values()])
    try:
        while (turn := turns.next()) is not None:
            move = {**rng.choice(turn["legal_moves"]), "expected_version": turn["version"]}
            call.timed = True
            status, raw = call("POST", f"/v1/games/{game_id}/moves", move, auth[turn["seat"]])
            call.timed = False
            assert status == 200, raw
            if streams is not None:
                streams.pull()
    finally:
        turns.close()
        if streams is not None:
            streams.close()


def floor_match(call: Caller, streams: Streams | None = None) -> None:
    """One floor game: its 35 moves, timed."""
    import orjson

    call.timed = False
    status, raw = call("POST", "/v1/games", {})
    assert status == 201, raw
    game_id = orjson.loads(raw)["game"]["id"]
    if streams is not None:
        streams.open(game_id, [{}, {}])
    try:
        for version in range(FLOOR_MOVES):
            call.timed = True
            status, raw = call("POST", f"/v1/games/{game_id}/moves", {"type": "play", "tile": "6-4", "end": "left",
                                                                       "expected_version": version})  # fmt: skip
            call.timed = False
            assert status == 200, raw
            if streams is not None:
                streams.pull()
    finally:
        if streams is not None:
            streams.close()


def setup(tmp: Path, redis_url: str) -> tuple[WSGIApp, WSGIApp, Any]:
    """The API as api_load serves it, and the floor, configured before they are imported."""
    os.environ.update(
        DOMINO_REDIS_URL=redis_url, DOMINO_RATE_LIMIT="100000000/60", DOMINO_GAMES_PER_CLIENT="0",
        DOMINO_FINISHED_GAMES_PER_CLIENT="0",  # no archive worker runs: finished games stay in Redis
        PROMETHEUS_MULTIPROC_DIR=str(tmp),
    )  # fmt: skip
    from api.app import serve
    from floor_app import app as floor

    api = serve()  # the floor's objects, imported before, are frozen with the API's
    return api, floor, api.extensions["domino.service"]


def measure(args: argparse.Namespace, redis_url: str, tmp: Path) -> int:
    api, floor, service = setup(tmp, redis_url)
    api_call, floor_call = Caller(api), Caller(floor)
    api_streams, floor_streams = (Streams(api), Streams(floor)) if args.streams else (None, None)
    for n in range(3):  # warm up: imports, caches, first connections
        api_match(api_call, service, f"warm-{n}", api_streams)
        floor_match(floor_call, floor_streams)
    if args.toggle:
        lib = tmp / "toggle.so"
        (tmp / "toggle.c").write_text(TOGGLE_C)
        subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), str(tmp / "toggle.c")], check=True)
        call, streams = (api_call, api_streams) if args.toggle == "api" else (floor_call, floor_streams)
        (streams or call).toggle = ctypes.CDLL(str(lib)).toggle  # the streams' frames, else the moves
        call.cpu_ns.clear()
        if streams is not None:
            streams.timed = True
        for n in range(args.matches):
            if args.toggle == "api":
                api_match(api_call, service, f"match-{n}", api_streams)
            else:
                floor_match(floor_call, floor_streams)
        print(f"moves {len(call.cpu_ns)} events {streams.events if streams else 0}")
        return 0
    rows = []
    for run in range(args.runs):
        for timer in (api_call, floor_call, api_streams, floor_streams):
            if timer is not None:
                timer.cpu_ns.clear()
                timer.timed = isinstance(timer, Streams)
        for s in (api_streams, floor_streams):
            if s is not None:
                s.events = 0
        order = [lambda: [api_match(api_call, service, f"match-{n}", api_streams) for n in range(args.matches)],
                 lambda: [floor_match(floor_call, floor_streams) for _ in range(args.matches)]]  # fmt: skip
        for play in order if run % 2 == 0 else order[::-1]:
            play()
        a, f = statistics.fmean(api_call.cpu_ns) / 1e6, statistics.fmean(floor_call.cpu_ns) / 1e6
        rows.append({"API ms/move": a, "floor ms/move": f, "API/floor CPU": a / f,
                     "API median ms": statistics.median(api_call.cpu_ns) / 1e6})  # fmt: skip
        line = (f"  run {run + 1}: API {a:.3f} ms/move ({len(api_call.cpu_ns)} moves, median "
                f"{rows[-1]['API median ms']:.3f}), floor {f:.3f} ms/move ({len(floor_call.cpu_ns)} moves), "
                f"API/floor {a / f:.2f}")  # fmt: skip
        if api_streams is not None and floor_streams is not None:
            ae, fe = (sum(s.cpu_ns) / s.events / 1e3 for s in (api_streams, floor_streams))
            rows[-1].update({"API streams us/event": ae, "floor streams us/event": fe})
            line += f"; streams: API {ae:.1f} us/event, floor {fe:.1f} us/event"
        print(line, flush=True)
    print(f"-- {args.runs} runs: median [95% interval of the median]")
    for name in rows[0]:
        med, low, high = median_interval([r[name] for r in rows])
        print(f"  {name}: {med:.3f} [{low:.3f}, {high:.3f}]")
    return 0


def callgrind(args: argparse.Namespace, redis_url: str, tmp: Path) -> int:
    """Each of the API and the floor in its own process under callgrind; instructions per move (with
    ``--streams``: in the streams' frames, per event and per move)."""
    per_unit = {}
    unit = "event" if args.streams else "move"
    for target in args.sides.split(","):
        (Path(args.keep) if args.keep else tmp).mkdir(parents=True, exist_ok=True)
        out = (Path(args.keep) if args.keep else tmp) / f"callgrind.{target}{'.streams' if args.streams else ''}"
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--callgrind-out-file={out}",
               sys.executable, __file__, "--toggle", target, "--matches", str(args.matches), "--redis-url", redis_url,
               *(["--streams"] if args.streams else [])]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        counts = done.stdout.split("moves ")[-1].split()
        moves, events = int(counts[0]), int(counts[2])
        totals = next(line for line in out.read_text().splitlines() if line.startswith(("totals:", "summary:")))
        total = int(totals.split()[1])
        per_unit[target] = total / (events if args.streams else moves)
        also = f", {total / moves / 1e6:.2f} M per move, {events} events" if args.streams else ""
        print(f"  {target}: {per_unit[target] / 1e6:.3f} M instructions per {unit} ({moves} moves{also})", flush=True)
    if len(per_unit) == 2:
        print(f"  API/floor instructions: {per_unit['api'] / per_unit['floor']:.2f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=40, help="matches of the API and floor games per run")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--callgrind", action="store_true", help="instructions per move under callgrind")
    parser.add_argument("--streams", action="store_true", help="each seat follows its events; measure the streams too")
    parser.add_argument("--sides", default="api,floor", choices=("api,floor", "api", "floor"), help="with --callgrind")
    parser.add_argument("--keep", help="with --callgrind: the directory to keep the callgrind files in")
    parser.add_argument("--toggle", choices=("api", "floor"), help=argparse.SUPPRESS)  # the process under callgrind
    parser.add_argument("--redis-url", help=argparse.SUPPRESS)
    args = parser.parse_args()

    from workers.redis_server import RedisServer

    with tempfile.TemporaryDirectory() as tmp:
        if args.redis_url:
            return measure(args, args.redis_url, Path(tmp))
        server = RedisServer(Path(tmp) / "redis", persistent=False)
        url = server.start()
        try:
            return callgrind(args, url, Path(tmp)) if args.callgrind else measure(args, url, Path(tmp))
        finally:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())

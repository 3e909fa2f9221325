"""The clients of bench/api_load.py: tables of seats playing whole matches over HTTP, and the bare client.

A table creates a game of its scenario (``SCENARIOS``), one thread per seat a client plays. Each seat reads
its view once, then follows the game's events (Server-Sent Events, or long polls) and, when ``turn_started``
names it, posts one of the legal moves that event carries with ``expected_version`` and ``Prefer:
return=minimal``; or (``wait="poll"``) polls its view with ``If-None-Match`` every 2 ms. With a computer
player at the table (``vs_bot``), the human seat also times its move to the computer player's reply in the
events.

Server CPU per move by match length: when the server answers with ``Server-Timing: cpu;dur=<ms>``
(bench/cpu_app.py), each move's CPU is kept with the round it was played in, and a match's moves are sorted
into the first, middle and last third of its rounds once its length is known (fixed-round matches: from the
rules; matches to a target score: when they end, so unfinished ones are left out).
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import math
import random
import statistics
import threading
import time
from collections.abc import Iterator
from typing import Any

# variant -> (seats, rules): what one table plays.
SCENARIOS: dict[str, tuple[int, dict[str, Any]]] = {
    "draw": (2, {"match_end": "fixed_rounds", "rounds": 1}),
    "all_fives": (4, {"teams": "partners_opposite", "target_score": 150}),
    "mexican_train": (4, {}),  # 13 rounds (a double-twelve set)
}


def pct(values: list[float], p: float) -> float:
    """The p-th percentile of ``values`` (seconds), in ms."""
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] * 1000


def median_interval(values: list[float]) -> tuple[float, float, float]:
    """(median, low, high): the runs' order statistics that cover the median with >= 95% (a binomial
    interval; with fewer than 6 runs none does, and [min, max] is given)."""
    xs, n = sorted(values), len(values)
    k = 0
    while 1 - 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n >= 0.95:
        k += 1
    low, high = (xs[k - 1], xs[n - k]) if k else (xs[0], xs[-1])
    return statistics.median(xs), low, high


def request(port: int, method: str, path: str, body: object = None, headers: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """(status, body, seconds, response headers) of one request on a new connection."""
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
    return resp.status, raw, elapsed, resp.headers


def server_cpu_ms(headers: Any) -> float | None:
    """The ``cpu`` metric of a ``Server-Timing`` header (bench/cpu_app.py), in ms."""
    for metric in (headers.get("Server-Timing") or "").split(","):
        name, _, params = metric.strip().partition(";")
        if name == "cpu" and params.startswith("dur="):
            return float(params[4:])
    return None


@dataclasses.dataclass
class Match:
    """One table's match as its clients saw it: each move's (round, server CPU ms), and its length."""

    rounds: int | None  # known from the rules (fixed rounds), else when the match ends
    moves: list[tuple[int, float]] = dataclasses.field(default_factory=list)
    last_round: int = 1

    def thirds(self) -> list[list[float]] | None:
        """Moves' CPU by the third of the match's rounds they were played in; None while the length is unknown."""
        if self.rounds is None:
            return None
        out: list[list[float]] = [[], [], []]
        for round_, cpu in self.moves:
            out[min(2, 3 * (round_ - 1) // self.rounds)].append(cpu)
        return out


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.moves: list[float] = []
        self.views: list[float] = []
        self.errors: list[str] = []
        self.games = 0
        self.requests = 0
        self.polls = 0  # long polls, or events received over SSE
        self.turns: list[float] = []  # a move sent -> the next seat told it is its turn (events only)
        self.replies: list[float] = []  # a human's move sent -> the computer player's reply in its events
        self.matches: list[Match] = []

    def add(self, kind: str, elapsed: float) -> None:
        with self.lock:
            getattr(self, kind).append(elapsed)
            self.requests += 1

    def cpu_thirds(self) -> tuple[list[float], int]:
        """Server CPU ms of every move of the matches of known length, by third; and how many matches."""
        out: list[list[float]] = [[], [], []]
        known = 0
        for match in self.matches:
            thirds = match.thirds()
            if thirds is not None and match.moves:
                known += 1
                for i in range(3):
                    out[i].extend(thirds[i])
        return [sum(t) / len(t) if t else float("nan") for t in out], known


@dataclasses.dataclass(frozen=True)
class Target:
    """Where the clients play: the REST port and the event-streams port."""

    port: int
    streams_port: int
    wait: str = "sse"  # sse, longpoll or poll
    variant: str = "draw"
    vs_bot: str | None = None  # a computer player's strategy in seat 1 (the other seats are clients)
    app_key: str | None = None  # games created with this app's key (its webhook hears what it subscribes to)


@dataclasses.dataclass
class Table:
    target: Target
    stats: Stats
    stop: float
    game_id: str
    match: Match
    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    posted: dict[int, float] = dataclasses.field(default_factory=dict)  # version a move makes -> when sent


def play_tables(target: Target, stats: Stats, stop: float, seed: int, last_start: float | None = None) -> None:
    """One table: create a game, play it to the end with a thread per client seat, again until ``stop``
    (no new match after ``last_start``, when given: the matches in play then are played to their end)."""
    rng = random.Random(seed)
    players, rules = SCENARIOS[target.variant]
    seats: list[dict[str, Any]] = [{"name": f"P{i}"} for i in range(players)]
    if target.vs_bot:
        seats[1] = {"bot": target.vs_bot}
    while time.monotonic() < min(stop, last_start or stop):
        body = {"variant": target.variant, "seats": seats, "rules": rules}
        owner = {"Authorization": f"Bearer {target.app_key}"} if target.app_key else None
        status, raw, _, _ = request(target.port, "POST", "/v1/games", body, owner)
        with stats.lock:
            stats.requests += 1
        if status != 201:
            stats.errors.append(f"create {status} {raw[:200]!r}")
            return
        created = json.loads(raw)
        rounds = created["game"].get("rules", {}).get("rounds")
        table = Table(target, stats, stop, created["game"]["id"], Match(rounds))
        play = play_seat_polling if target.wait == "poll" else play_seat_following
        threads = [
            threading.Thread(target=play, args=(table, t["seat"], t["token"], random.Random(rng.random())))
            for t in created["tokens"]
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with stats.lock:
            stats.matches.append(table.match)
            if table.done.is_set():
                stats.games += 1


def post_move(table: Table, auth: dict[str, str], move: dict[str, Any], version: int, round_: int, minimal: bool = False) -> Any:
    """Post ``move`` at ``version``; the seat's new view (``minimal``: only its version and status with
    ``Prefer: return=minimal``), or None (an error, counted)."""
    stats = table.stats
    move = {**move, "expected_version": version}
    table.posted[version + 1] = time.perf_counter()
    headers = {**auth, "Prefer": "return=minimal"} if minimal else auth
    status, raw, elapsed, resp_headers = request(table.target.port, "POST", f"/v1/games/{table.game_id}/moves", move, headers)
    if status != 200:
        stats.errors.append(f"move {status} {raw[:200]!r}")
        return None
    stats.add("moves", elapsed)
    cpu = server_cpu_ms(resp_headers)
    if cpu is not None:
        with stats.lock:
            table.match.moves.append((round_, cpu))
    return json.loads(raw)


def sse_events(port: int, path: str, headers: dict[str, str]) -> Iterator[dict[str, Any] | None]:
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


def long_poll_events(port: int, path: str, headers: dict[str, str], stats: Stats) -> Iterator[dict[str, Any] | None]:
    after = -1
    while True:
        status, raw, _, _ = request(port, "GET", f"{path}/events?after={after}&wait=1", headers=headers)
        if status != 200:
            raise RuntimeError(f"events {status} {raw[:200]!r}")
        with stats.lock:
            stats.polls += 1
        page = json.loads(raw)
        yield from page["events"] or [None]  # None: the wait ran out
        after = page["last_version"]


def play_seat_following(table: Table, seat: int, token: str, rng: random.Random) -> None:
    """Read the view once, then follow the game's events: move when ``turn_started`` names this seat, with
    one of the legal moves it carries (no view read in between)."""
    stats, target = table.stats, table.target
    auth = {"Authorization": f"Bearer {token}"}
    path = f"/v1/games/{table.game_id}"
    status, raw, elapsed, _ = request(target.port, "GET", path, headers=auth)
    stats.add("views", elapsed)
    if status != 200:
        stats.errors.append(f"view {status} {raw[:200]!r}")
        return
    round_ = json.loads(raw).get("round") or 1
    reply_to: tuple[int, float] | None = None  # (version of this seat's move, when sent), awaiting the bot
    events = (
        sse_events(target.streams_port, f"{path}/events", auth)
        if target.wait == "sse"
        else long_poll_events(target.streams_port, path, auth, stats)
    )
    try:
        for event in events:
            if time.monotonic() >= table.stop:
                return
            if event is None:
                continue
            if target.wait == "sse":
                with stats.lock:
                    stats.polls += 1
            kind = event["type"]
            if reply_to is not None and event["version"] > reply_to[0] and event.get("seat") == 1 and kind != "turn_started":
                with stats.lock:
                    stats.replies.append(time.perf_counter() - reply_to[1])
                reply_to = None
            if kind == "round_started":
                round_ = event["round"]
                with stats.lock:
                    table.match.last_round = max(table.match.last_round, round_)
            elif kind == "game_ended":
                with stats.lock:
                    table.match.rounds = table.match.rounds or table.match.last_round
                table.done.set()
                return
            elif kind == "turn_started" and event["seat"] == seat:
                sent = table.posted.get(event["version"])
                if sent is not None:
                    with stats.lock:
                        stats.turns.append(time.perf_counter() - sent)
                move = rng.choice(event["legal_moves"])
                if post_move(table, auth, move, event["version"], round_, minimal=True) is None:
                    return
                if target.vs_bot:
                    reply_to = (event["version"] + 1, table.posted[event["version"] + 1])
    except (OSError, RuntimeError) as exc:
        stats.errors.append(f"events {exc}")
    finally:
        events.close()  # type: ignore[attr-defined]


def play_seat_polling(table: Table, seat: int, token: str, rng: random.Random) -> None:
    """Poll the view (``If-None-Match``: a 304 while nothing changed) every 2 ms; move when it is this seat's turn."""
    stats, target = table.stats, table.target
    auth = {"Authorization": f"Bearer {token}"}
    path = f"/v1/games/{table.game_id}"
    etag = None
    view = None
    while time.monotonic() < table.stop and not table.done.is_set():
        headers = dict(auth)
        if etag and view is not None:
            headers["If-None-Match"] = etag
        status, raw, elapsed, _ = request(target.port, "GET", path, headers=headers)
        stats.add("views", elapsed)
        if status == 200:
            view = json.loads(raw)
            etag = f'"{view["version"]}"'
        elif status != 304:
            stats.errors.append(f"view {status} {raw[:200]!r}")
            return
        while view is not None and view["status"] == "playing" and view["legal_moves"] and time.monotonic() < table.stop:
            view = post_move(table, auth, rng.choice(view["legal_moves"]), view["version"], view["round"])
            if view is None:
                return
            etag = f'"{view["version"]}"'
        if view is not None and view["status"] != "playing":
            with stats.lock:
                table.match.rounds = table.match.rounds or view["round"]
            table.done.set()
            return
        time.sleep(0.002)  # another seat is to move: poll again shortly


def bare_client(port: int, stop: float, key: str, out: list[float], errors: list[str]) -> None:
    while time.monotonic() < stop:
        status, _, elapsed, _ = request(port, "POST", f"/bare/{key}", {})
        if status != 200:
            errors.append(f"bare {status}")
            return
        out.append(elapsed)

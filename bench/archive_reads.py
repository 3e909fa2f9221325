"""Reads of archived games (bench/archive.py --reads): `GET /v1/games?owner=me` and `/history` p99, and export
games per second, with 25,000 and then 250,000 archived games spread over 100 apps.

The games are made from a few real ones (two-player one-round draw games of each app, played through the
``Service`` and rendered as the archiving job renders them), copied under new ids into the archive by
``Archive.write`` in batches, created 10 ms apart, each app's games interleaved with the others'. Only the
archive holds them (Redis holds the apps). Requests go through the Flask app in this process (no network,
no rate limits); each timing is one request, its answer read whole. Per size and run: ``--requests``
owner lists (half the first page, half a page at a random `before` in the app's games), as many histories
of random games, and whole exports of 10 random apps; p50 and p99 per run, the median and range over runs,
of wall time and of this thread's CPU time (the API's own work, which the machine's load hardly changes;
Redis's and the database's CPU is not in it, their I/O waits are in the wall time); for PostgreSQL, the
server's CPU too (a read's, lists and histories together, and exported games per second of it).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import flask

from api.app import create_app
from api.archive import Entry
from api.config import Settings
from api.service.archiving import entry
from api.service.create import GameRequest
from api.service.security import new_id
from api.service.service import Service

import domino

APPS = 100
WRITE_BATCH = 2000
START = 1_700_000_000.0


@dataclasses.dataclass
class World:
    flask_app: flask.Flask
    service: Service
    keys: list[str]  # by app
    templates: list[Entry]  # one real game of each of a few apps
    ids: list[str]
    made: int = 0


def world(redis_url: str, url: str, prefix: str) -> World:
    settings = Settings(redis_url=redis_url, key_prefix=prefix, archive_url=url, rate_limit="")
    flask_app = create_app({"DOMINO": settings})
    service: Service = flask_app.extensions["domino.service"]
    service.archive.migrate()
    issued = [service.create_app(f"bench-{i}", None, "0", 0) for i in range(APPS)]  # "0": no rate limit
    templates = []
    for app in issued[:4]:
        request = GameRequest(
            "draw", [{"name": "Ana", "player": "user:1"}, {"name": "Bo"}], rules={"match_end": "fixed_rounds", "rounds": 1}
        )
        _view, tokens, _v, game_id = service.create_game(request, "127.0.0.1", app=app.app)
        by_seat = {t["seat"]: t["token"] for t in tokens}
        while not (game := service.games.read(game_id)).state.finished:
            service.play_move(game_id, domino.legal_moves(game.state)[0].to_dict(), by_seat[game.state.to_move])
        made = entry(game_id, service.store.whole_games.load([game_id])[game_id], time.time())
        assert made is not None
        templates.append(made)
    return World(flask_app, service, [i.key for i in issued], templates, [], 0)


def grow(w: World, apps: list[str], to: int) -> float:
    """Archive copies of the templates until the archive holds ``to`` of them: the seconds it took."""
    start = time.perf_counter()
    while w.made < to:
        batch = []
        for n in range(w.made, min(to, w.made + WRITE_BATCH)):
            source = w.templates[n % len(w.templates)]
            game_id, app = new_id(), apps[n % APPS]
            old, new = source.id.encode(), game_id.encode()
            old_app, new_app = str(source.app).encode(), app.encode()
            batch.append(dataclasses.replace(
                source, id=game_id, app=app, created_at=START + n * 0.01, ended_at=START + n * 0.01 + 60,
                doc=source.doc.replace(old, new).replace(old_app, new_app), record=source.record.replace(old, new),
                summary=source.summary.replace(old, new), events=source.events.replace(old, new),
            ))  # fmt: skip
            w.ids.append(game_id)
        w.service.archive.write(batch)
        w.made += len(batch)
    return time.perf_counter() - start


def timed(client: Any, url: str, key: str | None = None) -> tuple[float, float, bytes]:
    """(wall seconds, this thread's CPU seconds, the body) of one request."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    start, cpu = time.perf_counter(), time.thread_time()
    resp = client.get(url, headers=headers)
    body = resp.get_data()
    elapsed, cpu = time.perf_counter() - start, time.thread_time() - cpu
    assert resp.status_code == 200, (url, resp.status_code, body[:300])
    return elapsed, cpu, body


def one_run(w: World, rng: random.Random, requests: int, server_cpu: Callable[[], float]) -> dict[str, Any]:
    client = w.flask_app.test_client()
    lists, histories = [], []
    server = server_cpu()
    for n in range(requests):
        app = rng.randrange(APPS)
        before = "" if n % 2 == 0 else f"&before={START + rng.randrange(w.made) * 0.01!r}"
        *took, body = timed(client, f"/v1/games?owner=me&limit=20{before}", w.keys[app])
        assert n % 2 or body.count(b'"id"') >= 20
        lists.append(took)
        histories.append(timed(client, f"/v1/games/{rng.choice(w.ids)}/history")[:2])
    read_server, server = (server_cpu() - server) / (2 * requests), server_cpu()
    exported, seconds, cpu = 0, 0.0, 0.0
    for app in rng.sample(range(APPS), 10):
        elapsed, used, body = timed(client, "/v1/games/export", w.keys[app])
        exported += body.count(b"\n")
        seconds, cpu = seconds + elapsed, cpu + used
    export_server = server_cpu() - server
    return {
        "lists": lists, "histories": histories, "export": exported / seconds, "export cpu": exported / cpu, "exported": exported,
        "server per read": read_server * 1000, "export server": exported / export_server if export_server else 0.0,
    }  # fmt: skip


def p(samples: list[list[float]], q: float, cpu: bool = False) -> float:
    """The ``q`` quantile of the samples' wall (or CPU) times, in ms."""
    times = sorted(s[1 if cpu else 0] for s in samples)
    return times[min(len(times) - 1, int(q * len(times)))] * 1000


def reads(
    name: str, redis_url: str, url: str, sizes: list[int], runs: int, requests: int, server_cpu: Callable[[], float] | None
) -> dict[int, dict[str, list[float]]]:
    """Per size: each figure of each run. ``server_cpu``: the database server's CPU seconds so far (None: it
    is this process, SQLite)."""
    w = world(redis_url, url, f"bench-reads-{name}")
    apps = [w.service.authenticate_app(key).id for key in w.keys]
    rng = random.Random(7)
    out: dict[int, dict[str, list[float]]] = {}
    for size in sizes:
        took = grow(w, apps, size)
        print(f"{name}: {size:,} archived games ({took:.0f} s to write the copies)", flush=True)
        kinds = ["list p99", "list p99 cpu", "history p99", "history p99 cpu", "export", "export cpu"]
        figures: dict[str, list[float]] = {k: [] for k in kinds + (["server per read", "export server"] if server_cpu else [])}
        for run in range(runs):
            r = one_run(w, rng, requests, server_cpu or (lambda: 0.0))
            for what in ("list", "history"):
                samples = r["lists" if what == "list" else "histories"]
                figures[f"{what} p99"].append(p(samples, 0.99))
                figures[f"{what} p99 cpu"].append(p(samples, 0.99, cpu=True))
            for what in ("export", "export cpu", "server per read", "export server"):
                if what in figures:
                    figures[what].append(r[what])
            said = f"; the server's CPU: {r['server per read']:.2f} ms a read, {r['export server']:,.0f} exported per second" if server_cpu else ""
            print(
                f"  run {run + 1}: owner=me p50 {p(r['lists'], 0.5):.1f} ms p99 {figures['list p99'][-1]:.1f} ms"
                f" (CPU p99 {figures['list p99 cpu'][-1]:.1f});"
                f" history p50 {p(r['histories'], 0.5):.1f} ms p99 {figures['history p99'][-1]:.1f} ms"
                f" (CPU p99 {figures['history p99 cpu'][-1]:.1f});"
                f" export {r['exported']} games at {r['export']:,.0f} games/s ({r['export cpu']:,.0f} per CPU second){said}",
                flush=True,
            )
        out[size] = figures
    w.service.archive.dispose()
    return out


def report(name: str, out: dict[int, dict[str, list[float]]]) -> None:
    for size, figures in out.items():
        said = "; ".join(
            f"{what} median {statistics.median(v):,.1f} [{min(v):,.1f}, {max(v):,.1f}]" for what, v in figures.items()
        )
        print(f"  {name:10s} {size:>7,} games: {said}  (ms; export: games/s, per CPU second, per server CPU second)")
    sizes = sorted(out)
    if len(sizes) > 1:
        small, large = out[sizes[0]], out[sizes[-1]]
        for what in ("list p99", "list p99 cpu", "history p99", "history p99 cpu"):
            ratio = statistics.median(large[what]) / statistics.median(small[what])
            print(f"  {name:10s} {what} at {sizes[-1]:,} / at {sizes[0]:,}: {ratio:.2f}x")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reads", action="store_true", help="measure reads of archived games instead of archiving")
    parser.add_argument("--sizes", default="25000,250000", help="archived games, growing (with --reads)")
    parser.add_argument("--requests", type=int, default=1000, help="of each kind per run (with --reads)")

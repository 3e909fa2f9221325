"""How games spread over a Redis Cluster's masters, and what one move costs Redis (issue 18).

Starts a local cluster (three masters, a replica each: ``workers.redis_cluster.LocalCluster``, the suite's
own) and a plain Redis for the queues, and drives the API in this process (Flask's test client, the
production settings otherwise, rate limits on):

1. Spread: creates ``--games`` games (two human seats) through ``POST /v1/games``, so every key comes from
   the store's own key builders, then counts per master the games (their ``state`` keys), all keys, and the
   memory used. Each master must hold its even share within +-10%.
2. Per move: ``--moves`` moves on ``--tables`` games, each after the public view (whose turn) and the seat's
   (``GET /v1/games/{id}`` with its token: the legal moves), ``POST .../moves`` (``Prefer:
   return=minimal``); then as many pairs of views alone.
   Between ``CONFIG RESETSTAT`` and ``INFO`` on every master and on the queue Redis: commands executed
   (``INFO commandstats``: a script's own calls included, each script call counted once more as
   EVALSHA, whose time includes theirs; replication's REPLCONF left out) and the time spent executing
   them, client bytes in and out
   (``total_net_*_bytes`` less replication), and the Redis processes' CPU (``used_cpu_user`` +
   ``used_cpu_sys``: with the event loop, the cluster bus and replication, at this light load). A move's figure is the first window's per step less the second's
   per view. The figures are counts (the same each run); CPU varies: ``--runs`` repeats the move windows
   and prints the median and range.

3. Per computer player's move: ``--bot-games`` games of two bots played to the end by an RQ worker in this
   process, on the masters and on the queue Redis (RQ).

    python bench/cluster_spread.py [--games 10000] [--tables 40] [--moves 2000] [--runs 3] [--bot-games 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from api.config import Settings  # noqa: E402
from workers.redis_cluster import LocalCluster  # noqa: E402
from workers.redis_server import RedisServer  # noqa: E402

SEATS = [{"name": "Ana"}, {"name": "Bo"}]


def counters(conn: redis.Redis) -> dict[str, float]:
    stats = conn.info("stats")
    cpu = conn.info("cpu")
    commands = conn.info("commandstats")
    out: dict[str, float] = {
        "in": stats["total_net_input_bytes"] - stats.get("total_net_repl_input_bytes", 0),
        "out": stats["total_net_output_bytes"] - stats.get("total_net_repl_output_bytes", 0),
        "cpu": cpu["used_cpu_user"] + cpu["used_cpu_sys"],
    }
    for name, row in commands.items():
        command = name.removeprefix("cmdstat_")
        if command not in ("info", "config|resetstat", "replconf"):  # ours, and replication's own
            out[f"cmd:{command}"] = row["calls"]
            out[f"usec:{command}"] = row["usec"]
    return out


class Window:
    """Counters of a set of Redis servers between its start and :meth:`close`."""

    def __init__(self, conns: list[redis.Redis]) -> None:
        self.conns = conns
        for conn in conns:
            conn.config_resetstat()
        self.before = [counters(conn) for conn in conns]  # CPU is not reset

    def close(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for conn, before in zip(self.conns, self.before):
            after = counters(conn)
            for key, value in after.items():
                total[key] += value - (before.get(key, 0) if key == "cpu" else 0)
        return total


class Game:
    """One game and its client (an address of its own: rate limits count per client)."""

    opened = 0

    def __init__(self, client: Any) -> None:
        Game.opened += 1
        self.environ = {"REMOTE_ADDR": f"10.{Game.opened >> 16 & 255}.{Game.opened >> 8 & 255}.{Game.opened & 255}"}
        resp = client.post("/v1/games", json={"variant": "draw", "seats": SEATS}, environ_base=self.environ)
        assert resp.status_code == 201, resp.get_data(as_text=True)
        data = resp.get_json()
        self.client = client
        self.id = data["game"]["id"]
        self.tokens = {t["seat"]: t["token"] for t in data["tokens"]}
        self.finished = False

    def look(self) -> tuple[int, dict[str, Any]]:
        """The public view (whose turn it is), then that seat's (its legal moves): what a client does."""
        turn = self.client.get(f"/v1/games/{self.id}", environ_base=self.environ).get_json()["turn"]
        auth = {"Authorization": f"Bearer {self.tokens[turn]}"}
        resp = self.client.get(f"/v1/games/{self.id}", headers=auth, environ_base=self.environ)
        assert resp.status_code == 200, resp.get_data(as_text=True)
        return turn, resp.get_json()

    def step(self) -> None:
        turn, seen = self.look()
        resp = self.client.post(
            f"/v1/games/{self.id}/moves",
            json=seen["legal_moves"][0],
            headers={"Authorization": f"Bearer {self.tokens[turn]}", "Prefer": "return=minimal"},
            environ_base=self.environ,
        )
        assert resp.status_code == 200, resp.get_data(as_text=True)
        self.finished = resp.get_json()["status"] == "finished"


def per(total: Counter[str], n: int) -> dict[str, float]:
    return {key: value / n for key, value in total.items()}


def show(label: str, figures: dict[str, float]) -> None:
    """Commands per request, each with its execution time (a script's time includes its own calls')."""
    commands = {k.removeprefix("cmd:"): v for k, v in figures.items() if k.startswith("cmd:") and abs(v) >= 0.005}
    listed = ", ".join(
        f"{k} {v:.2f} ({figures.get('usec:' + k, 0):.1f} us)" for k, v in sorted(commands.items(), key=lambda kv: -kv[1])
    )
    print(f"  {label}: {sum(commands.values()):.2f} commands: {listed}; "
          f"{figures.get('in', 0):.0f} B in, {figures.get('out', 0):.0f} B out")  # fmt: skip


def bots(client: Any, masters: list[redis.Redis], queue: redis.Redis, queue_url: str, games: int) -> None:
    """Games of two computer players, played to the end by an RQ worker in this process: per bot move, what
    the masters and the queue Redis (RQ's jobs, the due set) do. Creating the games is in the window too,
    spread over their moves."""
    from rq import SimpleWorker

    masters_window, queue_window = Window(masters), Window([queue])
    ids = []
    for _ in range(games):
        resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"bot": "greedy"}, {"bot": "greedy"}]})
        assert resp.status_code == 201, resp.get_data(as_text=True)
        ids.append(resp.get_json()["game"]["id"])
    names = [Settings().bots_queue, Settings().bot_games_queue]  # a game of bots only plays on the second
    worker = SimpleWorker(names, connection=redis.Redis.from_url(queue_url), serializer="json")
    worker.work(burst=True, logging_level="WARNING")
    on_masters, on_queue = masters_window.close(), queue_window.close()
    views = [client.get(f"/v1/games/{game_id}").get_json() for game_id in ids]
    assert all(view["status"] == "finished" for view in views), "the worker stopped before the games ended"
    moves = sum(view["version"] for view in views)
    print(f"per computer player's move ({moves} moves in {games} games of two greedy bots, creates included):")
    show("masters", per(on_masters, moves))
    show("queue Redis", per(on_queue, moves))


def spread(client: Any, masters: dict[int, redis.Redis], count: int) -> None:
    memory_before = {port: conn.info("memory")["used_memory"] for port, conn in masters.items()}
    for _ in range(count):
        Game(client)
    share = count / len(masters)
    print(f"spread of {count} games over {len(masters)} masters (even share {share:.0f}):")
    worst = 0.0
    for port, conn in masters.items():
        games = sum(1 for _ in conn.scan_iter(match="*:state", count=1000))
        memory = conn.info("memory")["used_memory"] - memory_before[port]
        off = games / share - 1
        worst = max(worst, abs(off))
        print(f"  master :{port}: {games} games ({off:+.1%}), {conn.dbsize()} keys, "
              f"{memory / games / 1024:.2f} KiB per game")  # fmt: skip
    print(f"  largest deviation from the even share: {worst:.1%} ({'within' if worst <= 0.10 else 'OUTSIDE'} +-10%)")


def less(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    return {k: a.get(k, 0) - b.get(k, 0) for k in set(a) | set(b)}


def human_moves(client: Any, masters: list[redis.Redis], queue: redis.Redis, tables: int, moves: int, show_counts: bool) -> tuple[float, float]:
    """One run of the per-move windows; (CPU per move, per two views) on the masters, in us."""
    games = [Game(client) for _ in range(tables)]
    moves_window, queue_window = Window(masters), Window([queue])
    for i in range(moves):
        game = games[i % len(games)]
        if game.finished:
            game = games[i % len(games)] = Game(client)
        game.step()
    steps, steps_queue = moves_window.close(), queue_window.close()
    games = [Game(client) if game.finished else game for game in games]
    views_window, queue_window = Window(masters), Window([queue])
    for i in range(moves):
        games[i % len(games)].look()
    views, views_queue = views_window.close(), queue_window.close()
    view = per(views, moves)
    move = less(per(steps, moves), view)
    if show_counts:
        view_queue = per(views_queue, moves)
        print(f"per request, {moves} moves on {tables} games (games' masters; queue Redis):")
        show("a move (POST, return=minimal), masters", move)
        show("a move, queue Redis", less(per(steps_queue, moves), view_queue))
        show("two views (public, then the seat's), masters", view)
        show("two views, queue Redis", view_queue)
    return move["cpu"] * 1e6, view["cpu"] * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bot-games", type=int, default=20)
    args = parser.parse_args()

    from api.app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        cluster = LocalCluster(Path(tmp) / "cluster")
        queues = RedisServer(Path(tmp) / "queues", persistent=False)
        try:
            cluster.start()
            queue_url = queues.start()
            settings = Settings(redis_url=cluster.url, queue_url=queue_url)
            os.environ.update({"DOMINO_REDIS_URL": cluster.url, "DOMINO_QUEUE_URL": queue_url})  # the jobs read it
            client = create_app({"DOMINO": settings}).test_client()
            masters = {node.port: redis.Redis(port=node.port) for node in cluster.masters()}
            queue = redis.Redis.from_url(queue_url)
            spread(client, masters, args.games)
            runs = [human_moves(client, list(masters.values()), queue, args.tables, args.moves, run == 0) for run in range(args.runs)]
            bots(client, list(masters.values()), queue, queue_url, args.bot_games)
            cpu_moves, cpu_views = [m for m, _ in runs], [v for _, v in runs]
            print(f"Redis CPU per request on the masters, median of {args.runs} runs [range]: "
                  f"a move {statistics.median(cpu_moves):.0f} us [{min(cpu_moves):.0f}-{max(cpu_moves):.0f}], "
                  f"two views {statistics.median(cpu_views):.0f} us [{min(cpu_views):.0f}-{max(cpu_views):.0f}]")  # fmt: skip
        finally:
            cluster.stop()
            queues.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

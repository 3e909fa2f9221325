"""Abuse: REST latency while many idle event streams are open, and a human game's bot replies while games of
computer players only run (issue 21). Bounded in count and time; 127.0.0.1 only.

Starts a default ``domino-serve`` (its own Redis in a temporary folder, gevent API processes, the bots,
bot-games, simulations and webhooks workers) on a free port. Every request of the bench comes from
127.0.0.1, one client, so the per-client limits are raised (and still counted): the stream cap
(``DOMINO_STREAMS_PER_CLIENT``, default 32) to the number of streams, the rate limit
(``DOMINO_RATE_LIMIT``, default 3000 requests a minute) to a million a minute, and the games a client may
have waiting or playing (``DOMINO_GAMES_PER_CLIENT``, default 20) to 10,000.

- REST: ``GET /v1/variants`` and a game's view, one after the other on one keep-alive connection, ``--requests``
  a run; p99 with no stream open, then with ``--streams`` idle SSE streams open (spectators of idle games of
  two humans, spread over games so the per-game cap is not reached; each waits in XREAD, keep-alive every 15 s).
- Bot reply: in a game of a human and a ``greedy`` computer player, the human posts a move and follows the
  game's events (long poll); the reply is the time from the move's answer to the ``turn_started`` naming the
  human again. ``--replies`` a run; p99 with no other game, then while ``--bot-games`` games of two ``expert``
  players at the caps of a bot-only game (``think_ms`` 250, ``target_score`` 250) run.

Each figure is the median over ``--runs`` runs of that run's p99 (and p50), with the range of the runs' p99.

    python bench/abuse.py [--streams 500] [--bot-games 20] [--runs 3] [--requests 400] [--replies 60]
"""

from __future__ import annotations

import argparse
import os
import selectors
import socket
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from served import HOST, Served, call, new_game, rest, serve_env, summary  # noqa: E402


def hold_streams(port: int, game_ids: list[str], n: int, timeout: float = 60.0) -> list[socket.socket]:
    """Open ``n`` spectator SSE streams spread over ``game_ids``; returns the sockets once every stream has
    sent its first frame (``retry:``), i.e. the server holds all of them."""
    socks = []
    sel = selectors.DefaultSelector()
    for i in range(n):
        s = socket.create_connection((HOST, port), timeout=timeout)
        path = f"/v1/games/{game_ids[i % len(game_ids)]}/events"
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n\r\n".encode())
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, bytearray())
        socks.append(s)
    waiting = n
    deadline = time.monotonic() + timeout
    while waiting and time.monotonic() < deadline:
        for key, _ in sel.select(1.0):
            buf = key.data
            buf += key.fileobj.recv(4096)  # type: ignore[union-attr]
            if b"retry:" in buf or not buf.startswith(b"HTTP/1.1 200"):
                if not buf.startswith(b"HTTP/1.1 200"):
                    raise RuntimeError(f"a stream was refused: {bytes(buf[:200])!r}")
                sel.unregister(key.fileobj)
                waiting -= 1
    sel.close()
    if waiting:
        raise RuntimeError(f"{waiting} of {n} streams did not open")
    return socks


def rest_latencies(port: int, game_id: str, requests: int) -> list[float]:
    latencies, failed = rest(port, game_id, requests)
    if failed:
        raise RuntimeError(f"{failed} of {requests} REST requests failed")
    return latencies


def bot_replies(port: int, replies: int) -> list[float]:
    """Play a human against a computer player; the time from each human move's answer until the human is to
    move again (or the game ended), seen on the game's events."""
    out: list[float] = []
    game: dict[str, Any] = {}
    while len(out) < replies:
        if not game:
            created = new_game(port, [{"name": "Ana"}, {"bot": "greedy"}])
            game = {"id": created["game"]["id"], "auth": {"Authorization": f"Bearer {created['tokens'][0]['token']}"}}
        status, view = call(port, "GET", f"/v1/games/{game['id']}", headers=game["auth"])
        if view["status"] != "playing":
            game = {}
            continue
        version, moved = view["version"], view.get("turn") == 0
        if moved:
            status, answer = call(
                port, "POST", f"/v1/games/{game['id']}/moves",
                {**view["legal_moves"][0], "expected_version": version}, {**game["auth"], "Prefer": "return=minimal"},
            )  # fmt: skip
            if status != 200:
                continue  # 412: the view was stale; read it again
            version = answer["version"]
        t0 = time.perf_counter()
        cursor = version - 1 if moved else version  # from the human's own move on: it may leave the human to move
        while True:  # follow the events until the human is to move again, or the game is over
            status, page = call(port, "GET", f"/v1/games/{game['id']}/events?after={cursor}&wait=10", headers=game["auth"])
            turns = [e for e in page["events"] if e["type"] == "turn_started"]
            if page["ended"] or (turns and turns[-1]["seat"] == 0):
                break
            cursor = page["last_version"]
        if moved and (page["last_version"] or 0) > version:  # the computer player did reply
            out.append(time.perf_counter() - t0)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=500, choices=range(1, 2001), metavar="1..2000")
    parser.add_argument("--bot-games", type=int, default=20, choices=range(1, 51), metavar="1..50")
    parser.add_argument("--runs", type=int, default=3, choices=range(1, 11), metavar="1..10")
    parser.add_argument("--requests", type=int, default=400, choices=range(10, 5001), metavar="10..5000")
    parser.add_argument("--replies", type=int, default=60, choices=range(5, 1001), metavar="5..1000")
    args = parser.parse_args()

    env = serve_env(
        DOMINO_STREAMS_PER_CLIENT=str(args.streams + 10), DOMINO_RATE_LIMIT="1000000/60", DOMINO_GAMES_PER_CLIENT="10000"
    )
    started = time.monotonic()
    served = Served(env)
    port = served.port
    try:
        idle = [new_game(port, [{"name": "Ana"}, {"name": "Bo"}])["game"]["id"] for _ in range(max(1, args.streams // 100))]
        rest_quiet = [rest_latencies(port, idle[0], args.requests) for _ in range(args.runs)]
        replies_quiet = [bot_replies(port, args.replies) for _ in range(args.runs)]

        socks = hold_streams(port, idle, args.streams)
        rest_streams = [rest_latencies(port, idle[0], args.requests) for _ in range(args.runs)]
        for s in socks:
            s.close()

        cap = {"bot": "expert", "think_ms": 250}
        for _ in range(args.bot_games):
            new_game(port, [cap, dict(cap)], rules={"target_score": 250})
        time.sleep(1.0)  # the bot-games worker is busy with them
        replies_busy = [bot_replies(port, args.replies) for _ in range(args.runs)]
        _, ready = call(port, "GET", "/readyz")
    finally:
        served.stop()

    print(f"domino-serve defaults (2 gevent API processes), {args.runs} runs; load average {os.getloadavg()[0]:.1f}")
    print(summary("REST, no stream open", rest_quiet))
    print(summary(f"REST, {args.streams} idle SSE streams open", rest_streams))
    print(summary("bot reply in a human game, alone", replies_quiet))
    print(summary(f"bot reply, {args.bot_games} bot-only games running", replies_busy))
    print(f"targets: REST p99 < 100 ms under streams, bot reply p99 < 200 ms under bot-only games; readyz {ready['checks']}")
    print(f"elapsed {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

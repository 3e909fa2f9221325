"""Abuse (issue 32, item 4): an honest hosted bot's turn deliveries while another client's games point their
hosted seats at hosts that never answer. 127.0.0.0/8 only; bounded in count and time.

Starts a default ``domino-serve`` (``bench/served.py``'s ``Served``; one webhooks worker) with
``DOMINO_WEBHOOK_ALLOW_PRIVATE=1`` (every host here is on loopback) and the rate limit raised. The honest
client (127.0.0.1) plays a game of a hosted bot (a local HTTP server that answers 204 at once, then moves with
its seat token) against a human seat the bench moves; a delivery's latency is the time from the human move's
answer to the turn's arrival at the bot. ``--deliveries`` a run, first with no attack, then from the moment
the attack begins: ``--holes`` games created by another client (127.0.0.66), each with its hosted seat at a
listener of its own that accepts connections and never answers (a black hole: every one a new host, so no
back-off is shared between them). Each figure is the median over ``--runs`` runs of that run's p99 (and
p50), with the range; lost counts the human moves whose delivery never came (30 s ceiling each).

    python bench/abuse_webhooks.py [--holes 20] [--runs 3] [--deliveries 40]
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import socket
import sys
import threading
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from served import HOST, Served, call, serve_env, summary  # noqa: E402

ATTACKER = "127.0.0.66"


class Bot:
    """The honest hosted bot: hands each turn notice (and when it came) to the bench, answers 204."""

    def __init__(self) -> None:
        self.turns: list[tuple[float, dict[str, Any]]] = []
        self.arrived = threading.Condition()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer.arrived:
                    outer.turns.append((time.perf_counter(), body))
                    outer.arrived.notify_all()
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer((HOST, 0), Handler)
        self.url = f"http://{HOST}:{self.server.server_address[1]}/turn"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def next_turn(self, seen: int, timeout: float = 30.0) -> tuple[float, dict[str, Any]] | None:
        with self.arrived:
            if not self.arrived.wait_for(lambda: len(self.turns) > seen, timeout):
                return None
            return self.turns[seen]


def hole() -> socket.socket:
    """A listener that accepts (the kernel does, into its backlog) and never answers."""
    return socket.create_server((HOST, 0), backlog=64)


def deliveries(port: int, bot: Bot, count: int) -> tuple[list[float], int]:
    """(latencies in s, lost) of ``count`` deliveries to ``bot`` in games against the bench's human seat."""
    out: list[float] = []
    lost = 0
    while len(out) + lost < count:
        status, data = call(port, "POST", "/v1/games", {"variant": "draw", "seats": [{"name": "hb", "webhook": bot.url}, {"name": "Ana"}]})
        assert status == 201, data
        game = data["game"]["id"]
        tokens = {t["seat"]: t["token"] for t in data["tokens"]}
        seen = len(bot.turns)
        t0 = time.perf_counter()
        while len(out) + lost < count:
            _, view = call(port, "GET", f"/v1/games/{game}", headers={"Authorization": f"Bearer {tokens[1]}"})
            if view["status"] != "playing":
                break
            if view["turn"] == 1:  # the human's move; its answer starts the clock
                _, answer = call(port, "POST", f"/v1/games/{game}/moves", view["legal_moves"][0], {"Authorization": f"Bearer {tokens[1]}"})
                t0 = time.perf_counter()
                if answer.get("status") != "playing" or answer.get("turn") != 0:
                    continue
            turn = bot.next_turn(seen)
            if turn is None:
                lost += 1
                break
            seen += 1
            out.append(turn[0] - t0)
            notice = turn[1]
            call(port, "POST", f"/v1/games/{game}/moves", notice["legal_moves"][0], {"Authorization": f"Bearer {tokens[0]}"})
    return out, lost


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--holes", type=int, default=20, choices=range(1, 21), metavar="1..20")
    parser.add_argument("--runs", type=int, default=3, choices=range(1, 11), metavar="1..10")
    parser.add_argument("--deliveries", type=int, default=40, choices=range(5, 1001), metavar="5..1000")
    args = parser.parse_args()
    started = time.monotonic()
    served = Served(serve_env(DOMINO_RATE_LIMIT="1000000/60", DOMINO_WEBHOOK_ALLOW_PRIVATE="1"))
    port = served.port
    bot = Bot()
    holes = [hole() for _ in range(args.holes)]
    try:
        quiet = [deliveries(port, bot, args.deliveries) for _ in range(args.runs)]
        seats = lambda h: [{"name": "x", "webhook": f"http://{HOST}:{h.getsockname()[1]}/turn"}, {"name": "y"}]  # noqa: E731
        for h in holes:  # each game's hosted seat to move: its delivery goes to the hole
            status, data = call(port, "POST", "/v1/games", {"variant": "draw", "seats": seats(h)}, source=ATTACKER)
            assert status == 201, data
            if data["game"]["turn"] != 0:
                auth = {"Authorization": f"Bearer {next(t['token'] for t in data['tokens'] if t['seat'] == 1)}"}
                _, view = call(port, "GET", f"/v1/games/{data['game']['id']}", headers=auth, source=ATTACKER)
                call(port, "POST", f"/v1/games/{data['game']['id']}/moves", view["legal_moves"][0], auth, source=ATTACKER)
        busy = [deliveries(port, bot, args.deliveries) for _ in range(args.runs)]
    finally:
        served.stop()
        for h in holes:
            h.close()
    print(f"domino-serve defaults (1 webhooks worker), {args.runs} runs; load average {os.getloadavg()[0]:.1f}")
    print(summary("honest delivery, no attack", [r for r, _ in quiet]) + f"   lost {sum(n for _, n in quiet)}")
    print(summary(f"honest delivery, {args.holes} black-hole games", [r for r, _ in busy]) + f"   lost {sum(n for _, n in busy)}")
    print("target (issue 32): a legitimate delivery p99 <= 1 s under the attack")
    print(f"elapsed {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

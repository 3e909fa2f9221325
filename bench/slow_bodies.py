"""Slow bodies (issue 32): REST latency and liveness while thousands of requests from 4 addresses send their
headers and then their body a byte at a time. Bounded in count and time; 127.0.0.0/8 only.

Starts a default ``domino-serve`` (its own Redis in a temporary folder, 2 gevent API processes) on a free port
with the open-files soft limit at 1,024 (a login shell's or a systemd unit's usual default; the hard limit is
this machine's), every other setting at its default (rate limit, body deadline 10 s, 64 requests in flight per
client and process). Then, in one run:

- without the attack: ``--requests`` REST requests (a game's view and ``GET /v1/variants`` in turn, one
  keep-alive connection from 127.0.0.1), timed one by one; ``/healthz`` probed ``--probes`` times;
- with the attack: ``--slow`` connections from 127.0.0.2-5 (a quarter each), each sending a ``POST /v1/games``'s
  headers (``Content-Length: 100``) and then one byte of body every 5 s, kept at that number (a connection
  the server answers or closes is opened again, at most once a second per slot), and the same measurements.

Each figure is the median over ``--runs`` runs of that run's p50 and p95, with the range of the p95s; the
attack's answers are counted by status (408: the body deadline; 429: the cap on requests in flight, or the
rate limit).

    python bench/slow_bodies.py [--slow 4000] [--runs 3] [--requests 300] [--probes 20]
"""

from __future__ import annotations

import argparse
import collections
import http.client
import os
import resource
import selectors
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from served import HOST, Served, new_game, rest, serve_env, summary  # noqa: E402

HEAD = (
    b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
)


class Attack(threading.Thread):
    """``n`` slow bodies from 127.0.0.2-5, kept open (one byte every 5 s), until stopped."""

    def __init__(self, port: int, n: int) -> None:
        super().__init__(daemon=True)
        self.port, self.n = port, n
        self.stopping = threading.Event()
        self.answers: collections.Counter[str] = collections.Counter()
        self.held = 0

    def open(self, slot: int, sel: selectors.BaseSelector) -> None:
        try:
            sock = socket.create_connection((HOST, self.port), timeout=5, source_address=(f"127.0.0.{2 + slot % 4}", 0))
            sock.sendall(HEAD)
            sock.setblocking(False)
            sel.register(sock, selectors.EVENT_READ, [slot, time.monotonic()])
        except OSError:
            self.answers["connect failed"] += 1

    def run(self) -> None:
        sel = selectors.DefaultSelector()
        for slot in range(self.n):
            self.open(slot, sel)
        closed: list[tuple[float, int]] = []
        while not self.stopping.is_set():
            for key, _ in sel.select(0.5):
                sock, (slot, _) = key.fileobj, key.data
                try:
                    raw = sock.recv(4096)  # type: ignore[union-attr]
                except OSError:
                    raw = b""
                line = raw.partition(b"\r\n")[0].split()
                self.answers[line[1].decode() if len(line) > 1 else "closed"] += 1
                sel.unregister(sock)
                sock.close()  # type: ignore[union-attr]
                closed.append((time.monotonic() + 1, slot))
            now = time.monotonic()
            for key in list(sel.get_map().values()):
                if now - key.data[1] >= 5:
                    key.data[1] = now
                    try:
                        key.fileobj.send(b" ")  # type: ignore[union-attr]
                    except OSError:
                        pass
            due = [c for c in closed if c[0] <= now]
            closed = [c for c in closed if c[0] > now]
            for _, slot in due:
                self.open(slot, sel)
            self.held = len(sel.get_map())
        for key in list(sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]


def probes(port: int, n: int) -> int:
    """How many of ``n`` ``/healthz`` probes answered 200 within 5 s."""
    ok = 0
    for _ in range(n):
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=5)
            conn.request("GET", "/healthz")
            ok += conn.getresponse().status == 200
            conn.close()
        except OSError:
            pass
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slow", type=int, default=4000, choices=range(4, 8001), metavar="4..8000")
    parser.add_argument("--runs", type=int, default=3, choices=range(1, 11), metavar="1..10")
    parser.add_argument("--requests", type=int, default=300, choices=range(10, 5001), metavar="10..5000")
    parser.add_argument("--probes", type=int, default=20, choices=range(1, 201), metavar="1..200")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < args.slow + 200:
        sys.exit(f"the hard open-files limit, {hard}, is under what the attack holds here")

    env = serve_env()
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))  # what domino-serve is started with
    served = Served(env, "--simulation-workers", "0", "--webhook-workers", "0", "--bot-game-workers", "0")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this process holds the attack's connections
    started = time.monotonic()
    try:
        game_id = new_game(served.port, [{"name": "Ana"}, {"name": "Bo"}])["game"]["id"]
        quiet = [rest(served.port, game_id, args.requests) for _ in range(args.runs)]
        quiet_probes = probes(served.port, args.probes)
        attack = Attack(served.port, args.slow)
        attack.start()
        while attack.held < args.slow * 0.9 and time.monotonic() - started < 120:
            time.sleep(0.5)  # the attack is opening its connections
        held_at_start = attack.held
        busy = [rest(served.port, game_id, args.requests) for _ in range(args.runs)]
        busy_probes = probes(served.port, args.probes)
        held_at_end = attack.held
        attack.stopping.set()
        attack.join(30)
        alive = served.proc.poll() is None
    finally:
        served.stop()

    print(f"domino-serve defaults (2 gevent API processes) started at an open-files soft limit of 1024; {args.runs} runs")
    print(f"load average {os.getloadavg()[0]:.1f}; elapsed {time.monotonic() - started:.0f} s")
    print(summary("REST, no attack", [r for r, _ in quiet], 95) + f"   failed {sum(f for _, f in quiet)}")
    print(summary(f"REST, {args.slow} slow bodies from 4 addresses", [r for r, _ in busy], 95) + f"   failed {sum(f for _, f in busy)}")
    print(f"/healthz answered: {quiet_probes}/{args.probes} without, {busy_probes}/{args.probes} under the attack")
    print(f"slow connections open: {held_at_start} when measuring began, {held_at_end} at its end")
    print(f"the attack's answers: {dict(attack.answers.most_common())}; domino-serve alive: {alive}")
    print("targets: REST p95 <= 200 ms under the attack, /healthz always answers")
    return 0


if __name__ == "__main__":
    sys.exit(main())

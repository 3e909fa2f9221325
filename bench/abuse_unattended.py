"""Abuse (issue 32, item 2): a human game's computer-player replies while one address runs games that play
themselves through the one-seat bypass. 127.0.0.0/8 only; bounded in count and time.

Starts a default ``domino-serve`` (``bench/served.py``'s ``Served``: its own Redis, the bots, bot-games,
simulations and webhooks workers) with the rate limit raised for the measuring client. The attack, from
127.0.0.66 (another client address than the measurement's 127.0.0.1): ``--games`` games, each of one human
seat that never moves (``turn_timeout_s: 1``, so the server would move for it) and three ``expert`` seats
thinking 1 s, to a target of 100,000 (the issue's shape). The measurement (``bench/abuse.py``'s
``bot_replies``): a human plays a ``greedy`` computer player; a reply is the time from the human move's
answer to the ``turn_started`` naming the human again. ``--replies`` a run, first with no attack, then from
the moment the attack's games are created (their first computer turns and the human seat's first
deadlines come within seconds). Each figure is the median over ``--runs`` runs of that run's p99 (and p50),
with the range of the runs' p99. It also counts, once the runs are over, the attack games that are held
(waiting at their human seat's passed deadline).

    python bench/abuse_unattended.py [--games 20] [--runs 3] [--replies 60]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from abuse import bot_replies  # noqa: E402
from served import Served, call, serve_env, summary  # noqa: E402

ATTACKER = "127.0.0.66"


def attack(port: int, games: int) -> list[str]:
    slow = {"bot": "expert", "think_ms": 1000}
    body = {"variant": "draw", "seats": [{"name": "x"}, slow, dict(slow), dict(slow)], "rules": {"target_score": 100000},
            "turn_timeout_s": 1}  # fmt: skip
    ids = []
    for _ in range(games):
        status, data = call(port, "POST", "/v1/games", body, source=ATTACKER)
        if status != 201:
            raise RuntimeError(f"attack game refused: {status} {data}")
        ids.append(data["game"]["id"])
    return ids


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20, choices=range(1, 21), metavar="1..20")
    parser.add_argument("--runs", type=int, default=3, choices=range(1, 11), metavar="1..10")
    parser.add_argument("--replies", type=int, default=60, choices=range(5, 1001), metavar="5..1000")
    args = parser.parse_args()
    started = time.monotonic()
    served = Served(serve_env(DOMINO_RATE_LIMIT="1000000/60"))
    port = served.port
    try:
        quiet = [bot_replies(port, args.replies) for _ in range(args.runs)]
        attack_at = time.monotonic()
        ids = attack(port, args.games)
        busy = [bot_replies(port, args.replies) for _ in range(args.runs)]
        busy_for = time.monotonic() - attack_at
        views = [call(port, "GET", f"/v1/games/{g}")[1] for g in ids]
        held = sum(1 for v in views if v["status"] == "playing" and v["turn"] == 0 and v["deadline"] < time.time())
        moved = sum(v["version"] for v in views)
        _, ready = call(port, "GET", "/readyz")
    finally:
        served.stop()
    print(f"domino-serve defaults, {args.runs} runs; load average {os.getloadavg()[0]:.1f}")
    print(summary("bot reply in a human game, no attack", quiet))
    print(summary(f"bot reply, {args.games} one-seat self-playing games", busy))
    print(f"  measured over the attack's first {busy_for:.0f} s; afterwards {held} of {args.games} attack games held at")
    print(f"  their human seat's deadline, {moved} versions played in all of them; readyz {ready['checks']}")
    print("target (issue 32): live bot reply p99 <= 200 ms under the attack")
    print(f"elapsed {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

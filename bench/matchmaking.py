"""Matchmaking: how fast a compatible ticket is matched among many waiting ones, that no ticket is matched
twice, and how a matcher pass grows with the waiting tickets.

Starts a private redis-server (127.0.0.1, a free port, no persistence) and one RQ worker process on the bots
queue (the matcher's jobs; ``python -m workers.cli worker bots``, no sweep).

1. **Latency.** ``--waiting`` tickets wait, of mixed variants (draw, block, All Fives), table sizes (2-4) and
   ratings: groups of size-1 tickets of one app's players with the same ordinal (each player's rating written
   as a rated game would) and ranges of +-0.4 around it, groups 1 ordinal point apart, no widening, so no
   table can form. Then ``--probes`` new tickets, each completing a random group (its ordinal), are opened one
   after the other as the API opens them (the ticket stored, the matcher's job queued); each is timed from
   before its open to the moment its long poll sees it matched. Prints p50, p95, p99, max.
2. **Exactly once.** Every ticket's record is read back: each matched (game, seat) is one ticket's, each game
   has its table's size of tickets, and the groups probed are the only ones matched.
3. **Parties** (``--parties``): in a 4-player team block pool, that many parties (an opener's ``party: new``
   and its partner naming the code) and twice as many solo tickets arrive in a random order, the matcher asked
   after each as the API asks it; once all are matched, how many parties sit as partners (seats 0 and 2, or 1
   and 3, of one game): the target is every one.
4. **Cost per pass** against the waiting tickets of one pool (``--scaling``, e.g. 1000,10000,100000): a pass for
   a new ticket that completes no table (it reads the whole pool: linear), and a whole-pool pass as the sweep
   runs it; medians of ``--runs`` runs.

    python bench/matchmaking.py [--waiting 10000] [--probes 200] [--parties 200] [--scaling 1000,10000,100000] [--runs 5]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from api.config import Settings  # noqa: E402
from api.service.matchmaking import TicketRequest  # noqa: E402
from api.service.matchmaking.spec import PLAYER, Holder  # noqa: E402
from api.service.ratings import PLAYER as RATED_PLAYER  # noqa: E402
from api.service.service import Service  # noqa: E402
from workers.redis_server import RedisServer  # noqa: E402

SHAPES = [("draw", 2), ("draw", 3), ("block", 2), ("block", 4), ("all_fives", 2), ("all_fives", 3)]
SIGMA = 1.0


def rate(service: Service, variant: str, app_id: str, player: str, ordinal: float) -> None:
    """Give ``player`` this ordinal in ``variant``, as a rated game's result is stored."""
    record = {"name": player, "kind": RATED_PLAYER, "mu": ordinal + 3 * SIGMA, "sigma": SIGMA, "games": 1}
    key = f"{RATED_PLAYER}:{app_id}:{player}"
    service.store.queue_redis.hset(service.store.ratings.key(variant), key, orjson.dumps(record))


def seek(service: Service, app_id: str, variant: str, size: int, player: str, ordinal: float) -> dict:
    rate(service, variant, app_id, player, ordinal)
    req = TicketRequest(variant=variant, players=size, rated=True, rating_range=(ordinal - 0.4, ordinal + 0.4))
    return service.matchmaking.tickets.open(req, Holder(PLAYER, player, app_id))


def populate(service: Service, app_id: str, waiting: int) -> dict[int, tuple[str, int, float]]:
    """Groups of size-1 waiting tickets; returns group -> (variant, size, ordinal)."""
    groups: dict[int, tuple[str, int, float]] = {}
    made = g = 0
    while made < waiting:
        variant, size = SHAPES[g % len(SHAPES)]
        ordinal = float(g)
        for k in range(size - 1):
            seek(service, app_id, variant, size, f"g{g}p{k}", ordinal)
        groups[g] = (variant, size, ordinal)
        made += size - 1
        g += 1
    return groups


def worker(settings: Settings, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "workers.cli", "worker", "bots"], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def rank(sorted_values: list[float], pct: float) -> float:
    return sorted_values[max(0, min(len(sorted_values) - 1, math.ceil(pct / 100 * len(sorted_values)) - 1))]


def latency(service: Service, app_id: str, groups: dict, probes: int, exclude: list[int]) -> tuple[list[float], list[int]]:
    rng = random.Random(len(exclude))
    chosen = rng.sample(sorted(set(groups) - set(exclude)), probes)
    took = []
    for g in chosen:
        variant, size, ordinal = groups[g]
        start = time.perf_counter()
        _ticket_id, pool, answer = seek(service, app_id, variant, size, f"probe{g}", ordinal)
        service.matchmaking.matcher.ask(pool, answer["ticket"]["id"])
        while True:
            ticket = service.ticket(answer["ticket"]["id"], answer["token"], wait=5)
            if ticket["status"] == "matched":
                break
        took.append(time.perf_counter() - start)
    return took, chosen


def count_once(service: Service, groups: dict, chosen: list[int]) -> str:
    seats: Counter = Counter()
    games: Counter = Counter()
    matched_players = set()
    conn = service.store.queue_redis
    for key in conn.scan_iter(f"{service.store.prefix}:mm:t:*", count=1000):
        record = {k.decode(): v.decode() for k, v in conn.hgetall(key).items()}
        if record.get("status") == "matched":
            seats[(record["game_id"], record["seat"])] += 1
            games[record["game_id"]] += 1
            matched_players.add(orjson.loads(record["spec"])["holder"]["name"])
    twice = sum(1 for n in seats.values() if n > 1)
    wrong_size = sum(1 for game, n in games.items() if n != service.games.read(game).state.rules.players)
    expected = {f"probe{g}" for g in chosen} | {f"g{g}p{k}" for g in chosen for k in range(groups[g][1] - 1)}
    return (
        f"{len(seats)} seats matched in {len(games)} games; seats given twice: {twice}; games of the wrong size: "
        f"{wrong_size}; matched exactly the probed groups: {matched_players == expected}"
    )


TEAM = {"teams": "partners_opposite"}


def parties(service: Service, app_id: str, count: int) -> str:
    """``count`` parties and ``2 * count`` solos at 4-player team tables, arriving shuffled: partners seated."""
    rng = random.Random(count)
    arrivals = [("party", i) for i in range(count)] + [("solo", i) for i in range(2 * count)]
    rng.shuffle(arrivals)
    tickets, codes, partner_first = {}, {}, {}
    for kind, i in arrivals:
        for step in (("opener", "partner") if kind == "party" else ("solo",)):
            holder = Holder(PLAYER, f"{step}{i}", app_id)
            party = "new" if step == "opener" else codes.get(i) if step == "partner" else None
            req = TicketRequest(variant="block", players=4, rules=TEAM, party=party)
            _tid, pool, answer = service.matchmaking.tickets.open(req, holder)
            tickets[(step, i)] = answer
            if step == "opener":
                codes[i] = answer["ticket"]["party"]
            service.matchmaking.matcher.ask(pool, answer["ticket"]["id"])
    seats = {}
    for key, answer in tickets.items():
        while (ticket := service.ticket(answer["ticket"]["id"], answer["token"], wait=5))["status"] == "waiting":
            pass
        seats[key] = (ticket.get("game_id"), ticket.get("seat"))
    partnered = sum(
        1 for i in range(count)
        if seats[("opener", i)][0] == seats[("partner", i)][0] and {seats[("opener", i)][1], seats[("partner", i)][1]} in ({0, 2}, {1, 3})
    )  # fmt: skip
    unmatched = sum(1 for game, _ in seats.values() if game is None)
    return f"{count} parties among {2 * count} solos: {partnered} seated as partners ({100 * partnered / count:.1f}%), {unmatched} tickets unmatched"


def scaling(service: Service, app_id: str, sizes: list[int], runs: int) -> None:
    for n in sizes:
        for i in range(n):
            seek(service, app_id, "draw", 2, f"s{n}_{i}", 10_000.0 + 10 * i)  # nobody's range holds another
        arrivals, wholes = [], []
        for r in range(runs):
            _tid, pool, answer = seek(service, app_id, "draw", 2, f"s{n}_new{r}", -1e6 - 10 * r)
            start = time.perf_counter()
            service.matchmaking.matcher.run(pool, answer["ticket"]["id"])
            arrivals.append(time.perf_counter() - start)
            start = time.perf_counter()
            service.matchmaking.matcher.run(pool)
            wholes.append(time.perf_counter() - start)
        print(
            f"  {n:>7} waiting: arrival pass median {statistics.median(arrivals) * 1000:8.1f} ms "
            f"({min(arrivals) * 1000:.1f}-{max(arrivals) * 1000:.1f}); whole-pool pass median "
            f"{statistics.median(wholes) * 1000:8.1f} ms ({min(wholes) * 1000:.1f}-{max(wholes) * 1000:.1f})",
            flush=True,
        )
        service.store.queue_redis.delete(*service.store.queue_redis.keys(f"{service.store.prefix}:mm:pool:{pool}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--waiting", type=int, default=10_000)
    parser.add_argument("--probes", type=int, default=200)
    parser.add_argument("--parties", type=int, default=200)
    parser.add_argument("--scaling", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-mm-"))
    redis = RedisServer(folder / "redis", persistent=False)
    url = redis.start()
    settings = Settings(
        redis_url=url, key_prefix="bench", bots_queue="bench-bots", archive_url=f"sqlite:///{folder}/archive.sqlite3",
        match_widen=0.0, max_tickets=10**9, ticket_idle=3600.0,
    )  # fmt: skip
    env = {
        **os.environ, "DOMINO_REDIS_URL": url, "DOMINO_KEY_PREFIX": "bench", "DOMINO_BOTS_QUEUE": "bench-bots",
        "DOMINO_ARCHIVE_URL": settings.archive_url, "DOMINO_MATCH_WIDEN": "0", "DOMINO_TICKET_IDLE": "3600",
    }  # fmt: skip
    service = Service(settings)
    service.migrate_archive()
    app_id = service.create_app("bench", None, None, 10**6).app.id
    proc = worker(settings, env)
    try:
        print(f"load average {os.getloadavg()[0]:.1f}; {os.cpu_count()} CPUs", flush=True)
        start = time.perf_counter()
        groups = populate(service, app_id, args.waiting)
        print(f"{args.waiting} tickets waiting in {len(groups)} groups, {len(SHAPES)} pools ({time.perf_counter() - start:.1f} s)")
        _, warm = latency(service, app_id, groups, 1, exclude=[])  # the worker has started and loaded its code
        took, chosen = latency(service, app_id, groups, args.probes, exclude=warm)
        ms = sorted(t * 1000 for t in took)
        print(
            f"matched within (n={len(ms)}, one worker; nearest rank): p50 {rank(ms, 50):.1f} ms, p95 {rank(ms, 95):.1f} ms, "
            f"p99 {rank(ms, 99):.1f} ms, max {ms[-1]:.1f} ms"
        )
        chosen += warm
        print(count_once(service, groups, chosen))
        if args.parties:
            print(parties(service, app_id, args.parties), flush=True)
        print("cost per pass, one pool (medians of runs, this process):")
        scaling(service, app_id, [int(n) for n in args.scaling.split(",") if n], args.runs)
        print(f"load average {os.getloadavg()[0]:.1f}")
    finally:
        proc.terminate()
        proc.wait(30)
        redis.stop()


if __name__ == "__main__":
    main()

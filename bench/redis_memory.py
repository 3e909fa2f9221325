"""Redis memory once finished games have moved to the archive and their grace has passed (issue 29).

Starts a private redis-server (127.0.0.1, a free port, no persistence) and an archive in a temporary SQLite
file, makes one app, and measures Redis (``DBSIZE``, game keys, ``used_memory``) before and after ``--games``
complete one-round games of two human seats, created with the app's key (so its ownership index is used) with
a ``player`` on seat 0, and played through ``Service`` (create, then the first legal move of the seat to move,
each move with an ``Idempotency-Key``: what the API stores for a game played over HTTP) by ``--processes``
processes. Then the archive jobs run until nothing is due (each game written to SQLite, its Redis keys given
``DOMINO_ARCHIVED_TTL``, here ``--grace`` seconds), the bench waits until Redis has let every game key go (a
ceiling of two minutes), and prints what is left: the keys that outlive a game on purpose, each with its
lifetime (docs/architecture.md lists them). Target: the game keys back to their count before, and
``used_memory`` within 5 MB of it. One run; a fresh server each time, so the figures are exact counts, not
samples (``used_memory`` moves by allocator slack, a few hundred KB).

    python bench/redis_memory.py [--games 500 | --full] [--processes 2] [--grace 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from api.config import Settings  # noqa: E402

TARGET_MB = 5.0


def play(args: tuple[Settings, str, int, int]) -> int:
    """Play ``count`` games to their end with the app's key; the moves made."""
    import domino
    from api.service.create import GameRequest
    from api.service.service import Service

    settings, key, start, count = args
    service = Service(settings)
    app = service.authenticate_app(key)
    moves = 0
    for i in range(start, start + count):
        seats = [{"name": "Ana", "player": f"user:{i % 100}"}, {"name": "Bo"}]
        request = GameRequest("draw", seats, rules={"match_end": "fixed_rounds", "rounds": 1})
        _view, tokens, _v, game_id = service.create_game(request, "127.0.0.1", app=app)
        by_seat = {t["seat"]: t["token"] for t in tokens}
        for n in range(1000):
            state = domino.from_live(service.store.games.load(game_id).doc["state"])  # type: ignore[union-attr]
            if state.finished:
                break
            move = domino.legal_moves(state)[0]
            service.play_move(game_id, move.to_dict(), token=by_seat[state.to_move], idempotency_key=f"m-{n}")  # type: ignore[index]
            moves += 1
    return moves


def snapshot(r: Any, prefix: str) -> dict[str, Any]:
    """Redis now: its keys, the game keys among them (hash-tagged), ``used_memory``."""
    keys = [k.decode() for k in r.scan_iter(count=1000)]
    return {
        "keys": keys,
        "game_keys": sum(1 for k in keys if k.startswith(f"{prefix}:{{")),
        "used": int(r.info("memory")["used_memory"]),
    }


def kind_of(key: str, app_id: str) -> str:
    return key.replace(app_id, "<app>").split(":user:")[0]


def archive_all(service: Any) -> int:
    """Run the archive jobs' work until nothing is due; the batches run."""
    batches = 0
    while service.archive_games() != "nothing due":
        batches += 1
    return batches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--full", action="store_true", help="10,000 games (issue 29's target)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--grace", type=int, default=2, help="DOMINO_ARCHIVED_TTL, seconds")
    args = parser.parse_args()
    games = 10_000 if args.full else args.games

    import redis

    from api.archive import Archive
    from api.service.service import Service
    from workers.redis_server import RedisServer

    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp) / "redis", persistent=False)
        url = server.start()
        try:
            settings = replace(Settings(), redis_url=url, archive_url=f"sqlite:///{tmp}/archive.sqlite3", archived_ttl=args.grace)
            Archive(settings.archive_url).migrate()
            service = Service(settings)
            issued = service.create_app("bench", None, "0", 0)
            r = redis.Redis.from_url(url)
            before = snapshot(r, settings.key_prefix)
            t0 = time.monotonic()
            per = -(-games // args.processes)
            jobs = [(settings, issued.key, p * per, min(per, games - p * per)) for p in range(args.processes)]
            with multiprocessing.Pool(args.processes) as pool:
                moves = sum(pool.map(play, jobs))
            played = snapshot(r, settings.key_prefix)
            batches = archive_all(service)
            archived_in = time.monotonic() - t0
            deadline = time.monotonic() + max(120, 2 * args.grace)
            while snapshot(r, settings.key_prefix)["game_keys"] > before["game_keys"] and time.monotonic() < deadline:
                time.sleep(0.5)  # Redis expires the archived games' keys (the grace), a few every 100 ms at least
            service.sweep()
            after = snapshot(r, settings.key_prefix)
            report(r, service, games, moves, before, played, after, batches, archived_in, issued.app.id)
            grown = (after["used"] - before["used"]) / 1e6
            return 0 if after["game_keys"] == before["game_keys"] and grown <= TARGET_MB else 1
        finally:
            server.stop()


def report(
    r: Any, service: Any, games: int, moves: int, before: dict[str, Any], played: dict[str, Any],
    after: dict[str, Any], batches: int, elapsed: float, app_id: str,
) -> None:  # fmt: skip
    s = service.settings
    print(f"games: {games} finished (draw, one round, two human seats of one app), {moves} moves; played and "
          f"archived ({service.archive.count()} in SQLite, {batches} batches) in {elapsed:.0f} s; grace {s.archived_ttl} s")
    for label, snap in (("before", before), ("played", played), ("after the grace", after)):
        print(f"  {label:>16}: {len(snap['keys']):6d} keys, {snap['game_keys']:6d} game keys, "
              f"used_memory {snap['used'] / 1e6:7.2f} MB")
    grown = (after["used"] - before["used"]) / 1e6
    print(f"used_memory after - before: {grown:+.2f} MB (target: within {TARGET_MB:.0f} MB); game keys "
          f"{after['game_keys'] - before['game_keys']:+d} (target 0); "
          f"at its highest {(played['used'] - before['used']) / games / 1024:.2f} KiB per finished game in Redis")
    print("keys left that were not there before (what outlives a game on purpose):")
    left: dict[str, list[int]] = {}
    for key in set(after["keys"]) - set(before["keys"]):
        left.setdefault(kind_of(key, app_id), []).append(int(r.ttl(key)))
    for kind, ttls in sorted(left.items()):
        lifetime = "no expiry" if min(ttls) < 0 else f"expires in {min(ttls) / 3600:.1f}-{max(ttls) / 3600:.1f} h"
        print(f"  {kind}: {len(ttls)} ({lifetime})")
    print(f"due entries left: {service.store.due_counts()}")


if __name__ == "__main__":
    sys.exit(main())

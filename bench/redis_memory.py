"""Redis memory after N finished games with the default expiry settings (issue 8).

Starts a private redis-server (127.0.0.1, a free port, no persistence), plays N complete one-round games of
two human seats through ``Service`` (create, then the first legal move of the seat to move until the end:
exactly what the API stores for a game played over HTTP, each with an ``Idempotency-Key`` on every move and on
the create), runs the sweep once, and prints the memory used, per game, and what is left besides the games:
keys without an expiry, members of the cross-game sets, idempotency records.

    python bench/redis_memory.py [--games 10000] [--processes 2] [--variant draw]
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from api.config import Settings  # noqa: E402


def play(args: tuple[str, int, int, str]) -> int:
    import domino
    from api.service.create import GameRequest
    from api.service.service import Service

    url, start, count, variant = args
    service = Service(Settings(redis_url=url))
    moves = 0
    for i in range(start, start + count):
        request = GameRequest(variant, [{"name": "Ana"}, {"name": "Bo"}], rules={"match_end": "fixed_rounds", "rounds": 1})
        _view, tokens, _v, game_id = service.create_game(request, "127.0.0.1", idempotency_key=f"create-{i}")
        by_seat = {t["seat"]: t["token"] for t in tokens}
        for n in range(1000):
            rec = service.store.games.load(game_id)
            state = domino.from_live(rec.doc["state"])
            if state.finished:
                break
            seat = state.to_move
            move = domino.legal_moves(state)[0]
            service.play_move(game_id, move.to_dict(), token=by_seat[seat], idempotency_key=f"m-{n}")
            moves += 1
    return moves


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--variant", default="draw")
    args = parser.parse_args()

    from api.service.service import Service
    from api.store import ping_url
    from workers.redis_server import RedisServer

    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp), persistent=False)
        url = server.start()
        try:
            import redis

            r = redis.Redis.from_url(url)
            assert ping_url(url)
            base = int(r.info("memory")["used_memory"])
            t0 = time.monotonic()
            per = -(-args.games // args.processes)
            jobs = [(url, p * per, min(per, args.games - p * per), args.variant) for p in range(args.processes)]
            with multiprocessing.Pool(args.processes) as pool:
                moves = sum(pool.map(play, jobs))
            elapsed = time.monotonic() - t0
            service = Service(Settings(redis_url=url))
            service.sweep()  # what the sweep would clear (nothing should be left to clear)
            info = r.info("memory")
            used = int(info["used_memory"]) - base
            keys = r.dbsize()
            kinds: dict[str, int] = {}
            sizes: dict[str, int] = {}
            no_ttl = []
            ttls: dict[str, list[int]] = {}
            for key in r.scan_iter(count=1000):
                k = key.decode()
                kind = k.split(":")[-1] if "{" in k else ":".join(k.split(":")[:3])
                kinds[kind] = kinds.get(kind, 0) + 1
                sizes[kind] = sizes.get(kind, 0) + int(r.memory_usage(key) or 0)
                ttl = r.ttl(key)
                if ttl < 0:
                    no_ttl.append(k)
                else:
                    ttls.setdefault(kind, []).append(ttl)
            s = Settings()
            print(f"games: {args.games} finished ({args.variant}, one round, two human seats), {moves} moves, "
                  f"played in {elapsed:.0f} s with {args.processes} processes")
            print(f"redis used_memory: {used / 1e6:.1f} MB over an empty server "
                  f"({used / args.games / 1024:.2f} KiB per finished game); peak {int(info['used_memory_peak']) / 1e6:.1f} MB")
            print(f"keys: {keys} = " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
            for kind, values in sorted(ttls.items()):
                print(f"  {kind}: {sizes[kind] / kinds[kind] / 1024:.2f} KiB each (MEMORY USAGE), "
                      f"expires in {min(values) / 3600:.1f}-{max(values) / 3600:.1f} h")
            kept = sum(v for k, v in sizes.items() if min(ttls.get(k, [2**62])) > s.idempotency_ttl)  # what outlives day one
            print(f"after the first day (idempotency records expired): {kept / args.games / 1024:.2f} KiB per finished game")
            print(f"defaults: finished games kept {s.finished_ttl / 86400:.0f} days, idle games {s.game_ttl / 3600:.0f} h, "
                  f"idempotency keys {s.idempotency_ttl / 3600:.0f} h")
            print(f"keys without an expiry: {len(no_ttl)} {no_ttl[:5]}")
            print(f"bot-due entries: {r.zcard('dom:bots:due')}, turn deadlines: {r.zcard('dom:turns:due')}, "
                  f"lobby: {r.zcard('dom:lobby')}")
            return 1 if no_ttl else 0
        finally:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())

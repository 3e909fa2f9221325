"""In-process CPU per move: the service's work for one move and for the next seat's turn notice (issue 16).

    python bench/move_cpu.py [--variant draw] [--matches 200] [--runs 3]

A private redis-server; in this process, one ``Service`` plays whole matches of the scenario (the tables of
bench/load_clients.py: 2-seat ``draw``, one round; 4-seat ``all_fives``, teams to 150; 4-seat
``mexican_train``, 13 rounds) between seats that play as the load bench's clients do: the seat named by the
turn notice posts one of the legal moves it carries (``play_move`` with its token, ``expected_version`` and
the minimal answer), then that commit's events and the next turn notice are read as an event stream reads
them and rendered for the seat to move. One move's CPU is the thread CPU time of those two steps (the
choice of the move is outside it; Redis' own work, in its process, is not counted; no HTTP). Printed per
run: the median, mean and 90th percentile per move, and the mean by third of the match's rounds; over the
runs, each figure's median [min, max]. Seeds are fixed: every run plays the same matches.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from load_clients import SCENARIOS, Match  # noqa: E402


class Turns:
    """A game's turns, read from its event stream straight from Redis (no HTTP, so not timed with the moves)."""

    def __init__(self, service, game_id: str) -> None:  # type: ignore[no-untyped-def]
        self.follower = service.store.games.follow(game_id)
        self.cursor, self.round = "0-0", 1

    def next(self) -> dict | None:  # type: ignore[type-arg]
        """What is new, as the stream of the seat to move reads it: its turn notice (None: the match is over)."""
        from api.service.views import render_event

        turn = None
        for stream_id, stored in self.follower.read(self.cursor):
            self.cursor = stream_id
            event = render_event(stream_id, stored, stored.get("private_to"))
            if event["type"] == "turn_started":
                turn = event
            elif event["type"] == "round_started":
                self.round = event["round"]
        return turn

    def close(self) -> None:
        self.follower.close()


def play_match(service, variant: str, seed: int, rng: random.Random) -> Match:  # type: ignore[no-untyped-def]
    from api.service.create import GameRequest

    players, rules = SCENARIOS[variant]
    seats = [{"name": f"P{i}"} for i in range(players)]
    view, tokens, _version, game_id = service.create_game(GameRequest(variant, seats, dict(rules), f"move-cpu-{seed}"), "127.0.0.1")
    by_seat = {t["seat"]: t["token"] for t in tokens}
    turns = Turns(service, game_id)
    match = Match(view["rules"].get("rounds"))
    try:
        turn = turns.next()
        while turn is not None:
            move, played_in = rng.choice(turn["legal_moves"]), turns.round
            t0 = time.thread_time_ns()
            service.play_move(game_id, move, token=by_seat[turn["seat"]], expected_version=turn["version"], minimal=True)
            turn = turns.next()
            match.moves.append((played_in, (time.thread_time_ns() - t0) / 1e6))
        match.rounds = match.rounds or turns.round
        return match
    finally:
        turns.close()


def one_run(url: str, variant: str, matches: int) -> dict[str, float]:
    from api.config import Settings
    from api.service.service import Service

    service = Service(Settings(redis_url=url, rate_limit=""))
    rng = random.Random(16)
    played = [play_match(service, variant, i, rng) for i in range(matches)]
    cpu = [c for m in played for _, c in m.moves]
    thirds: list[list[float]] = [[], [], []]
    for m in played:
        for i, values in enumerate(m.thirds() or ()):
            thirds[i].extend(values)
    out = {"median ms": statistics.median(cpu), "mean ms": statistics.fmean(cpu), "p90 ms": sorted(cpu)[int(0.9 * len(cpu))]}
    if all(thirds) and SCENARIOS[variant][1].get("rounds") != 1:
        means = [statistics.fmean(t) for t in thirds]
        out.update({"first third ms": means[0], "middle third ms": means[1], "last third ms": means[2],
                    "last/first": means[2] / means[0]})  # fmt: skip
    print(f"  {variant}: {matches} matches, {len(cpu)} moves: " + ", ".join(f"{k} {v:.3f}" for k, v in out.items()), flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", choices=tuple(SCENARIOS), default="draw")
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    from workers.redis_server import RedisServer

    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp), persistent=False)
        url = server.start()
        try:
            runs = [one_run(url, args.variant, args.matches) for _ in range(args.runs)]
        finally:
            server.stop()
    print(f"-- {args.runs} runs: median [min, max]")
    for name in runs[0]:
        values = sorted(r[name] for r in runs)
        print(f"  {name}: {statistics.median(values):.3f} [{values[0]:.3f}, {values[-1]:.3f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())

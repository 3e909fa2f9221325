"""The service's instructions per move, round by round through whole matches (issue 16: flat in match length).

    python bench/move_instructions.py [--variant mexican_train] [--matches 1]

The in-process move of bench/move_cpu.py (``play_move`` with the seat's token and the minimal answer, then
that commit's events and the next turn notice read and rendered as an event stream does; a private
redis-server, whose own work is not counted), counted in instructions by callgrind instead of timed: the
bench runs itself under ``valgrind --tool=callgrind`` with PYTHONHASHSEED=0; each move runs inside
``sys.call_tracing``, the only code callgrind counts (``--toggle-collect``), and a call to
``sys.getswitchinterval`` at each round's end makes callgrind write that round's count
(``--dump-before``). One match is played first, uncounted (caches, the interpreter's specialisation).
Instructions do not depend on other load on the machine; the moves are random with a fixed seed, so a run
is repeatable up to Redis' replies. Printed: instructions per move for each round, and by third of the
match's rounds (as bench/api_load.py and move_cpu.py divide them) with last third ÷ first. Target: ≤ 1.2.
Slow: about four minutes for one 13-round Mexican Train match.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from api.config import Settings  # noqa: E402
from api.service.create import GameRequest  # noqa: E402
from api.service.service import Service  # noqa: E402
from load_clients import SCENARIOS, Match  # noqa: E402
from move_cpu import Turns, play_match  # noqa: E402
from workers.redis_server import RedisServer  # noqa: E402

TARGET = 1.2


def counted_match(service, variant: str, seed: int, rng: random.Random) -> list[int]:  # type: ignore[no-untyped-def]
    """Plays one match, each move inside ``sys.call_tracing`` and a round's end marked; its moves per round."""
    players, rules = SCENARIOS[variant]
    seats = [{"name": f"P{i}"} for i in range(players)]
    _view, tokens, _version, game_id = service.create_game(GameRequest(variant, seats, dict(rules), f"move-instructions-{seed}"), "127.0.0.1")
    by_seat = {t["seat"]: t["token"] for t in tokens}
    turns = Turns(service, game_id)
    turn, moves = turns.next(), [0]

    def move() -> None:
        nonlocal turn
        assert turn is not None
        service.play_move(game_id, rng.choice(turn["legal_moves"]), token=by_seat[turn["seat"]], expected_version=turn["version"], minimal=True)
        turn = turns.next()

    try:
        sys.getswitchinterval()  # callgrind dumps here: what came before the match (nothing counted)
        while turn is not None:
            if turns.round != len(moves):
                sys.getswitchinterval()  # callgrind dumps here: the round that just ended
                moves.append(0)
            moves[-1] += 1
            sys.call_tracing(move, ())
        sys.getswitchinterval()
        return moves
    finally:
        turns.close()


def count(variant: str, matches: int) -> None:
    """Under callgrind: a warm-up match, then ``matches`` counted ones; prints each one's moves per round."""
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp), persistent=False)
        url = server.start()
        try:
            service = Service(Settings(redis_url=url, rate_limit=""))
            rng = random.Random(16)
            play_match(service, variant, -1, rng)
            for seed in range(matches):
                print(*counted_match(service, variant, seed, rng), sep="\t", flush=True)
        finally:
            server.stop()


def callgrind(variant: str, matches: int) -> list[list[tuple[int, int]]]:
    """Per match, per round: (moves, instructions)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg"
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--collect-atstart=no",
               "--toggle-collect=sys_call_tracing", "--dump-before=sys_getswitchinterval",
               sys.executable, __file__, "--count", "--variant", variant, "--matches", str(matches)]
        run = subprocess.run(cmd, env={**os.environ, "PYTHONHASHSEED": "0"}, capture_output=True, text=True, check=True)
        dumps = iter(sorted(Path(tmp).glob("cg.*"), key=lambda p: int(p.suffix[1:])))  # in order of writing

        def total() -> int:
            return int(next(t for t in next(dumps).read_text().splitlines() if t.startswith("totals:")).split()[1])

        played = []
        for line in run.stdout.splitlines():
            total()  # the dump before the match
            played.append([(int(m), total()) for m in line.split("\t")])
    return played


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", choices=tuple(SCENARIOS), default="mexican_train")
    ap.add_argument("--matches", type=int, default=1)
    ap.add_argument("--count", action="store_true", help=argparse.SUPPRESS)  # the run under callgrind
    args = ap.parse_args()
    if args.count:
        count(args.variant, args.matches)
        return
    played = callgrind(args.variant, args.matches)
    print(f"{args.variant}: {len(played)} matches; instructions per move (callgrind, one run)\n")
    thirds: list[list[float]] = [[], [], []]
    for i, rounds in enumerate(played):
        print(f"match {i + 1}: " + ", ".join(f"round {r + 1} {c / m / 1e3:,.0f}k ({m} moves)" for r, (m, c) in enumerate(rounds)))
        match = Match(len(rounds), [(r + 1, c / m) for r, (m, c) in enumerate(rounds) for _ in range(m)])
        for third, values in zip(thirds, match.thirds() or ()):
            third.extend(values)
    if not all(thirds):
        print("\nfewer than three rounds in every match: no thirds (play more matches)")
        return
    means = [statistics.fmean(t) for t in thirds]
    print("\nby third of the rounds: " + ", ".join(f"{m / 1e3:,.0f}k" for m in means)
          + f"; last / first = {means[2] / means[0]:.2f} (target <= {TARGET:.2f})")


if __name__ == "__main__":
    main()

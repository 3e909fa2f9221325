"""Response timings that the tests assert only as behaviour (with generous ceilings): how soon a long poll
wakes after a move, how soon a request is a 503 when Redis is refused or frozen, how soon a cancel stops a
running simulation chunk, and how far past its deadline a search bot answers. 127.0.0.1 only.

In one process, as the tests run them: the Flask app (its test client) on a private ``redis-server`` (no
persistence, a temporary folder), the service's own methods for the chunk. Each figure is the median of
``--runs`` measurements, with [min, max]; the load average is printed, since a shared machine moves them.

Targets (what the tests once asserted, or a little tighter): a long poll answers within 50 ms of the move; a 503 within 1 s with
Redis refused or frozen (a 0.5 s socket timeout, not retried); a cancel stops a chunk within 1 s; a search bot
with a 50 ms deadline answers within 0.5 s.

    python bench/timings.py [--runs 20]
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import domino  # noqa: E402
from api.app import create_app  # noqa: E402
from api.config import Settings  # noqa: E402
from api.service.simulations.spec import SimulationRequest  # noqa: E402
from domino.bots import Budget, get  # noqa: E402
from workers.redis_server import RedisServer, free_port  # noqa: E402

TWO = [{"name": "Ana"}, {"name": "Bo"}]


def summary(name: str, seconds: list[float], target: float) -> None:
    ms = sorted(s * 1000 for s in seconds)
    print(f"{name}: median {statistics.median(ms):.1f} ms [{ms[0]:.1f}, {ms[-1]:.1f}] over {len(ms)} "
          f"(target {target * 1000:.0f} ms; load {os.getloadavg()[0]:.2f})")  # fmt: skip


def long_poll_wake(settings: Settings, runs: int) -> list[float]:
    """From sending a move to the answer of a long poll that was waiting for it (the poll wakes while the move
    is answered: the move's own time is in the figure)."""
    app = create_app({"DOMINO": settings, "TESTING": True})
    client, waits = app.test_client(), []
    for i in range(runs):
        data = client.post("/v1/games", json={"variant": "draw", "seats": TWO, "seed": f"wake-{i}"}).get_json()
        game_id, tokens = data["game"]["id"], {t["seat"]: t["token"] for t in data["tokens"]}
        view = client.get(f"/v1/games/{game_id}").get_json()
        auth = {"Authorization": f"Bearer {tokens[view['turn']]}"}
        move = client.get(f"/v1/games/{game_id}", headers=auth).get_json()["legal_moves"][0]
        woke: list[float] = []
        url = f"/v1/games/{game_id}/events?after={view['version']}&wait=30"
        poll = threading.Thread(target=lambda: (app.test_client().get(url), woke.append(time.perf_counter())))
        poll.start()
        time.sleep(0.2)  # a bench may sleep: the poll is waiting in its XREAD by then
        moved = time.perf_counter()
        assert client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth).status_code == 200
        poll.join(30)
        waits.append(woke[0] - moved)
    return waits


def unavailable(settings: Settings, runs: int, redis_url: str) -> list[float]:
    """The time of a game's view answered 503 with Redis at ``redis_url`` refused or frozen."""
    client = create_app({"DOMINO": replace(settings, redis_url=redis_url), "TESTING": True}).test_client()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        assert client.get("/v1/games/abcdefghijklmnop").status_code == 503
        times.append(time.perf_counter() - t0)
    return times


def cancel_to_stop(settings: Settings, runs: int) -> list[float]:
    """From sending a cancel to the end of the chunk it stopped (a greedy match to 100,000, the fast core)."""
    app = create_app({"DOMINO": replace(settings, simulation_cancel_check=0.01), "TESTING": True})
    service, client, stops = app.extensions["domino.service"], app.test_client(), []
    body = {"variant": "draw", "strategies": ["greedy", "greedy"], "games": 1, "rules": {"target_score": 100000}}
    for _ in range(runs):
        sim_id, sim, token = service.create_simulation(SimulationRequest(**body), "127.0.0.1")
        runner = threading.Thread(target=service.run_chunk, args=(sim_id, 0))
        runner.start()
        time.sleep(0.2)  # the match is on (it lasts about a second)
        t0 = time.perf_counter()
        assert client.post(f"/v1/simulations/{sim_id}/cancel", headers={"Authorization": f"Bearer {token}"}).status_code == 200
        runner.join(60)
        stops.append(time.perf_counter() - t0)
    return stops


def search_deadline(runs: int) -> list[float]:
    """How long ``expert`` takes with a 50 ms deadline and no node budget, on positions of a 4-player game."""
    rules = domino.Rules.preset("block", players=4, teams="partners_opposite", hand_size=7)
    state, rng, times = domino.new_game(rules, seed="deadline"), random.Random(1), []
    while len(times) < runs and not state.finished:
        view = domino.view(state, state.turn)
        if len(view.legal_moves) > 1:
            t0 = time.perf_counter()
            get("expert").choose(view, random.Random(0), Budget(deadline=time.monotonic() + 0.05))
            times.append(time.perf_counter() - t0)
        state, _ = domino.step(state, rng.choice(view.legal_moves))
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    logging.disable(logging.ERROR)  # each 503 is logged as an error
    with tempfile.TemporaryDirectory() as folder:
        server = RedisServer(Path(folder), persistent=False)
        url = server.start()
        try:
            settings = Settings(redis_url=url, key_prefix=f"bench-{os.getpid()}", rate_limit="")
            measure: list[tuple[str, Callable[[], list[float]], float]] = [
                ("a move sent to the long poll's answer", lambda: long_poll_wake(settings, runs), 0.05),
                ("503 with Redis refused", lambda: unavailable(settings, runs, f"redis://127.0.0.1:{free_port()}/0"), 1.0),
                ("cancel to stop, fast core", lambda: cancel_to_stop(settings, max(3, runs // 4)), 1.0),
                ("expert with a 50 ms deadline", lambda: search_deadline(runs), 0.5),
            ]
            for name, run, target in measure:
                summary(name, run(), target)
            assert server.process is not None
            server.process.send_signal(signal.SIGSTOP)  # accepts connections, answers nothing
            try:
                summary("503 with Redis frozen", unavailable(settings, max(3, runs // 4), url), 1.0)
            finally:
                server.process.send_signal(signal.SIGCONT)
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

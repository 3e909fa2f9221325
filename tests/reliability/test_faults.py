"""Faults (issue 8): a worker killed mid-turn, a simulation worker killed mid-chunk, Redis gone and back, an API
process killed mid-request (50 clients racing on one game: test_races.py). Real processes (gunicorn, RQ workers,
redis-server) on 127.0.0.1 only; every wait is on the event itself, with a generous ceiling. Timings are
printed (`pytest -s`), never asserted. All slow: real processes, and waits for sweeps and timeouts.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from rq.job import Job
from rq.registry import StartedJobRegistry

import domino
from api.app import create_app
from api.queues import SERIALIZER, Queues
from api.service.create import GameRequest
from api.service.service import Service
from api.service.simulations.spec import SimulationRequest
from api.store import ping_url
from workers import sweep
from gunicorn_server import ROOT, env_for, gunicorn_factory  # noqa: F401  (gunicorn_factory: a fixture)
from support import eventually, returns_within, stop_processes, whole_game_state
from workers.redis_server import find_redis_server, free_port

pytestmark = pytest.mark.slow


# -- a worker killed in the middle of a computer player's turn -------------------------------------------------


def test_a_worker_killed_mid_turn_the_game_continues(settings, service):
    # Every bot turn thinks 1 s (the longest a seat may ask for; a game of computer players only may not by
    # default, so the cap is raised here), so a kill lands mid-turn; the sweep re-enqueues a turn not played
    # 2 s after it became due.
    due = "2.0"
    env = env_for(settings, DOMINO_BOT_DUE_DELAY=due)
    sweep_service = type(service)(replace(settings, bot_due_delay=float(due), bot_game_max_think_ms=1000))
    slow = {"bot": "club", "think_ms": 1000}
    request = GameRequest("draw", [slow, dict(slow)], rules={"match_end": "fixed_rounds", "rounds": 1})
    _, _, _, game_id = sweep_service.create_game(request, "127.0.0.1")
    worker_cmd = [sys.executable, "-m", "workers.cli", "worker", "bot-games", "--log-level", "WARNING"]
    first = subprocess.Popen(worker_cmd, env=env, cwd=ROOT, start_new_session=True)
    second = None
    stop = threading.Event()
    try:
        registry = StartedJobRegistry(queue=Queues(service.store).bot_games)

        def turn_running() -> tuple[int] | None:  # (the version) once the worker runs that version's bot turn
            version = whole_game_state(service, game_id)[0]
            return (version,) if any(j.startswith(f"bot-{game_id}-{version}-") for j in registry.get_job_ids()) else None

        (version,) = eventually(turn_running, "the worker runs the bot turn of the game's current version")
        first.send_signal(signal.SIGKILL)
        first.wait(5)
        killed_at = time.monotonic()
        sweep.start_thread(sweep_service, stop, interval=0.2)
        second = subprocess.Popen(worker_cmd, env=env, cwd=ROOT, start_new_session=True)
        moved_on = f"the game continued after the kill (from version {version})"
        eventually(lambda: whole_game_state(service, game_id)[0] > version, moved_on, 60)
        elapsed = time.monotonic() - killed_at
        print(f"\nfault: worker SIGKILLed mid-turn at version {version}; the game moved on after {elapsed:.2f} s")
    finally:
        stop.set()
        stop_processes([proc for proc in (first, second) if proc is not None])


# -- a simulation worker killed, work horse and all, in the middle of a chunk ---------------------------------------


def freeze_a_horse_mid_chunk(worker: int, running: Callable[[], list[str]]) -> list[int]:
    """Stop the worker's work horse (SIGSTOP) while a chunk is running, and return its pid. Found running and
    then stopped, the chunk may have ended in between: then the horse goes on and we try again."""
    for _ in range(50):
        eventually(running, "a chunk running", 60, 0.005)
        horses = [int(p) for p in Path(f"/proc/{worker}/task/{worker}/children").read_text().split()]
        for pid in horses:
            os.kill(pid, signal.SIGSTOP)
        if horses and running():
            return horses
        for pid in horses:
            os.kill(pid, signal.SIGCONT)
    raise AssertionError("no chunk could be caught running")


def kill_mid_chunk(worker: subprocess.Popen[bytes], registry, conn) -> str:  # type: ignore[no-untyped-def]
    """SIGKILL a simulations worker and its work horse while a chunk runs; the chunk's job id."""
    def running() -> list[str]:  # a chunk its work horse has started (not one only taken off the queue)
        ids = registry.get_job_ids(cleanup=False)
        return [i for i in ids if Job.fetch(i, connection=conn, serializer=SERIALIZER).get_status() == "started"]

    horses = freeze_a_horse_mid_chunk(worker.pid, running)
    worker.send_signal(signal.SIGKILL)  # the worker and its work horse (which has a process group of its own)
    for pid in horses:
        os.kill(pid, signal.SIGKILL)
    worker.wait(5)
    (killed,) = registry.get_job_ids(cleanup=False)
    return killed  # type: ignore[no-any-return]


def sweep_in_a_thread(service, now: float | None = None) -> int:  # type: ignore[no-untyped-def]
    """One sweep, where the sweep runs: in a thread beside a bots worker's."""
    found: list[int] = []
    thread = threading.Thread(target=lambda: found.append(sweep.sweep_once(service, now)))
    thread.start()
    thread.join(30)
    return found[0]


@pytest.mark.parametrize("last_try", [False, True], ids=["retried", "on-its-last-try"])
def test_a_simulation_worker_killed_mid_chunk_loses_no_game_and_counts_none_twice(
    settings, service, run_simulations, last_try
):
    quick = Service(replace(settings, simulation_chunk_seconds=1.5))  # chunks of about half a second (the model errs long)
    body = {"variant": "draw", "strategies": ["greedy", "random"], "games": 7000, "seed": "killed"}
    sim_id, sim, _ = quick.create_simulation(SimulationRequest(**body), "127.0.0.1")
    assert sim["chunks_total"] >= 6
    worker_cmd = [sys.executable, "-m", "workers.cli", "worker", "simulations", "--log-level", "WARNING"]
    env = env_for(settings)
    first = subprocess.Popen(worker_cmd, env=env, cwd=ROOT, start_new_session=True)
    second = None

    try:
        registry = StartedJobRegistry(queue=Queues(service.store).simulations)
        eventually(lambda: service.simulation(sim_id)["chunks_done"] >= 2, "two chunks done", 120)
        conn = service.store.rq_connection()
        killed = kill_mid_chunk(first, registry, conn)
        before = service.simulation(sim_id)
        # The horse may have been killed after it counted the chunk and before RQ heard it had finished.
        counted_by_the_horse = service.simulations.records.chunk_counted(sim_id, int(killed.rsplit("-", 1)[1]))
        assert before["status"] == "running" and before["chunks_done"] < before["chunks_total"]
        if last_try:
            job = Job.fetch(killed, connection=conn, serializer=SERIALIZER)
            job.retries_left = 0
            job.save()
        # Until its heartbeat lapses the chunk may still be running somewhere: the sweep leaves it alone.
        assert sweep_in_a_thread(service) == 0
        # Once it has lapsed (a minute or so later: here, the sweep is told it is an hour later), the sweep
        # hands it back to RQ, which queues it again (a retry: it had two), or fails it and the simulation.
        assert sweep_in_a_thread(service, time.time() + 3600) == 1
        if last_try:
            failed = service.simulation(sim_id)
            assert failed["status"] == "failed" and failed["error"].startswith(f"chunk {killed.rsplit('-', 1)[1]}: ")
            assert "AbandonedJobError" in failed["error"]
            return
        assert killed in Queues(service.store).simulations.job_ids
        second = subprocess.Popen([*worker_cmd, "--burst"], env=env, cwd=ROOT, start_new_session=True)
        assert second.wait(120) == 0
        done = service.simulation(sim_id)
        print(f"\nfault: simulation worker and work horse SIGKILLed in {killed} after {before['chunks_done']} chunks; "
              f"the simulation finished with {done['games_done']} games")  # fmt: skip
        assert done["status"] == "finished" and done["chunks_done"] == done["chunks_total"]
        # Run again, the chunk is counted once: by its second run, or by the horse, when it got that far.
        rerun = Job.fetch(killed, connection=conn, serializer=SERIALIZER).return_value()
        assert rerun == ("skipped: done" if counted_by_the_horse else "counted")
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(10)
    # The same simulation run by one worker that nobody killed: the same counts, every game once.
    same_id, _, _ = quick.create_simulation(SimulationRequest(**body), "127.0.0.1")
    assert run_simulations()
    keys = ("games_done", "deals_done", "chunks_done", "results", "draws", "rounds")
    assert {k: done[k] for k in keys} == {k: service.simulation(same_id)[k] for k in keys}


# -- Redis gone, and back --------------------------------------------------------------------------------------


class PrivateRedis:
    """A redis-server of this test on a fixed port, with its data in a folder, so it can come back."""
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:

        self.proc = subprocess.Popen(
            [
                find_redis_server(), "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.data_dir),
                "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no",
            ],  # fmt: skip
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        eventually(lambda: ping_url(self.url, 0.2), "redis-server answers PING")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)


def slowest_503(*calls: Callable[[], object]) -> float:
    """Each call answers (within a failure bound) a 503 ``unavailable`` problem; the longest one took, in s."""
    worst = 0.0
    for call in calls:
        t0 = time.monotonic()
        resp: Any = returns_within(30, call)
        worst = max(worst, time.monotonic() - t0)
        assert resp.status_code == 503, resp.get_data(as_text=True)
        assert resp.get_json()["type"] == "/problems/unavailable"
    return worst


def test_redis_gone_is_a_503_nothing_half_written_and_the_same_app_recovers(settings, tmp_path):
    """Killed or frozen (it accepts connections and answers nothing), Redis gone is a 503 problem at once, not
    a hang: the socket timeouts act and a timeout is not retried. (The ceiling here is a failure bound; the
    time a 503 takes is printed.)"""
    redis_ = PrivateRedis(tmp_path)
    redis_.start()
    try:
        s = replace(settings, redis_url=redis_.url, rate_limit="")
        app = create_app({"DOMINO": s, "TESTING": True})
        client = app.test_client()
        resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"name": "Bo"}]})
        assert resp.status_code == 201
        game_id = resp.get_json()["game"]["id"]
        tokens = {t["seat"]: t["token"] for t in resp.get_json()["tokens"]}

        def mover_and_move():  # type: ignore[no-untyped-def]
            view = client.get(f"/v1/games/{game_id}").get_json()
            seat = view["turn"]
            mine = client.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {tokens[seat]}"}).get_json()
            return seat, mine["legal_moves"][0], mine["version"]

        seat, move, version = mover_and_move()
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        store = app.extensions["domino.service"].store
        events_before = store.redis.xlen(store.games.events_key(game_id))

        timings = {}
        for how in ("killed", "frozen"):
            if how == "killed":
                redis_.kill()
            else:
                redis_.signal(signal.SIGSTOP)  # accepts connections, answers nothing: the timeouts must act
            timings[how] = slowest_503(
                lambda: client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth),
                lambda: client.get(f"/v1/games/{game_id}", headers=auth),
                lambda: client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "A"}, {"bot": "greedy"}]}),
                lambda: client.get(f"/v1/games/{game_id}/history"),
            )
            assert client.get("/v1/variants").status_code == 200  # what needs no Redis still answers
            if how == "killed":
                redis_.start()  # same port, same data folder: the game is there again
            else:
                redis_.signal(signal.SIGCONT)
            # The same app (same connection pools) serves again, and nothing was half-written.
            resp = eventually(
                lambda: (r := client.get(f"/v1/games/{game_id}", headers=auth)).status_code == 200 and r,
                "the app serves again after Redis came back",
            )
            assert resp.get_json()["version"] == version
            assert store.redis.xlen(store.games.events_key(game_id)) == events_before
        print(f"\nfault: Redis killed -> 503 in {timings['killed'] * 1000:.0f} ms; frozen -> 503 in {timings['frozen'] * 1000:.0f} ms")
        # The move that got a 503 can simply be sent again now.
        resp = client.post(f"/v1/games/{game_id}/moves", json={**move, "expected_version": version}, headers=auth)
        assert resp.status_code == 200 and resp.get_json()["version"] == version + 1
    finally:
        if redis_.proc is not None and redis_.proc.poll() is None:
            redis_.signal(signal.SIGCONT)
            redis_.kill()


# -- an API process killed in the middle of a request -----------------------------------------------------------


@pytest.mark.parametrize("where", ["before", "after"])
def test_an_api_process_killed_mid_request_leaves_the_game_unchanged_or_with_the_move(
    settings, create_game, service, gunicorn_factory, where, tmp_path
):
    data, players, _ = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="killed-mid-request")
    game_id = data["game"]["id"]
    version, state = whole_game_state(service, game_id)
    mover = state.to_move
    move = players[mover].view().get_json()["legal_moves"][0]
    paused = tmp_path / "paused"  # slow_app creates it as the request's pause begins; the pause outlasts any wait
    env = env_for(settings, **{f"DOMINO_TEST_PAUSE_{where.upper()}_COMMIT": "20", "DOMINO_TEST_PAUSED_MARK": str(paused)})
    server = gunicorn_factory(env, app="slow_app:app")
    answers: list[object] = []

    def send() -> None:
        try:
            answers.append(
                httpx.post(
                    f"{server.base}/v1/games/{game_id}/moves",
                    json=move,
                    headers={**players[mover].headers, "Idempotency-Key": "killed-1"},
                    timeout=60,
                )
            )
        except httpx.HTTPError as exc:
            answers.append(exc)

    thread = threading.Thread(target=send)
    thread.start()
    eventually(paused.exists, "the request reached its pause")
    (worker,) = server.workers()
    os.kill(worker, signal.SIGKILL)
    thread.join(60)
    assert answers and isinstance(answers[0], httpx.HTTPError), "the client should have lost its answer"

    after, state_after = whole_game_state(service, game_id)
    events = service.store.games.events(game_id)
    last_event_version = int(events[-1][0].split("-")[0])
    assert last_event_version == after  # state and event stream agree: never in between
    if where == "before":
        assert after == version and domino.to_dict(state_after) == domino.to_dict(state)
    else:
        assert after == version + 1
        # The client retries with the same key (on a healthy process) and learns that its move counted.
        retry = create_app({"DOMINO": settings, "TESTING": True}).test_client().post(
            f"/v1/games/{game_id}/moves", json=move, headers={**players[mover].headers, "Idempotency-Key": "killed-1"}
        )
        assert retry.status_code == 200 and retry.get_json()["version"] == version + 1
        assert whole_game_state(service, game_id)[0] == version + 1
    print(f"\nfault: API worker SIGKILLed {where} its commit: game at version {after} (was {version})")

"""Workers outlive a full Redis: a job whose writes are refused is tried again in place with a back-off, RQ's
own bookkeeping waits for room instead of ending the worker, and play goes on by itself once memory is freed."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest
import redis

from api.app import create_app
from api.store import StoreFull
from workers import full, jobs
from support import eventually, fill_redis, free_redis, stop_process, wait_until

ROOT = Path(__file__).resolve().parents[2]


def test_outlasting_calls_again_after_each_refusal_and_gives_up_when_the_worker_stops():
    calls = []

    def refused_twice() -> str:
        calls.append(1)
        if len(calls) <= 2:
            raise redis.exceptions.OutOfMemoryError("OOM command not allowed when used memory > 'maxmemory'.")
        return "done"

    assert full.outlasting("a test", 0.001, 0.002, refused_twice) == "done" and len(calls) == 3
    with pytest.raises(ValueError):  # anything else is not waited out
        full.outlasting("a test", 0.001, 0.002, lambda: int("x"))
    full.STOPPING.set()
    try:
        with pytest.raises(StoreFull):
            full.outlasting("a test", 0.001, 0.002, lambda: (_ for _ in ()).throw(StoreFull("out of memory")))
    finally:
        full.STOPPING.clear()


def _hand_over(client, game_id: str, token: str, view: dict) -> dict:  # type: ignore[type-arg,no-untyped-def]
    """Ana's turn played (her first legal move, again after each draw, which keeps the turn) until the computer
    player is to move: the view then."""
    auth = {"Authorization": f"Bearer {token}"}
    while view["turn"] == 0:
        move = {**view["legal_moves"][0], "expected_version": view["version"]}
        played = client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth)
        assert played.status_code == 200, played.get_json()
        view = client.get(f"/v1/games/{game_id}", headers=auth).get_json()
    return view


def _game(client):  # type: ignore[no-untyped-def]
    """A game of a human and a computer player where the computer player is to move: (id, version, token)."""
    created = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"bot": "greedy"}]})
    assert created.status_code == 201, created.get_json()
    game_id, token = created.get_json()["game"]["id"], created.get_json()["tokens"][0]["token"]
    view = client.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"}).get_json()
    return game_id, _hand_over(client, game_id, token, view)["version"], token


def _version(client, game_id: str) -> int:  # type: ignore[no-untyped-def]
    return int(client.get(f"/v1/games/{game_id}").get_json()["version"])


def test_a_job_whose_writes_are_refused_runs_again_once_there_is_room(small_redis, settings, monkeypatch):
    s = replace(settings, redis_url=small_redis, rate_limit="", games_per_client=0, full_backoff=0.01, full_backoff_max=0.05)
    monkeypatch.setenv("DOMINO_REDIS_URL", small_redis)
    app = create_app({"DOMINO": s, "TESTING": True})
    client = app.test_client()
    service = app.extensions["domino.service"]
    jobs.use_service(service)
    conn = redis.Redis.from_url(small_redis)
    game_id, version, _ = _game(client)
    tries = []
    play = service.play_bot_turn

    def counted(*args):  # type: ignore[no-untyped-def]
        tries.append(args)
        return play(*args)

    monkeypatch.setattr(service, "play_bot_turn", counted)
    fill_redis(conn)
    outcome: list[str] = []
    job = threading.Thread(target=lambda: outcome.append(jobs.bot_turn(game_id, version)), daemon=True)
    job.start()
    eventually(lambda: len(tries) >= 3, "the refused bot turn tried again")
    assert job.is_alive() and _version(client, game_id) == version  # waiting, nothing applied
    free_redis(conn)
    job.join(60)
    assert not job.is_alive() and outcome, "the bot turn ended once Redis had room"
    assert _version(client, game_id) > version  # the computer player moved


@pytest.mark.slow
def test_a_worker_started_on_a_full_redis_waits_and_plays_the_turns_queued_meanwhile(small_redis, settings, tmp_path):
    s = replace(settings, redis_url=small_redis, rate_limit="", games_per_client=0)
    client = create_app({"DOMINO": s, "TESTING": True}).test_client()
    conn = redis.Redis.from_url(small_redis)
    game_id, version, token = _game(client)  # its computer turn queued; no worker yet
    fill_redis(conn)
    env = {
        **os.environ, "DOMINO_REDIS_URL": small_redis, "DOMINO_FULL_BACKOFF": "0.02", "DOMINO_FULL_BACKOFF_MAX": "0.1",
        "DOMINO_RQ_LOG_LEVEL": "WARNING", "DOMINO_LOG_LEVEL": "WARNING",
    }  # fmt: skip
    log = tmp_path / "worker.log"
    with log.open("w") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "workers.cli", "worker", "bots", "bot-games", "--sweep"],
            env=env, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        eventually(lambda: "redis is full" in log.read_text(), "the worker says it waits for room")
        assert worker.poll() is None and _version(client, game_id) == version
        free_redis(conn)
        eventually(lambda: _version(client, game_id) > version, "the queued computer turn played once there was room")
        # Full again while the worker listens: it stays up, and goes on once there is room again.
        auth = {"Authorization": f"Bearer {token}"}
        view = eventually(
            lambda: (v := client.get(f"/v1/games/{game_id}", headers=auth).get_json())["turn"] == 0 and v,
            "Ana's turn",
        )
        fill_redis(conn)
        move = {**view["legal_moves"][0], "expected_version": view["version"]}  # any move: it is refused
        refused = client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth)
        assert refused.status_code == 503 and refused.get_json()["type"] == "/problems/storage-full"
        free_redis(conn)
        handed = _hand_over(client, game_id, token, view)  # a draw keeps Ana's turn: play on to the computer's
        answered = wait_until(lambda: _version(client, game_id) > handed["version"])
        assert answered, f"the computer player did not answer; the worker's log:\n{log.read_text()[-3000:]}"
        assert worker.poll() is None
    finally:
        free_redis(conn)
        assert stop_process(worker) == 0

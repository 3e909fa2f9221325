"""The analysis worker (``domino-worker analysis``): a real process analyses a finished game; stopped by SIGTERM
in the middle of one, it exits within 10 s, puts the job back first in line, and the next run resumes after the
moves already written, with the same answer as an uninterrupted run."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace

import pytest
from rq import Worker
from rq.registry import StartedJobRegistry
from support import catches_sigterm, eventually, pause_children, stop_process

from api.queues import Queues
from api.service.service import Service
from domino.analysis import analyse

pytestmark = pytest.mark.slow

NODES = 10_000


def _finished(client, run_bots, target_score: int = 30) -> str:  # type: ignore[no-untyped-def]
    body = {"variant": "draw", "seats": [{"bot": "greedy"}, {"bot": "random"}], "rules": {"target_score": target_score},
            "seed": "an analysis long enough to stop midway"}  # fmt: skip
    game_id: str = client.post("/v1/games", json=body).get_json()["game"]["id"]
    eventually(lambda: run_bots() is not None and client.get(f"/v1/games/{game_id}").get_json()["status"] == "finished",
               "the bots finished the game")  # fmt: skip
    return game_id


def _worker() -> subprocess.Popen[bytes]:
    env = {**os.environ, "DOMINO_WORKER_STOP_GRACE": "0", "DOMINO_ANALYSIS_PROGRESS_S": "0.2", "DOMINO_RQ_LOG_LEVEL": "WARNING"}
    cmd = [sys.executable, "-m", "workers.cli", "worker", "analysis", "--log-level", "WARNING"]
    return subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, start_new_session=True)


def test_a_worker_process_analyses_a_game_and_one_stopped_midway_is_resumed_to_the_same_answer(
    settings, client, service, run_bots, run_analyses
) -> None:  # type: ignore[no-untyped-def]
    slow = Service(replace(settings, analysis_nodes=NODES))
    # A seeded match of several rounds: its analysis lasts seconds, so the worker is still inside it when it is
    # stopped just after its first progress (on a fast machine a one-round game was done before the stop).
    game_id = _finished(client, run_bots, target_score=60)
    queue = Queues(service.store).analysis
    conn = service.store.rq_connection()
    worker = _worker()
    try:
        eventually(lambda: catches_sigterm(worker.pid) and Worker.count(connection=conn, queue=queue), "the worker listens", 60)
        status, queued = slow.request_analysis(game_id, "127.0.0.1")
        assert status == 202 and queued["status"] == "queued"
        eventually(lambda: service.analysis(game_id)["moves_done"] > 0, "progress written", 120)
        assert pause_children(worker.pid), "the work horse"  # still inside the analysis when SIGTERM comes
        running = service.analysis(game_id)
        assert running["status"] == "running" and 0 < running["progress"] < 1
    finally:
        assert stop_process(worker) == 0, "stopped within 10 s of SIGTERM"
    stopped = service.analysis(game_id)
    assert stopped["status"] == "running" and stopped["moves_done"] < stopped["moves_total"]
    assert len(queue.job_ids) == 1 and StartedJobRegistry(queue=queue).get_job_ids() == [], "put back, first in line"

    assert run_analyses()  # another worker resumes it
    done = service.analysis(game_id)
    assert done["status"] == "done" and done["moves_done"] == done["moves_total"]
    record = service.record(game_id)
    assert {k: done[k] for k in ("moves", "seats")} == analyse(record, NODES).to_dict(), "as if never stopped"


def test_a_worker_process_finishes_an_analysis(settings, client, service, run_bots) -> None:  # type: ignore[no-untyped-def]
    game_id = _finished(client, run_bots)
    worker = _worker()
    try:
        assert client.post(f"/v1/games/{game_id}/analysis").status_code == 202
        done = eventually(lambda: (a := service.analysis(game_id))["status"] == "done" and a, "the analysis done", 120)
    finally:
        assert stop_process(worker) == 0
    assert done["moves"] and [s["seat"] for s in done["seats"]] == [0, 1]

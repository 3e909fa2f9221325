"""A fair-play screen on the analysis worker (``domino-worker analysis``): a real process screens a player's games;
stopped by SIGTERM in the middle of one, it exits within 10 s, puts the job back first in line, and the next run
resumes after the positions already read, with the same answer as the pure screen's."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace

import pytest
from rq import Worker
from rq.registry import StartedJobRegistry
from support import catches_sigterm, eventually, pause_children, play_out, screened_tally, stop_process

from api.queues import Queues
from api.service.fairplay import Subject
from api.service.service import Service
from domino.analysis.fairplay import screen

pytestmark = pytest.mark.slow

NODES = 20_000  # seconds of work in all: still inside it at the stop


def _worker() -> subprocess.Popen[bytes]:
    env = {**os.environ, "DOMINO_WORKER_STOP_GRACE": "0", "DOMINO_ANALYSIS_PROGRESS_S": "0.2", "DOMINO_RQ_LOG_LEVEL": "WARNING"}
    cmd = [sys.executable, "-m", "workers.cli", "worker", "analysis", "--log-level", "WARNING"]
    return subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, start_new_session=True)


def test_a_worker_process_screens_a_player_and_one_stopped_midway_is_resumed_to_the_same_answer(
    settings, client, service, make_app, run_bots, run_archive, run_analyses
) -> None:  # type: ignore[no-untyped-def]
    slow = Service(replace(settings, analysis_nodes=NODES))
    app = make_app()
    # A match of several rounds: its screen lasts seconds, so the worker is still inside it when it is stopped
    # just after its first progress (a one-round game's can be done before the stop on a fast machine).
    game_id = play_out(client, app.key, {"name": "Ana", "player": "u-ana"}, run_bots, rules={"target_score": 100})
    service.archiving.enqueue()
    assert run_archive()
    queue = Queues(service.store).analysis
    conn = service.store.rq_connection()
    ask = lambda: slow.screens.screen(Subject("player", "u-ana", app.app.id), 20, "127.0.0.1")  # noqa: E731
    worker = _worker()
    try:
        eventually(lambda: catches_sigterm(worker.pid) and Worker.count(connection=conn, queue=queue), "the worker listens", 60)
        assert ask()["status"] == "queued"
        eventually(lambda: ask()["positions_done"] > 0, "progress written", 120)
        assert pause_children(worker.pid), "the work horse"  # still inside the screen when SIGTERM comes
        running = ask()
        assert running["status"] == "running" and 0 < running["progress"] < 1
    finally:
        assert stop_process(worker) == 0, "stopped within 10 s of SIGTERM"
    stopped = ask()
    assert stopped["status"] == "running" and stopped["positions_done"] < stopped["positions_total"]
    assert len(queue.job_ids) == 1 and StartedJobRegistry(queue=queue).get_job_ids() == [], "put back, first in line"

    assert run_analyses()  # another worker resumes it
    done = ask()
    assert done["status"] == "done" and done["positions_done"] == done["positions_total"] == stopped["positions_total"]
    expected = screen(screened_tally({game_id: service.record(game_id)}, 0, NODES)).to_dict()
    assert {k: done["seat"][k] for k in expected} == expected, "as if never stopped"

"""domino-serve on a full Redis: it starts, answers reads, refuses writes with 503 `storage-full`, reports
itself unready, keeps every process up (one killed is started again), and plays once memory is freed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
import redis

from support import end_server, eventually, fill_redis, free_redis, serving
from workers.redis_server import free_port
from workers.supervise import Child, supervise

ROOT = Path(__file__).resolve().parents[2]


def _children(pid: int) -> dict[int, str]:
    """The child processes of ``pid``: their command lines by pid."""
    out = {}
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        try:
            out[int(child)] = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue  # exited meanwhile
    return out


def test_a_child_that_exits_is_started_again(tmp_path):
    started: list[subprocess.Popen[bytes]] = []

    def start() -> subprocess.Popen[bytes]:
        started.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]))
        return started[-1]

    stopping = threading.Event()
    child = Child("a sleeper", start)
    watcher = threading.Thread(target=supervise, args=([child], stopping), daemon=True)
    watcher.start()
    try:
        started[0].kill()
        eventually(lambda: child.restarts == 1 and child.proc.poll() is None, "the killed child started again")
        assert len(started) == 2 and started[0].poll() is not None
    finally:
        stopping.set()
        watcher.join(30)
        for proc in started:
            proc.kill()
            proc.wait()


@pytest.mark.slow
def test_domino_serve_starts_on_a_full_redis_keeps_its_processes_and_plays_once_there_is_room(small_redis, settings, tmp_path):
    conn = redis.Redis.from_url(small_redis)
    fill_redis(conn)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    # The rate limiter on (its first Redis call is where a full Redis is met), with a limit this test's polls
    # never reach: a restarted worker can take tens of seconds to import on a busy machine, polled every 10 ms.
    env = {**os.environ, "DOMINO_REDIS_URL": small_redis, "DOMINO_RATE_LIMIT": "1000000/60", "DOMINO_LOG_LEVEL": "WARNING"}
    command = [
        sys.executable, "-m", "workers.cli", "serve", "--port", str(port), "--data-dir", str(tmp_path / "redis"),
        "--archive", f"sqlite:///{tmp_path / 'archive.sqlite3'}", "--api-processes", "1", "--simulation-workers", "0",
        "--webhook-workers", "0", "--archive-workers", "0",
    ]  # fmt: skip
    with (tmp_path / "serve.log").open("w") as log:
        proc = subprocess.Popen(command, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        assert serving(base, proc), "domino-serve did not start on a full Redis"
        with httpx.Client(base_url=base, timeout=30) as http:
            ready = http.get("/readyz")
            assert ready.status_code == 503 and ready.json()["checks"]["redis"]["full"] is True
            created = http.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"bot": "greedy"}]})
            assert created.status_code == 503 and created.json()["type"] == "/problems/storage-full"
            assert int(created.headers["Retry-After"]) > 0
            assert http.get("/v1/variants").status_code == 200

            workers = {pid: cmd for pid, cmd in _children(proc.pid).items() if " worker bots" in cmd}
            assert len(workers) == 1, _children(proc.pid)
            os.kill(next(iter(workers)), signal.SIGKILL)
            eventually(
                lambda: any(" worker bots" in cmd and pid not in workers for pid, cmd in _children(proc.pid).items()),
                "the killed worker started again",
            )
            assert proc.poll() is None

            free_redis(conn)
            eventually(lambda: http.get("/readyz").status_code == 200, "ready once there is room")
            created = http.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"bot": "greedy"}]})
            assert created.status_code == 201, created.json()
            game, token = created.json()["game"], created.json()["tokens"][0]["token"]
            auth = {"Authorization": f"Bearer {token}"}
            url = f"/v1/games/{game['id']}"
            view = eventually(lambda: (v := http.get(url, headers=auth).json())["turn"] == 0 and v, "Ana's turn")
            while view["turn"] == 0:  # a draw keeps Ana's turn: she plays on until the computer player's
                move = {**view["legal_moves"][0], "expected_version": view["version"]}
                assert http.post(f"{url}/moves", json=move, headers=auth).status_code == 200
                view = http.get(url, headers=auth).json()
            eventually(lambda: http.get(url).json()["version"] > view["version"], "the computer player answered")
            assert proc.poll() is None
    finally:
        free_redis(conn)
        end_server(proc)

"""The API's gunicorn raises its open-files soft limit to the hard limit at start, and accepts no more
connections at once than those files hold; both logged (workers/gunicorn_config.py)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from support import end_server, eventually, serving
from workers.gunicorn_config import FILES_PER_CONNECTION, RESERVED_FILES, connections_that_fit
from workers.redis_server import free_port

ROOT = Path(__file__).resolve().parents[2]


def test_connections_fit_the_files():
    assert connections_that_fit(1024) == (1024 - RESERVED_FILES) // FILES_PER_CONNECTION
    assert connections_that_fit(100_000) > 2000
    assert connections_that_fit(10) == 1


def open_files_soft_limit(pid: int) -> int:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    raise AssertionError("no open-files line")


@pytest.mark.slow  # a gunicorn started per case: seconds each
@pytest.mark.parametrize("hard", [1024, 4096])
def test_the_server_raises_its_soft_limit_and_sizes_its_connections(settings, tmp_path, hard):
    if resource.getrlimit(resource.RLIMIT_NOFILE)[1] < hard:
        pytest.skip(f"this machine's hard limit is under {hard}")
    port, log = free_port(), tmp_path / "gunicorn.log"
    env = {**os.environ, "DOMINO_REDIS_URL": settings.redis_url, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "gunicorn", "--worker-class", "gevent", "--worker-connections", "2000",
            "--config", "python:workers.gunicorn_config", "--bind", f"127.0.0.1:{port}", "--no-control-socket",
            "--log-level", "info", "--error-logfile", str(log), "api.app:serve()",
        ],  # fmt: skip
        env=env,
        cwd=ROOT,
        start_new_session=True,
        # As a login shell or a systemd unit starts it: a soft limit of 1,024.
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard)),
    )
    try:
        assert serving(f"http://127.0.0.1:{port}", proc)
        line = eventually(
            lambda: next((x for x in log.read_text().splitlines() if "open files:" in x), None), "the log line"
        )
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        assert children and all(open_files_soft_limit(int(pid)) == hard for pid in children)
        fit = connections_that_fit(hard)
        if hard == 1024:
            assert f"soft limit 1024 (not raised" in line and f"{fit} connections at once per process (asked for 2000)" in line
        else:
            assert f"soft limit {hard} (raised from 1024)" in line and "2000 connections at once per process" in line
    finally:
        end_server(proc, grace=10)

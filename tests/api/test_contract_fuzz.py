"""`schemathesis run --checks all` against the served app, in every phase: examples, coverage, fuzzing and stateful
(the stateful phase follows the document's `links` from a created game to its view, moves, events, seats and
resignation with real tokens). Any finding fails the test, and so does any 5xx (no allowed status is one).

It runs as a user would from the repository: `schemathesis.toml` there loads schemathesis_hooks.py, which
stands for what JSON Schema cannot say (see there), and names the one finding that is the tool's mistake. The
operations are read from the document, so an operation added later is fuzzed without a change here.

The app is served as production serves it (`domino-serve`: gunicorn's gevent workers, `api.app:serve()`, whose
own answers to a request line or headers over its limits are problem documents) with a private Redis, a real
worker on the bots queues (so `/readyz` is ready and computer players move), no rate limit and long polls
capped at 50 ms. Seeded, so a run is reproducible. A few examples per operation keep the suite's run within
its share; the 100-examples-per-operation run is behind `DOMINO_CONTRACT_FULL=1` (minutes on two cores)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import end_server, serving, stop_process
from workers.redis_server import free_port

ROOT = Path(__file__).resolve().parents[2]
SEED = 4242
pytestmark = pytest.mark.slow  # a served app, a worker and the schemathesis CLI: tens of seconds


@pytest.fixture
def served_as_in_production(settings, tmp_path: Path) -> Iterator[str]:  # type: ignore[no-untyped-def]
    env = {
        **os.environ,  # the settings fixture exported DOMINO_* (Redis, prefix, queues, archive)
        "DOMINO_RATE_LIMIT": "",
        "DOMINO_APP_RATE_LIMIT": "",
        "DOMINO_MAX_WAIT": "0.05",
        "DOMINO_KEEPALIVE_INTERVAL": "0.05",
        "DOMINO_MIN_TURN_TIMEOUT": "1.0",  # the shortest turn as documented (other tests lower it)
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
        "DOMINO_RQ_LOG_LEVEL": "WARNING",
        "DOMINO_LOG_LEVEL": "WARNING",
    }
    port = free_port()
    api = subprocess.Popen(
        [
            sys.executable, "-m", "gunicorn", "--workers", "1", "--worker-class", "gevent",
            "--config", "python:workers.gunicorn_config", "--bind", f"127.0.0.1:{port}", "--log-level", "warning",
            "--graceful-timeout", "2", "--no-control-socket", "api.app:serve()",
        ],  # fmt: skip
        env=env, cwd=ROOT, stdin=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    worker = subprocess.Popen(
        [sys.executable, "-m", "workers.cli", "worker", "bots", "bot-games", "--sweep"],
        env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        assert serving(base, api), "gunicorn did not start"
        yield base
    finally:
        try:
            stop_process(worker)
        finally:
            end_server(api, grace=10)


def _schemathesis(served: str, report: Path, examples: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("SCHEMATHESIS_HOOKS", None)  # the repository's schemathesis.toml names them
    return subprocess.run(
        [
            sys.executable, "-m", "schemathesis.cli", "run", f"{served}/openapi.json",
            "--checks", "all", "--phases", "examples,coverage,fuzzing,stateful",
            "--seed", str(SEED), "--max-examples", str(examples), "--workers", "2", "--request-timeout", "60",
            "--report-dir", str(report),
        ],  # fmt: skip
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=3600,
    )  # fmt: skip


def _finds_nothing(run: subprocess.CompletedProcess[str]) -> None:
    summary = run.stdout[run.stdout.find("FAILURES") :] if "FAILURES" in run.stdout else run.stdout[-3000:]
    assert run.returncode == 0, summary[:20000] + run.stderr[-2000:]
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in run.stdout, (phase, run.stdout[-3000:])
    assert "API Links" in run.stdout, run.stdout[-3000:]


def test_schemathesis_all_checks_all_phases_find_nothing(served_as_in_production: str, tmp_path: Path) -> None:
    examples = int(os.environ.get("DOMINO_CONTRACT_EXAMPLES", "10"))
    _finds_nothing(_schemathesis(served_as_in_production, tmp_path, examples))


@pytest.mark.skipif(os.environ.get("DOMINO_CONTRACT_FULL") != "1", reason="minutes: DOMINO_CONTRACT_FULL=1")
def test_schemathesis_100_examples_per_operation_find_nothing(served_as_in_production: str, tmp_path: Path) -> None:
    _finds_nothing(_schemathesis(served_as_in_production, tmp_path, 100))

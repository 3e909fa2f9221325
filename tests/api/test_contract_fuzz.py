"""`schemathesis run` (every check: its default) against the served app, in every phase: examples, coverage, fuzzing and stateful
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


@pytest.fixture(params=["anonymous", "app"])
def caller(request, make_app, register_bot) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Who runs schemathesis: a new user with no credentials, or an app (with a webhook, so that its test ping is
    queued) with the bot it registered: the credentials of the security schemes a client holds before it plays
    (seat, ticket and simulation tokens come by the document's links)."""
    if request.param == "anonymous":
        return {}
    issued = make_app(webhook="http://127.0.0.1:9/hooks")
    bot = register_bot("fuzzbot", key=issued.key)
    return {"appKey": issued.key, "botToken": bot["token"]}


def _config(report: Path, credentials: dict[str, str]) -> Path:
    """The repository's schemathesis.toml, with these credentials for their security schemes."""
    text = (ROOT / "schemathesis.toml").read_text()
    for scheme, token in credentials.items():
        text += f'\n[auth.openapi.{scheme}]\nbearer = "{token}"\n'
    path = report / "schemathesis.toml"
    path.write_text(text)
    return path


def _schemathesis(
    served: str, report: Path, examples: int, credentials: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("SCHEMATHESIS_HOOKS", None)  # the repository's schemathesis.toml names them
    return subprocess.run(
        [
            sys.executable, "-m", "schemathesis.cli", "--config-file", str(_config(report, credentials or {})),
            "run", f"{served}/openapi.json",
            # No `--checks all`: every check runs by default, and that option would also turn back on, in every
            # phase, the checks schemathesis.toml turns off for one operation (the command line wins).
            "--phases", "examples,coverage,fuzzing,stateful",
            # One worker: schemathesis's threads race in CPython 3.11's `ast` (Hypothesis describing a strategy):
            # "AST constructor recursion depth mismatch", a runtime error of the tool (python/cpython#106905).
            "--seed", str(SEED), "--max-examples", str(examples), "--workers", "1", "--request-timeout", "60",
            "--report", "vcr", "--report-dir", str(report),  # the cassette: every request and answer
        ],  # fmt: skip
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=3600,
    )  # fmt: skip


def _finds_nothing(run: subprocess.CompletedProcess[str]) -> None:
    found = [run.stdout.find(title) for title in (" ERRORS ", " FAILURES ") if title in run.stdout]
    summary = run.stdout[min(found) :] if found else run.stdout[-3000:]
    assert run.returncode == 0, summary[:20000] + run.stderr[-2000:]
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in run.stdout, (phase, run.stdout[-3000:])
    assert "API Links" in run.stdout, run.stdout[-3000:]


def test_schemathesis_all_checks_all_phases_find_nothing(
    served_as_in_production: str, caller: dict[str, str], tmp_path: Path
) -> None:
    examples = int(os.environ.get("DOMINO_CONTRACT_EXAMPLES", "10"))
    _finds_nothing(_schemathesis(served_as_in_production, tmp_path, examples, caller))


@pytest.mark.skipif(os.environ.get("DOMINO_CONTRACT_FULL") != "1", reason="minutes: DOMINO_CONTRACT_FULL=1")
def test_schemathesis_100_examples_per_operation_find_nothing(
    served_as_in_production: str, caller: dict[str, str], tmp_path: Path
) -> None:
    _finds_nothing(_schemathesis(served_as_in_production, tmp_path, 100, caller))

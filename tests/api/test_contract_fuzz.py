"""`schemathesis run` (every check: its default) against the served app, in every phase: examples, coverage, fuzzing and stateful
(the stateful phase follows the document's `links` from a created game, ticket or challenge to what can be done
with it, with real ids and tokens). Any finding fails the test, and so does any 5xx (no allowed status is one).

It runs as a user would from the repository: `schemathesis.toml` there loads schemathesis_hooks.py, which
stands for what JSON Schema cannot say (see there), and names the findings that are the tool's mistakes. The
operations are read from the document, so an operation added later is fuzzed without a change here.

The app is served as production serves it (`domino-serve`: gunicorn's gevent workers, `api.app:serve()`, whose
own answers to a request line or headers over its limits are problem documents) with a private Redis, a real
worker on the bots queues (so `/readyz` is ready and computer players move; production's sweep interval), no
rate limit and long polls capped at 50 ms. Two callers, at once: an app with its bot, 100 examples per operation
(`DOMINO_CONTRACT_EXAMPLES` for fewer or more), and a new user without credentials, 10: the operations that need
none are fuzzed alike in the app's run, and the app's run sends each of the others without its credentials too
(the ignored-auth check), so the anonymous run at 100 found nothing the app's did not and cost as much again.
Seeded, so a run is reproducible. Where the time goes (measured): each caller sends ~11,000 requests, of which the coverage phase
~8,400 whatever the number of examples; the fuzzing phase's cost is schemathesis's generation, about half of it
its negative mode canonicalising a mutated schema for every case (jsonschema_rs), which no setting caches."""

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
# A served app, a worker and the schemathesis CLI: minutes, the suite's longest test, so it starts first.
pytestmark = [pytest.mark.slow, pytest.mark.early]


@pytest.fixture
def served_as_in_production(settings, tmp_path: Path) -> Iterator[str]:  # type: ignore[no-untyped-def]
    env = {
        **os.environ,  # the settings fixture exported DOMINO_* (Redis, prefix, queues, archive)
        "DOMINO_RATE_LIMIT": "",
        "DOMINO_APP_RATE_LIMIT": "",
        "DOMINO_MAX_WAIT": "0.05",
        "DOMINO_KEEPALIVE_INTERVAL": "0.05",
        "DOMINO_MIN_TURN_TIMEOUT": "1.0",  # the shortest turn as documented (other tests lower it)
        # Production's sweep (the settings fixture's 50 ms, for tests that wait on a sweep, made the worker scan
        # every game of the run 20 times a second: over a minute of CPU taken from the run's two cores).
        "DOMINO_SWEEP_INTERVAL": "2.0",
        "DOMINO_BOT_DUE_DELAY": "2.0",
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


def _credentials(make_app, register_bot) -> dict[str, dict[str, str]]:  # type: ignore[no-untyped-def]
    """Who runs schemathesis: a new user with no credentials, and an app (with a webhook, so that its test ping is
    queued) with the bot it registered: the credentials of the security schemes a client holds before it plays
    (seat, ticket and simulation tokens come by the document's links)."""
    issued = make_app(webhook="http://127.0.0.1:9/hooks")
    bot = register_bot("fuzzbot", key=issued.key)
    return {"anonymous": {}, "app": {"appKey": issued.key, "botToken": bot["token"]}}


def _config(report: Path, credentials: dict[str, str]) -> Path:
    """The repository's schemathesis.toml, with these credentials for their security schemes."""
    text = (ROOT / "schemathesis.toml").read_text()
    for scheme, token in credentials.items():
        text += f'\n[auth.openapi.{scheme}]\nbearer = "{token}"\n'
    path = report / "schemathesis.toml"
    path.write_text(text)
    return path


def _schemathesis(served: str, report: Path, examples: int, credentials: dict[str, str]) -> subprocess.Popen[bytes]:
    """A schemathesis run started (its output in ``report``/stdout), as a user runs it from the repository."""
    report.mkdir()
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("SCHEMATHESIS_HOOKS", None)  # the repository's schemathesis.toml names them
    with (report / "stdout").open("w") as out:
        return subprocess.Popen(
            [
                sys.executable, "-m", "schemathesis.cli", "--config-file", str(_config(report, credentials)),
                "run", f"{served}/openapi.json",
                # No `--checks all`: every check runs by default, and that option would also turn back on, in every
                # phase, the checks schemathesis.toml turns off for one operation (the command line wins).
                "--phases", "examples,coverage,fuzzing,stateful",
                # One worker: schemathesis's threads race in CPython 3.11's `ast` (Hypothesis describing a
                # strategy): "AST constructor recursion depth mismatch", a runtime error of the tool
                # (python/cpython#106905).
                "--seed", str(SEED), "--max-examples", str(examples), "--workers", "1", "--request-timeout", "60",
                "--report", "vcr", "--report-dir", str(report),  # the cassette: every request and answer
            ],  # fmt: skip
            env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip


def _finds_nothing(caller: str, run: subprocess.Popen[bytes], report: Path) -> None:
    run.wait(timeout=3600)
    stdout = (report / "stdout").read_text()
    found = [stdout.find(title) for title in (" ERRORS ", " FAILURES ") if title in stdout]
    summary = stdout[min(found) :] if found else stdout[-3000:]
    assert run.returncode == 0, caller + summary[:20000]
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in stdout, (caller, phase, stdout[-3000:])
    assert "API Links" in stdout, (caller, stdout[-3000:])


def test_schemathesis_all_checks_all_phases_find_nothing(  # type: ignore[no-untyped-def]
    served_as_in_production: str, make_app, register_bot, tmp_path: Path
) -> None:
    """Both callers at once, each its own schemathesis process (one worker each: see above) against the one
    served app: two cores, and a run is a chain of requests, each waiting for its answer."""
    examples = int(os.environ.get("DOMINO_CONTRACT_EXAMPLES", "100"))
    per_caller = {"app": examples, "anonymous": min(examples, 10)}
    runs = {
        caller: _schemathesis(served_as_in_production, tmp_path / caller, per_caller[caller], credentials)
        for caller, credentials in _credentials(make_app, register_bot).items()
    }
    try:
        for caller, run in runs.items():
            _finds_nothing(caller, run, tmp_path / caller)
    finally:
        for run in runs.values():
            if run.poll() is None:
                end_server(run, grace=5)

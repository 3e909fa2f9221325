"""`schemathesis run --checks all` against a served app, in the examples, fuzzing and stateful phases (the
stateful phase follows the document's `links` from a created game to its view, moves, events, seats and
resignation with real tokens): any finding fails the test. (The coverage phase does not run the hooks of
schemathesis_hooks.py, which stand for what JSON Schema cannot say: see there.)

The app is served on 127.0.0.1 by a threaded WSGI server with a private Redis and a real worker on the bots
queue (so `/readyz` is ready and computer players move). Seeded, so a run is reproducible; a few dozen
examples per operation keep it under a minute or two on 2 cores."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = os.environ.get("DOMINO_CONTRACT_EXAMPLES", "20")
pytestmark = pytest.mark.slow  # a served app, a worker and the schemathesis CLI: tens of seconds


@pytest.mark.xfail(
    reason="known findings, to fix in the document: JSON Schema does not yet say that `clock` and `turn_timeout_s` "
    "exclude each other, nor that a resign body's `seat` is for the app key only (both answered 422)",
    strict=False,
)
def test_schemathesis_all_checks_all_phases_find_nothing(served: str, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "schemathesis_hooks",
        "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]),
        "NO_COLOR": "1",
    }
    run = subprocess.run(
        [
            sys.executable, "-m", "schemathesis.cli", "--config-file", str(Path(__file__).with_name("schemathesis.toml")),
            "run", f"{served}/openapi.json",
            "--checks", "all", "--phases", "examples,fuzzing,stateful",
            "--seed", "4242", "--max-examples", EXAMPLES, "--workers", "2", "--request-timeout", "10",
            "--report-dir", str(tmp_path),
        ],  # fmt: skip
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    summary = run.stdout[run.stdout.find("FAILURES") :] if "FAILURES" in run.stdout else run.stdout[-3000:]
    assert run.returncode == 0, summary + run.stderr[-2000:]
    assert "Stateful" in run.stdout and "API Links" in run.stdout, run.stdout[-3000:]

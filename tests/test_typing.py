"""``mypy --strict`` passes, in one run over everything typed: the engine (``domino``), the API and the workers,
and the game played with the generated client (tests/api/generated_client_game.py) against the package
generated from the OpenAPI document. One run, rather than one per package: each run parses the same imports again."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "tests" / "api" / "generated_client_game.py"


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_mypy_strict_passes_on_the_engine_the_api_the_workers_and_the_generated_client_game(generated_client: Path) -> None:
    # --follow-imports=silent: the generated package is checked only as far as the game uses it (its own code
    # is not ours to fix); everything named on the command line is checked in full.
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-error-summary",
         "domino", "api", "workers", str(GAME)],
        cwd=ROOT, env={**os.environ, "MYPYPATH": str(generated_client)}, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr

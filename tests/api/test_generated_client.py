"""A client generated from `openapi/openapi.json` with `openapi-python-client` (into a temporary folder) plays
whole games: a 2-player draw game against `greedy`, once following the long poll and once the Server-Sent
Events (generated_client_game.py), and `mypy --strict` passes on that code against the generated package."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAME = Path(__file__).with_name("generated_client_game.py")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The generated package `domino_client` in a temporary folder, importable while the module's tests run."""
    where = tmp_path_factory.mktemp("client")
    config = where / "config.yaml"
    config.write_text("post_hooks: []\n")  # no formatter run: the code is used as generated
    cli = Path(sys.executable).with_name("openapi-python-client")
    run = subprocess.run(
        [str(cli), "generate", "--path", str(ROOT / "openapi" / "openapi.json"), "--output-path",
         str(where / "domino_client"), "--meta", "none", "--config", str(config)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Warning" not in run.stdout + run.stderr, run.stdout + run.stderr  # the whole document was understood
    sys.path.insert(0, str(where))
    sys.path.insert(0, str(GAME.parent))
    try:
        yield where
    finally:
        sys.path.remove(str(where))
        sys.path.remove(str(GAME.parent))
        for name in [m for m in sys.modules if m.split(".")[0] in ("domino_client", "generated_client_game")]:
            del sys.modules[name]


def test_mypy_strict_passes_on_the_game_played_with_the_generated_client(generated: Path) -> None:
    env = {**os.environ, "MYPYPATH": str(generated)}
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental", str(GAME)],
        capture_output=True, text=True, timeout=300, env=env, cwd=generated,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_generated_client_plays_a_game_by_long_poll(generated: Path, served: str) -> None:
    import generated_client_game as game

    view, moves = game.play_by_long_poll(served)
    assert moves > 0 and view.winners and sum(view.scores) > 0


def test_the_generated_client_plays_a_game_by_server_sent_events(generated: Path, served: str) -> None:
    import generated_client_game as game

    view, moves = game.play_by_sse(served)
    assert moves > 0 and view.winners and sum(view.scores) > 0

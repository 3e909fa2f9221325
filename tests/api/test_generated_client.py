"""A client generated from `openapi/openapi.json` with `openapi-python-client` (into a temporary folder) plays
whole games: a 2-player draw game against `greedy`, once following the long poll and once the Server-Sent
Events (generated_client_game.py). (`mypy --strict` checks that code against the generated package in the one
mypy run of tests/test_typing.py.) Slow: each game is a served app and a worker process."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

GAME = Path(__file__).with_name("generated_client_game.py")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def generated(generated_client: Path) -> Iterator[Path]:
    """The generated package `domino_client` (conftest's ``generated_client``), importable while the module's
    tests run."""
    sys.path.insert(0, str(generated_client))
    sys.path.insert(0, str(GAME.parent))
    try:
        yield generated_client
    finally:
        sys.path.remove(str(generated_client))
        sys.path.remove(str(GAME.parent))
        for name in [m for m in sys.modules if m.split(".")[0] in ("domino_client", "generated_client_game")]:
            del sys.modules[name]


def test_the_generated_client_plays_a_game_by_long_poll(generated: Path, served: str) -> None:
    import generated_client_game as game

    view, moves = game.play_by_long_poll(served)
    assert moves > 0 and view.winners and sum(view.scores) > 0


def test_the_generated_client_plays_a_game_by_server_sent_events(generated: Path, served: str) -> None:
    import generated_client_game as game

    view, moves = game.play_by_sse(served)
    assert moves > 0 and view.winners and sum(view.scores) > 0

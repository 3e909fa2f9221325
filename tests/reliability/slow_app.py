"""The API with a pause around every commit, for the fault tests: gunicorn ``slow_app:app``.

``DOMINO_TEST_PAUSE_BEFORE_COMMIT`` / ``DOMINO_TEST_PAUSE_AFTER_COMMIT`` (seconds) hold a request just before
its compare-and-set reaches Redis, or just after it landed and before the answer is sent, so that a test can
kill the process at exactly that point: the pause begins by creating the file ``DOMINO_TEST_PAUSED_MARK`` names,
which the test waits for.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from api.app import create_app
from api.store import GameStore

_commit = GameStore.commit


def _pause(where: str) -> None:
    seconds = float(os.environ.get(f"DOMINO_TEST_PAUSE_{where}_COMMIT", "0"))
    if seconds:
        if mark := os.environ.get("DOMINO_TEST_PAUSED_MARK"):
            Path(mark).touch()
        time.sleep(seconds)


def _paused_commit(self: GameStore, *args: Any, **kwargs: Any) -> Any:
    _pause("BEFORE")
    result = _commit(self, *args, **kwargs)
    _pause("AFTER")
    return result


GameStore.commit = _paused_commit  # type: ignore[method-assign]
app = create_app()

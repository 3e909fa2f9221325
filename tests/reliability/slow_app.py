"""The API with a pause around every commit, for the fault tests: gunicorn ``slow_app:app``.

``DOMINO_TEST_PAUSE_BEFORE_COMMIT`` / ``DOMINO_TEST_PAUSE_AFTER_COMMIT`` (seconds) hold a request just before
its compare-and-set reaches Redis, or just after it landed and before the answer is sent, so that a test can
kill the process at exactly that point.
"""

from __future__ import annotations

import os
import time
from typing import Any

from api.app import create_app
from api.store import GameStore

_commit = GameStore.commit


def _paused_commit(self: GameStore, *args: Any, **kwargs: Any) -> Any:
    time.sleep(float(os.environ.get("DOMINO_TEST_PAUSE_BEFORE_COMMIT", "0")))
    result = _commit(self, *args, **kwargs)
    time.sleep(float(os.environ.get("DOMINO_TEST_PAUSE_AFTER_COMMIT", "0")))
    return result


GameStore.commit = _paused_commit  # type: ignore[method-assign]
app = create_app()

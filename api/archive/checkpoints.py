"""A SQLite archive's WAL checkpoints, off the writer's path.

A batch of archived games is several megabytes of WAL. With SQLite's automatic checkpoint the commit that
crossed its threshold copied them into the database file and synced both files before it returned: on this
machine's disk that wait was as long as the rest of the batch's write. Here a thread of the writing process
does it instead, once per batch written (``PRAGMA wal_checkpoint(PASSIVE)``: it never blocks a writer or a
reader), while the job goes on with its next batch; the data is as durable as before (``synchronous=NORMAL``:
synced at each checkpoint). Each connection keeps an automatic checkpoint at a far threshold
(:data:`FALLBACK_PAGES`), should the thread fall behind or a process write without one.
"""

from __future__ import annotations

import logging
import threading

import sqlalchemy as sa

log = logging.getLogger("api.archive")

FALLBACK_PAGES = 16384  # 64 MiB of WAL at SQLite's default page size (SQLite's own threshold: 1,000 pages)


class Checkpointer:
    """Runs a PASSIVE checkpoint in its own daemon thread after each :meth:`written` (several writes while one
    runs: one more after it)."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        self._due = threading.Event()
        self._stopped = False
        self._thread: threading.Thread | None = None

    def written(self) -> None:
        """A batch was committed: checkpoint it soon (starts the thread on first use, and again in a forked
        process, which has none)."""
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="archive-checkpoints", daemon=True)
            self._thread.start()
        self._due.set()

    def stop(self) -> None:
        self._stopped = True
        self._due.set()

    def _run(self) -> None:
        while True:
            self._due.wait()
            self._due.clear()
            if self._stopped:
                return
            try:
                with self.engine.connect() as conn:
                    conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
            except sa.exc.DBAPIError as exc:  # the next batch's checkpoint, or the fallback, catches up
                log.warning("the archive's checkpoint failed: %s", exc.orig or exc)

"""domino-serve's children (the API and the workers): each one that exits is started again, so one process's
crash (a bug, the kernel's OOM killer, a Redis it lost) is an outage of that process for a second or two,
not of the whole service. A child that keeps exiting soon after it starts is started again after a back-off
(``RESTART_FIRST`` seconds, doubling up to ``RESTART_MOST``) so a child that cannot run does not spin."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable

RESTART_FIRST = 1.0
RESTART_MOST = 30.0
STEADY = 60.0  # a child up this long has started well: its next exit is restarted after RESTART_FIRST again
LOOK_EVERY = 0.5


class Child:
    """One process of domino-serve, started by ``start`` (again when it has exited)."""

    def __init__(self, name: str, start: Callable[[], subprocess.Popen[bytes]]) -> None:
        self.name, self.start = name, start
        self.proc = start()
        self.started_at = time.monotonic()
        self.delay = RESTART_FIRST
        self.due: float | None = None  # when to start it again, once it has exited
        self.restarts = 0

    def look(self, now: float) -> None:
        """Start it again if it exited and its back-off has passed."""
        if self.due is None:
            if self.proc.poll() is None:
                return
            if now - self.started_at >= STEADY:
                self.delay = RESTART_FIRST
            self.due = now + self.delay
            print(
                f"domino-serve: {self.name} exited with {self.proc.returncode}; starting it again in {self.delay:g} s",
                file=sys.stderr,
                flush=True,
            )
            self.delay = min(self.delay * 2, RESTART_MOST)
        if now >= self.due:
            self.proc, self.started_at, self.due = self.start(), now, None
            self.restarts += 1


def supervise(children: list[Child], stopping: threading.Event) -> int:
    """Watch the children until Ctrl-C or SIGTERM (then 0), starting again each one that exits."""
    while not stopping.is_set():
        now = time.monotonic()
        for child in children:
            child.look(now)
        stopping.wait(LOOK_EVERY)
    print("\ndomino-serve: stopping", flush=True)
    return 0

"""gunicorn's configuration module for the API's server processes: ``gunicorn --config
python:workers.gunicorn_config`` (``domino-serve`` and docker-compose start theirs so).

At start, the open-files soft limit is raised to the hard limit, and the connections each process accepts
at once (``--worker-connections``, gevent) are lowered to what those files can hold; both are logged. A
login shell's or a systemd unit's soft limit is usually 1,024, while a gevent process was offered 2,000
connections: past the limit ``accept`` fails (``EMFILE``) and the process stops answering anyone,
``/healthz`` included (issue 32). A process that accepts only what fits leaves the rest waiting in the
listen queue, which costs no file.
"""

from __future__ import annotations

import resource
from typing import Any

# Files a process needs besides its connections: the listening socket, logs, the request connections' Redis
# pools, the metrics files, imported modules' handles.
RESERVED_FILES = 64
# Each connection is a socket, and an open event stream holds a blocking Redis connection of its own.
FILES_PER_CONNECTION = 2


def raise_open_files() -> tuple[int, int]:
    """Raise this process's open-files soft limit to its hard limit (its children inherit it); (soft limit
    before, soft limit now)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == hard:
        return soft, soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):  # an unlimited hard limit above the kernel's nr_open: keep what we have
        return soft, soft
    return soft, hard


def connections_that_fit(open_files: int) -> int:
    """How many connections one process can hold at once with ``open_files`` files."""
    if open_files == resource.RLIM_INFINITY:
        return 1 << 20
    return max(1, (open_files - RESERVED_FILES) // FILES_PER_CONNECTION)


def on_starting(server: Any) -> None:
    """gunicorn's hook, in the arbiter before it starts any worker (they read ``worker_connections`` then)."""
    before, now = raise_open_files()
    asked = server.cfg.worker_connections
    fit = connections_that_fit(now)
    if asked > fit:
        server.cfg.set("worker_connections", fit)
    raised = f"raised from {before}" if now != before else "not raised: it is the hard limit"
    held = f"{min(asked, fit)} connections at once per process" + (f" (asked for {asked})" if asked > fit else "")
    if server.cfg.worker_class_str == "sync":
        held = "one connection at a time per process (sync)"
    server.log.info("open files: soft limit %s (%s); %s", now, raised, held)

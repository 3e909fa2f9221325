"""What the abuse benches share (bench/abuse.py, abuse_unattended.py, abuse_webhooks.py, slow_bodies.py): a
``domino-serve`` of their own on 127.0.0.1, requests to it (from any loopback address), and their figures."""

from __future__ import annotations

import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workers.redis_server import free_port  # noqa: E402

HOST = "127.0.0.1"


def serve_env(**settings: str) -> dict[str, str]:
    """This process's environment without its ``DOMINO_`` settings, then ``settings``, a data folder of its own
    and warnings only in the log."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOMINO_")}
    env.update(DOMINO_DATA_DIR=tempfile.mkdtemp(prefix="domino-bench-"), DOMINO_LOG_LEVEL="WARNING")
    env.update(settings)
    return env


class Served:
    """``domino-serve`` on 127.0.0.1 and a free port, stopped with SIGTERM (as Ctrl-C would)."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "workers.cli", "serve", "--host", HOST, "--port", str(self.port), *args],
            env={**env, "PYTHONPATH": os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])},
            cwd=ROOT,
            stdout=subprocess.DEVNULL,  # the access log
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                if call(self.port, "GET", "/readyz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("domino-serve did not become ready")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def call(
    port: int,
    method: str,
    path: str,
    body: object = None,
    headers: dict[str, str] | None = None,
    conn: Any = None,
    source: str | None = None,
) -> tuple[int, Any]:
    """One request (on ``conn`` if given, kept open; else from ``source``, a loopback address, when given: another
    client to the server); (status, JSON body or None)."""
    own = conn is None
    if own:
        conn = http.client.HTTPConnection(HOST, port, timeout=30, source_address=(source, 0) if source else None)
    h = {"Content-Type": "application/json", **(headers or {})} if body is not None else dict(headers or {})
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=h)
    resp = conn.getresponse()
    raw = resp.read()
    if own:
        conn.close()
    return resp.status, (json.loads(raw) if raw and resp.getheader("Content-Type", "").endswith("json") else None)


def new_game(port: int, seats: list[dict[str, Any]], **body: Any) -> dict[str, Any]:
    status, data = call(port, "POST", "/v1/games", {"variant": "draw", "seats": seats, **body})
    if status != 201:
        raise RuntimeError(f"POST /v1/games: {status} {data}")
    return dict(data)


def rest(port: int, game_id: str, requests: int) -> tuple[list[float], int]:
    """(latencies of ``requests`` REST requests, failures): a game's view and ``GET /v1/variants`` in turn, one
    keep-alive connection (opened again after a failure)."""
    out, failed = [], 0
    conn = None
    for i in range(requests):
        path = "/v1/variants" if i % 2 else f"/v1/games/{game_id}"
        t0 = time.perf_counter()
        try:
            conn = conn or http.client.HTTPConnection(HOST, port, timeout=30)
            status, _ = call(port, "GET", path, conn=conn)
            failed += status != 200
        except OSError:
            failed += 1
            conn = None
        out.append(time.perf_counter() - t0)
    return out, failed


def pct(values: list[float], p: float) -> float:
    """The p-th percentile in ms (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] * 1000


def summary(label: str, runs: list[list[float]], p: int = 99) -> str:
    """The median over the runs of each run's p-th percentile (with their range) and p50."""
    tails = [pct(r, p) for r in runs]
    p50 = statistics.median(pct(r, 50) for r in runs)
    return (
        f"{label:<44} p{p} {statistics.median(tails):7.1f} ms (runs {min(tails):.1f}-{max(tails):.1f})"
        f"   p50 {p50:6.1f} ms   n={sum(len(r) for r in runs)}"
    )

"""A real `domino-serve` (gevent API processes) holds 500 idle event streams while REST requests keep
answering, and the stream caps count across its processes."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from support import end_server, eventually, serving, start_serve
from workers.redis_server import free_port

pytestmark = pytest.mark.slow

STREAMS = 500


@pytest.fixture
def served(settings, tmp_path):  # type: ignore[no-untyped-def]
    """`domino-serve` on the test's Redis (its prefix and queues, exported by the settings fixture), with the
    per-client stream cap raised: every stream of this test comes from 127.0.0.1."""
    port = free_port()
    env = {
        "DOMINO_STREAMS_PER_CLIENT": str(2 * STREAMS),
        "DOMINO_STREAMS_PER_GAME": "200",
        "DOMINO_KEEPALIVE_INTERVAL": "0.5",  # a stream notices its client went away within half a second
    }
    proc = start_serve(port, tmp_path, env)
    # A ceiling: a REST request that waits on the streams hangs; one that answers takes milliseconds.
    http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
    try:
        assert serving(str(http.base_url).rstrip("/"), proc), "domino-serve did not start"
        yield http
    finally:
        http.close()
        end_server(proc, grace=30)


def open_stream(port: int, game_id: str) -> socket.socket:
    """A spectator's SSE stream, returned once the server has sent its first frame."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(f"GET /v1/games/{game_id}/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
    head = b""
    while b"retry:" not in head:
        chunk = sock.recv(4096)
        assert chunk, f"the stream closed: {head!r}"
        head += chunk
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    return sock


def streams_held(settings) -> int:  # type: ignore[no-untyped-def]
    from api.store import Store

    store = Store(settings)
    return int(store.rq_connection().zcard(store.streams.keys("127.0.0.1", "x")[0]))


def test_500_idle_streams_leave_rest_answering(served, settings):  # type: ignore[no-untyped-def]
    port = served.base_url.port
    seats = [{"name": "Ana"}, {"name": "Bo"}]
    games = [served.post("/v1/games", json={"variant": "draw", "seats": seats}).json()["game"]["id"] for _ in range(5)]
    socks = [open_stream(port, games[i % len(games)]) for i in range(STREAMS)]
    try:
        assert streams_held(settings) == STREAMS
        slowest = 0.0
        for i in range(60):  # REST answers while every stream is open
            t0 = time.perf_counter()
            resp = served.get("/v1/variants" if i % 3 else "/healthz") if i % 2 else served.get(f"/v1/games/{games[0]}")
            slowest = max(slowest, time.perf_counter() - t0)
            assert resp.status_code == 200
        created = served.post("/v1/games", json={"variant": "draw", "seats": seats})
        assert created.status_code == 201
        print(f"\nstreams: the slowest of 60 REST requests beside {STREAMS} open streams took {slowest * 1000:.0f} ms")
        # One game's cap holds across the API processes: its 100 streams plus 100 more reach 200, then 429.
        more = [open_stream(port, games[0]) for _ in range(100)]
        socks += more
        refused = served.get(f"/v1/games/{games[0]}/events", headers={"Accept": "text/event-stream"})
        assert refused.status_code == 429 and refused.json()["type"] == "/problems/too-many-streams"
        assert int(refused.headers["Retry-After"]) > 0
        # /metrics still sums the gevent processes' counters (prometheus multiprocess mode).
        metrics = served.get("/metrics").text
        assert 'domino_http_requests_total{method="GET",route="/v1/variants",status="200"}' in metrics
    finally:
        for sock in socks:
            sock.close()
    # Clients gone: each stream notices at its next keep-alive and releases its slot.
    eventually(lambda: streams_held(settings) == 0, "every stream's slot released", 60, 0.2)

"""A body that does not arrive within the deadline (DOMINO_BODY_TIMEOUT) is a 408 request-timeout, and the
connection closes; on gunicorn's gevent workers (domino-serve) and its sync workers (docker-compose's REST).
And the attack of issue 32 at a smaller size: domino-serve keeps answering through slow bodies."""

from __future__ import annotations

import resource
import threading

import httpx
import pytest

from gunicorn_server import env_for, gunicorn_factory  # noqa: F401  (gunicorn_factory: a fixture)
from slow_clients import answer, raise_open_files, slow_body, status
from support import end_server, returns_within, serving, start_serve
from workers.redis_server import free_port

@pytest.mark.slow  # a gunicorn started per case: seconds each
@pytest.mark.parametrize(("worker_class", "trickle"), [("gevent", True), ("gevent", False), ("sync", False)])
def test_a_body_that_does_not_arrive_in_time_is_408(settings, gunicorn_factory, worker_class, trickle):
    """On gevent the deadline holds however the body trickles (a byte every 0.1 s here); on sync workers it ends
    a body that stops (docker-compose's nginx reads every body in full before passing it on)."""
    env = env_for(settings, DOMINO_BODY_TIMEOUT="0.5")
    server = gunicorn_factory(env, app="api.app:serve()", options=("--worker-class", worker_class))
    with slow_body(server.port, length=1000) as sock:  # one byte of a 1000-byte body so far
        stop = threading.Event()
        sender = threading.Thread(target=lambda: drip(sock, stop), daemon=True)
        if trickle:
            sender.start()
        raw = returns_within(30, lambda: answer(sock))  # a ceiling: without the deadline it never comes
        stop.set()
    head, _, body = raw.partition(b"\r\n\r\n")
    assert status(raw) == 408 and b"application/problem+json" in head, raw
    assert b"/problems/request-timeout" in body, raw
    # A body sent in time is read as before.
    resp = httpx.post(f"{server.base}/v1/games", json={"variant": "draw", "seats": [{"name": "A"}, {"name": "B"}]}, timeout=30)
    assert resp.status_code == 201, resp.text


def drip(sock, stop: threading.Event) -> None:  # type: ignore[no-untyped-def]
    """A byte every 0.1 s until stopped or refused: pacing a client, not waiting for the server."""
    while not stop.wait(0.1):
        try:
            sock.send(b" ")
        except OSError:
            return


@pytest.mark.slow
def test_domino_serve_at_a_soft_limit_of_1024_answers_through_slow_bodies_from_4_addresses(settings, tmp_path):
    """The attack of issue 32, smaller: 2,400 POSTs from 4 addresses send their headers and one byte of body,
    to a domino-serve started where the open-files soft limit is 1,024. Liveness and REST keep answering from
    another address meanwhile, each slow body is answered 408 or 429 (never left hanging), nothing dies."""
    raise_open_files(8192)  # this process holds the 2,400 connections
    port = free_port()
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    proc = start_serve(
        port, tmp_path, {"DOMINO_BODY_TIMEOUT": "3"}, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, limit))
    )
    base = f"http://127.0.0.1:{port}"
    try:
        assert serving(base, proc), "domino-serve did not start"
        held = [slow_body(port, source=f"127.0.0.{2 + i % 4}") for i in range(2400)]
        with httpx.Client(base_url=base, timeout=30) as http:  # a ceiling: a frozen server never answers
            for _ in range(10):
                assert http.get("/healthz").status_code == 200
                assert http.get("/v1/variants").status_code == 200
        statuses = []
        for sock in held:
            with sock:
                statuses.append(status(answer(sock)))
        assert set(statuses) <= {408, 429}, sorted(set(map(str, statuses)))
        assert statuses.count(408) and statuses.count(429)  # the deadline ended some, the cap refused the rest
        assert proc.poll() is None
        assert httpx.get(f"{base}/healthz", timeout=30).status_code == 200
    finally:
        end_server(proc, grace=30)

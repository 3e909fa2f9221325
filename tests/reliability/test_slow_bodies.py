"""A body that does not arrive within the deadline (DOMINO_BODY_TIMEOUT) is a 408 request-timeout, and the
connection closes; on gunicorn's gevent workers (domino-serve) and its sync workers (docker-compose's REST)."""

from __future__ import annotations

import httpx
import pytest

from gunicorn_server import env_for, gunicorn_factory  # noqa: F401  (gunicorn_factory: a fixture)
from slow_clients import answer, slow_body, status
from support import returns_within


@pytest.mark.parametrize("worker_class", ["gevent", "sync"])
def test_a_body_that_does_not_arrive_in_time_is_408(settings, gunicorn_factory, worker_class):
    env = env_for(settings, DOMINO_BODY_TIMEOUT="0.5")
    server = gunicorn_factory(env, app="api.app:serve()", options=("--worker-class", worker_class))
    with slow_body(server.port) as sock:  # one byte of a 100-byte body, then nothing
        raw = returns_within(30, lambda: answer(sock))  # a ceiling: without the deadline it never comes
    head, _, body = raw.partition(b"\r\n\r\n")
    assert status(raw) == 408 and b"application/problem+json" in head, raw
    assert b"/problems/request-timeout" in body, raw
    # A body sent in time is read as before.
    resp = httpx.post(f"{server.base}/v1/games", json={"variant": "draw", "seats": [{"name": "A"}, {"name": "B"}]}, timeout=30)
    assert resp.status_code == 201, resp.text

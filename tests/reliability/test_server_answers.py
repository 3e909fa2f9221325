"""What a client gets when it sends what the server cannot read: a chunked body over the limit or malformed,
a request line or headers over gunicorn's limits. Against gunicorn, as production serves the app."""

from __future__ import annotations

import socket

import httpx
import pytest

from conftest import schema_validator
from gunicorn_server import env_for, gunicorn_factory  # noqa: F401  (gunicorn_factory: a fixture)

pytestmark = pytest.mark.slow  # a gunicorn started per test: seconds each


def test_a_chunked_body_over_the_limit_is_413_and_a_malformed_one_400_on_gunicorn(settings, create_game, service, gunicorn_factory):
    data, players, _ = create_game([{"name": "Ana"}, {"name": "Bo"}])
    game_id = data["game"]["id"]
    server = gunicorn_factory(env_for(settings))

    def body():  # type: ignore[no-untyped-def]
        yield b'{"type": "draw", "pad": "'
        for _ in range(40):
            yield b"x" * 1024
        yield b'"}'

    resp = httpx.post(
        f"{server.base}/v1/games/{game_id}/moves",
        content=body(),  # no Content-Length: Transfer-Encoding: chunked
        headers={**players[0].headers, "Content-Type": "application/json"},
        timeout=30,
    )
    assert resp.status_code == 413 and resp.headers["content-type"].startswith("application/problem+json")
    assert service.store.games.version(game_id) == 0

    # A chunk size that is no number, and a chunk without its CRLF: gunicorn's reader fails on the body.
    for chunks in (b"ZZ\r\n", b'2\r\n{}XX0\r\n\r\n'):
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(
                f"POST /v1/games/{game_id}/moves HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Authorization: {players[0].headers['Authorization']}\r\nTransfer-Encoding: chunked\r\n"
                "Connection: close\r\n\r\n".encode() + chunks
            )
            answer = b"".join(iter(lambda: sock.recv(4096), b""))
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400 ") and b"application/problem+json" in head, answer
        assert b"/problems/bad-request" in body, answer
    assert service.store.games.version(game_id) == 0


def test_what_gunicorn_refuses_before_the_app_is_a_problem_document_too(settings, gunicorn_factory):
    """A request line or headers over gunicorn's limits, or a malformed header, never reach the app: gunicorn
    answers them itself, in the API's problem format (the production entry point installs it)."""
    server = gunicorn_factory(env_for(settings), app="api.app:serve()")
    cases = [
        (httpx.Request("GET", f"{server.base}/v1/games/{'a' * 5000}"), 414, "uri-too-long"),
        (httpx.Request("GET", f"{server.base}/v1/variants", headers={"X-Big": "b" * 9000}), 431, "header-fields-too-large"),
        (httpx.Request("GET", f"{server.base}/v1/variants", headers={f"X-{i}": "x" for i in range(120)}), 431, "header-fields-too-large"),
    ]  # fmt: skip
    with httpx.Client(timeout=30) as client:
        for request, status, slug in cases:
            resp = client.send(request)
            assert resp.status_code == status and resp.headers["content-type"] == "application/problem+json", resp.text
            assert resp.json()["type"] == f"/problems/{slug}" and resp.json()["status"] == status
            assert schema_validator("Problem").is_valid(resp.json()), resp.json()  # as documented on every operation
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:  # a control character in a header
        sock.sendall(b"GET /v1/variants HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\x01b\r\nConnection: close\r\n\r\n")
        answer = b"".join(iter(lambda: sock.recv(4096), b""))
    assert answer.startswith(b"HTTP/1.1 400 ") and b"application/problem+json" in answer, answer
    assert b'"type":"/problems/bad-request"' in answer

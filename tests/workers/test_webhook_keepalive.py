"""A delivery thread keeps its connection to a webhook's host open (api/service/keepalive.py): the deliveries
to one host go on one connection, and a fresh one is made when the host's address changes (each delivery still
judges the address it connects to), after a failure, for another host name on the same address (TLS is checked
per name), and when the receiver closed the kept one as a delivery went out (sent once more). A delivery thread
that goes idle closes its connections. Each delivery here runs in the test's thread (``Webhooks.deliver``)."""

from __future__ import annotations

import http.server
import ipaddress
import socket
import ssl
import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from api.app import create_app
from api.service import addresses, deliveries, keepalive
from support import eventually, tls_for

class Receiver:
    """A hosted bot's HTTP/1.1 endpoint on ``host``: keeps each request's Host header and the connection it came
    on (the caller's port), answers 204 and keeps the connection open; ``script`` says what to do instead with
    the next requests: ``drop`` (close without an answer) or ``garbage`` (an answer that is not HTTP)."""

    def __init__(self, host: str, port: int = 0, tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[tuple[str, int]] = []
        self.script: list[str] = []
        self.closed: list[int] = []  # the connections that ended, by the caller's port
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers["Content-Length"]))
                outer.requests.append((self.headers["Host"], self.client_address[1]))
                action = outer.script.pop(0) if outer.script else "ok"
                if action == "ok":
                    self.send_response(204)
                    self.end_headers()
                    return
                if action == "garbage":
                    self.wfile.write(b"not http at all\r\n\r\n")
                self.close_connection = True

            def finish(self) -> None:
                super().finish()
                outer.closed.append(self.client_address[1])

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer((host, port), Handler)
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def connections(self) -> list[int]:
        return [port for _, port in self.requests]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(autouse=True)
def own_connections() -> Iterator[None]:
    keepalive.close_all()
    yield
    keepalive.close_all()


class Hosted:
    """An API of the test's settings whose games seat a hosted bot: :meth:`turn` delivers, in this thread, the turn
    of a new game's hosted seat (made to move first) to ``url``; its outcome."""

    def __init__(self, settings: Any) -> None:
        app = create_app({"DOMINO": settings, "TESTING": True})
        self.client, self.service = app.test_client(), app.extensions["domino.service"]

    def turn(self, url: str) -> str:
        seats = [{"name": "hb", "webhook": url}, {"name": "Bo"}]
        data = self.client.post("/v1/games", json={"variant": "draw", "seats": seats}).get_json()
        game_id = data["game"]["id"]
        if data["game"]["turn"] != 0:
            bo = next(t["token"] for t in data["tokens"] if t["seat"] == 1)
            auth = {"Authorization": f"Bearer {bo}"}
            move = self.client.get(f"/v1/games/{game_id}", headers=auth).get_json()["legal_moves"][0]
            assert self.client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth).status_code == 200
        version = self.client.get(f"/v1/games/{game_id}").get_json()["version"]
        return str(self.service.webhooks.deliver(game_id, version, 0))


@pytest.fixture
def named(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Names resolved by the test: name -> the address it resolves to now."""
    table: dict[str, str] = {}
    real = socket.getaddrinfo

    def lookup(host, port, *args, **kwargs):  # type: ignore[no-untyped-def]
        if host in table:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (table[host], port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    return table


def test_deliveries_to_one_host_go_on_one_connection(settings) -> None:  # type: ignore[no-untyped-def]
    receiver = Receiver("127.0.0.1")
    hosted = Hosted(settings)
    try:
        url = f"http://127.0.0.1:{receiver.port}/turn"
        assert [hosted.turn(url) for _ in range(3)] == ["delivered"] * 3
        assert len(receiver.requests) == 3 and len(set(receiver.connections())) == 1, receiver.requests
    finally:
        receiver.close()


def test_a_host_whose_address_changed_is_judged_and_connected_to_afresh(settings, named, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    first = Receiver("127.0.0.1")
    second, third = Receiver("127.0.0.2", first.port), Receiver("127.0.0.3", first.port)
    hosted = Hosted(replace(settings, webhook_allow_private=False))
    monkeypatch.setattr(addresses, "SPECIAL_V4", (ipaddress.IPv4Network("127.0.0.3/32"),))  # the one "private" address
    url = f"http://hooks.example:{first.port}/turn"
    try:
        named["hooks.example"] = "127.0.0.1"
        assert hosted.turn(url) == "delivered"
        named["hooks.example"] = "127.0.0.2"
        assert hosted.turn(url) == "delivered"
        assert [len(first.requests), len(second.requests)] == [1, 1], "the second went to the address judged"
        eventually(lambda: first.closed == first.connections(), "the connection to the old address was closed", 10, 0.01)
        named["hooks.example"] = "127.0.0.3"  # rebound to an address the filter refuses: a kept connection changes nothing
        assert hosted.turn(url).startswith("failed: points to a non-public address")
        assert [len(first.requests), len(second.requests), len(third.requests)] == [1, 1, 0]
    finally:
        for r in (first, second, third):
            r.close()


def test_after_a_failure_the_next_delivery_connects_afresh(settings) -> None:  # type: ignore[no-untyped-def]
    receiver = Receiver("127.0.0.1")
    hosted = Hosted(settings)
    url = f"http://127.0.0.1:{receiver.port}/turn"
    try:
        receiver.script = ["garbage"]  # on a fresh connection: a failure, not sent again
        assert hosted.turn(url) == "failed: RemoteProtocolError"
        hosted.service.store.hook_hosts.answered(f"addr:127.0.0.1:{receiver.port}")  # its back-off aside
        assert hosted.turn(url) == "delivered"
        assert hosted.turn(url) == "delivered"
        broken, *then = receiver.connections()
        assert len(then) == 2 and len(set(then)) == 1 and broken not in then, receiver.requests
    finally:
        receiver.close()


def test_a_kept_connection_the_receiver_dropped_is_replaced_and_the_delivery_sent_again(settings) -> None:  # type: ignore[no-untyped-def]
    receiver = Receiver("127.0.0.1")
    hosted = Hosted(settings)
    url = f"http://127.0.0.1:{receiver.port}/turn"
    try:
        assert hosted.turn(url) == "delivered"
        receiver.script = ["drop"]  # closed as the next one came in, with no answer
        assert hosted.turn(url) == "delivered"
        kept, dropped, again = receiver.connections()
        assert kept == dropped != again, receiver.requests
        assert receiver.requests[1][0] == receiver.requests[2][0]
    finally:
        receiver.close()


def test_over_https_a_kept_connection_serves_only_the_name_it_was_verified_for(settings, named, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    context, names = tls_for("hooks.example", tmp_path, monkeypatch)
    receiver = Receiver("127.0.0.1", tls=context)
    named.update({"hooks.example": "127.0.0.1", "other.example": "127.0.0.1"})
    hosted = Hosted(settings)
    try:
        assert hosted.turn(f"https://hooks.example:{receiver.port}/turn") == "delivered"
        assert hosted.turn(f"https://hooks.example:{receiver.port}/turn") == "delivered"
        assert names == ["hooks.example"] and len(set(receiver.connections())) == 1, "one handshake, one connection"
        # Same address and port, a name the certificate is not for: its own connection, refused by the TLS check.
        assert hosted.turn(f"https://other.example:{receiver.port}/turn").startswith("failed: ConnectError")
        assert len(receiver.requests) == 2
    finally:
        receiver.close()


def test_a_delivery_thread_gone_idle_closes_its_connections(settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(keepalive, "KEEPALIVE_S", 0.05)
    receiver = Receiver("127.0.0.1")
    hosted = Hosted(settings)
    pool = deliveries.Deliveries(2, 2)
    url = f"http://127.0.0.1:{receiver.port}/turn"
    try:
        outcome: list[str] = []
        pool.submit("test", "one", lambda: outcome.append(hosted.turn(url)))
        assert pool.wait_idle(30) and outcome == ["delivered"]
        eventually(lambda: receiver.closed == receiver.connections(), "the idle thread closed its connection", 10, 0.01)
    finally:
        receiver.close()

"""Webhooks under abuse (issue 21): a delivery connects to the address it checked (no DNS rebinding), the
address filter sees through IPv6 forms of private addresses, and a dead host is backed off so that other
hosts' deliveries do not queue behind it."""

from __future__ import annotations

import http.server
import ipaddress
import socket
import threading
import time
from dataclasses import replace

import pytest

from api.app import create_app
from api.service import addresses
from local_endpoint import BlackHole
from support import run_webhooks, tls_for


class Receiver:
    """A hosted bot listening on ``host``: records each delivery (its Host header and when) and answers 204."""

    def __init__(self, host: str, port: int = 0) -> None:
        self.requests: list[tuple[str, float]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers["Content-Length"]))
                outer.requests.append((self.headers["Host"], time.monotonic()))
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer((host, port), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def hosted_game(client, url: str) -> str:  # type: ignore[no-untyped-def]
    """A game whose hosted seat (0) is to move: its delivery is queued."""
    resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "hb", "webhook": url}, {"name": "Bo"}]})
    assert resp.status_code == 201, resp.get_json()
    data = resp.get_json()
    if data["game"]["turn"] != 0:
        bo = next(t["token"] for t in data["tokens"] if t["seat"] == 1)
        auth = {"Authorization": f"Bearer {bo}"}
        move = client.get(f"/v1/games/{data['game']['id']}", headers=auth).get_json()["legal_moves"][0]
        assert client.post(f"/v1/games/{data['game']['id']}/moves", json=move, headers=auth).status_code == 200
    return str(data["game"]["id"])


def test_a_delivery_connects_to_the_address_it_checked(settings, monkeypatch):
    # hooks.example resolves to a "public" address when checked and to an internal one afterwards (DNS
    # rebinding). 127.0.0.2 plays the internal service: the only address the filter calls non-public here.
    public, internal = Receiver("127.0.0.1"), Receiver("127.0.0.2")
    internal.close()
    internal = Receiver("127.0.0.2", public.port)
    real = socket.getaddrinfo
    answers: list[str] = []

    def rebinding(host, port, *args, **kwargs):  # type: ignore[no-untyped-def]
        if host != "hooks.example":
            return real(host, port, *args, **kwargs)
        answers.append("127.0.0.1" if not answers else "127.0.0.2")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answers[-1], port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    monkeypatch.setattr(addresses, "SPECIAL_V4", (ipaddress.IPv4Network("127.0.0.2/32"),))
    from workers import jobs

    strict = replace(settings, webhook_allow_private=False)
    monkeypatch.setenv("DOMINO_WEBHOOK_ALLOW_PRIVATE", "0")  # the worker's service reads the environment
    jobs.use_service(None)
    app = create_app({"DOMINO": strict, "TESTING": True})
    service = app.extensions["domino.service"]
    try:
        hosted_game(app.test_client(), f"http://hooks.example:{public.port}/turn")
        run_webhooks(service)
        assert internal.requests == [], "the connection went to the address the check saw"
        assert [host for host, _ in public.requests] == [f"hooks.example:{public.port}"], "Host is the URL's"
        assert len(answers) == 1, "resolved once"
    finally:
        public.close()
        internal.close()


@pytest.mark.parametrize(
    "address",
    [
        "64:ff9b::7f00:1", "64:ff9b::a00:5", "64:ff9b::a9fe:a9fe", "64:ff9b:1::808:808", "2002:7f00:1::1",
        "2002:c0a8:1::", "::127.0.0.1", "::10.0.0.1", "::ffff:127.0.0.1", "::ffff:169.254.169.254",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2", "fec0::1", "ff0e::1", "224.0.0.1", "::", "::1", "fe80::1",
    ],
)  # fmt: skip
def test_ipv6_forms_of_private_addresses_are_refused(address):
    assert addresses.non_public(ipaddress.ip_address(address)), address
    assert addresses.literal_target(f"http://[{address}]/" if ":" in address else f"http://{address}/"), address


@pytest.mark.parametrize("host", ["2130706433", "0177.0.0.1", "0x7f.1", "0", "10.1", "0xa9fea9fe"])
def test_other_forms_of_private_ipv4_addresses_are_refused_at_creation(host, settings):
    """The resolver reads these as IPv4 addresses (127.0.0.1, 10.0.0.1, 169.254.169.254, 0.0.0.0)."""
    assert addresses.literal_target(f"https://{host}/hook"), host
    strict = create_app({"DOMINO": replace(settings, webhook_allow_private=False), "TESTING": True}).test_client()
    seats = [{"name": "b", "webhook": f"https://{host}/hook"}, {"bot": "greedy"}]
    resp = strict.post("/v1/games", json={"variant": "draw", "seats": seats})
    assert resp.status_code == 422 and "non-public" in resp.get_json()["detail"], resp.get_json()


@pytest.mark.parametrize("url", ["https://example.com:99999/hook", "https://example.com:0/hook", "https://e.com:065535/"])
def test_a_webhook_port_out_of_range_is_refused_at_creation(url, client, app_key):
    """A hosted seat's and a registered bot's (the document's pattern allows ports 1 to 65535): 422 naming
    the field, and nothing is created."""
    resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "b", "webhook": url}, {"bot": "greedy"}]})
    assert resp.status_code == 422 and list(resp.get_json()["errors"]["json"]["seats"]["0"]) == ["webhook"]
    body = {"name": "hookbot", "description": "x", "variants": ["draw"], "webhook": url}
    resp = client.post("/v1/bots", json=body, headers={"Authorization": f"Bearer {app_key}"})
    assert resp.status_code == 422 and list(resp.get_json()["errors"]["json"]) == ["webhook"]
    assert client.get("/v1/bots/hookbot").status_code == 404
    good = url.split("//")[0] + "//example.com:65535/hook"
    resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "b", "webhook": good}, {"bot": "greedy"}]})
    assert resp.status_code == 201, resp.get_json()


def test_a_stored_webhook_with_a_port_out_of_range_is_refused_not_a_crash():
    with pytest.raises(addresses.Refused, match="port"):
        addresses.pin("https://example.com:99999/hook", allow_private=False, deadline=1.0)


@pytest.mark.parametrize("address", ["8.8.8.8", "2606:4700::1111", "64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8"])
def test_public_addresses_and_their_ipv6_forms_are_allowed(address):
    assert addresses.non_public(ipaddress.ip_address(address)) is None, address


def test_a_dead_host_is_backed_off_and_other_hosts_do_not_wait_behind_it(settings, client, service):
    hole, good = BlackHole("127.0.0.3"), Receiver("127.0.0.2")
    try:
        for _ in range(6):
            hosted_game(client, f"http://127.0.0.3:{hole.port}/turn")
        hosted_game(client, f"http://127.0.0.2:{good.port}/turn")
        t0 = time.monotonic()
        run_webhooks(service)
        assert len(good.requests) == 1
        # One owner (this client) has at most webhook_per_owner deliveries in flight: those wait out the
        # first-contact timeout; the others find the host backed off and return at once, without a call.
        assert 1 <= len(hole.accepted) <= settings.webhook_per_owner, "the dead host is called, then backed off"
        print(f"\nthe good host's delivery came {good.requests[0][1] - t0:.2f} s after the dead ones began")
        assert service.store.hooks_due.size() == 6, "its deliveries stay due: the sweep tries again later"
        assert service.store.hook_hosts.backoff_left(f"addr:127.0.0.3:{hole.port}") > 0
        assert service.store.hook_hosts.backoff_left(f"addr:127.0.0.2:{good.port}") == 0
    finally:
        hole.close()
        good.close()


def test_over_https_the_pinned_address_is_verified_for_the_host_name(settings, tmp_path, monkeypatch):
    """Connected to the address, TLS still names the host (SNI) and checks the certificate against it."""
    context, names = tls_for("hooks.example", tmp_path, monkeypatch)
    receiver = Receiver("127.0.0.1")
    receiver.server.socket = context.wrap_socket(receiver.server.socket, server_side=True)
    real = socket.getaddrinfo
    monkeypatch.setattr(
        socket, "getaddrinfo",
        lambda host, port, *a, **k: [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        if host in ("hooks.example", "other.example") else real(host, port, *a, **k),
    )  # fmt: skip
    app = create_app({"DOMINO": settings, "TESTING": True})
    service = app.extensions["domino.service"]
    try:
        hosted_game(app.test_client(), f"https://hooks.example:{receiver.port}/turn")
        run_webhooks(service)
        assert [host for host, _ in receiver.requests] == [f"hooks.example:{receiver.port}"]
        assert names == ["hooks.example"], "SNI names the host, not the address"
        # A name the certificate is not for is refused by the TLS check, though the address is the same.
        hosted_game(app.test_client(), f"https://other.example:{receiver.port}/turn")
        run_webhooks(service)
        assert len(receiver.requests) == 1
    finally:
        receiver.close()

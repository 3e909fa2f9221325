"""One client's requests in flight in a server process are capped (429 too-many-in-flight, counted without
Redis, until the answer is ready); other clients are not held back, and an answered request frees its place."""

from __future__ import annotations

import threading
from dataclasses import replace

from api.app import create_app
from api.inflight import InFlight
from conftest import openapi_document
from support import blocked_clients, eventually

HOLDER = {"REMOTE_ADDR": "10.0.0.1"}
OTHER = {"REMOTE_ADDR": "10.0.0.2"}


def test_the_count_is_per_client_and_capped():
    counts = InFlight(2)
    assert counts.enter("a") and counts.enter("a") and not counts.enter("a")
    assert counts.enter("b")
    counts.leave("a")
    assert counts.enter("a")
    for client in ("a", "a", "b"):
        counts.leave(client)
    assert counts.by_client == {}  # nothing kept for clients with nothing in flight


def test_a_client_at_its_cap_gets_429_until_an_answer_is_ready(settings, service):
    app = create_app({"DOMINO": replace(settings, in_flight_per_client=1, rate_limit=""), "TESTING": True})
    client = app.test_client()
    created = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"name": "Bo"}]})
    game, token = created.get_json()["game"], created.get_json()["tokens"][0]["token"]
    game_id = game["id"]
    conn = service.store.redis
    readers = blocked_clients(conn, "xread")
    answered: dict[str, int] = {}

    def long_poll() -> None:  # in flight until the game's next event
        resp = app.test_client().get(f"/v1/games/{game_id}/events?after={game['version']}&wait=30", environ_base=HOLDER)
        answered["status"] = resp.status_code

    thread = threading.Thread(target=long_poll)
    thread.start()
    eventually(lambda: blocked_clients(conn, "xread") > readers, "the long poll waits in its XREAD")
    for path in ("/v1/variants", "/healthz"):  # liveness too: the cap is the process's, not the rate limit's
        refused = client.get(path, environ_base=HOLDER)
        assert refused.status_code == 429 and refused.mimetype == "application/problem+json", refused.data
        assert refused.get_json()["type"] == "/problems/too-many-in-flight"
        assert int(refused.headers["Retry-After"]) > 0 and refused.headers["X-Request-ID"]
    assert client.get("/v1/variants", environ_base=OTHER).status_code == 200  # another client is not held back
    resign = client.post(f"/v1/games/{game_id}/resign", headers={"Authorization": f"Bearer {token}"}, environ_base=OTHER)
    assert resign.status_code == 200, resign.data
    thread.join(20)  # a ceiling well inside the poll's 30 s: the resignation's events woke it
    assert not thread.is_alive() and answered["status"] == 200
    assert client.get("/v1/variants", environ_base=HOLDER).status_code == 200  # its place was freed


def test_the_cap_and_the_body_deadline_are_documented_on_every_operation():
    methods = {"get", "post", "put", "patch", "delete"}
    for path, operations in openapi_document()["paths"].items():
        for method, operation in operations.items():
            if method not in methods:
                continue
            responses = operation["responses"]
            examples = responses["429"]["content"]["application/problem+json"]["examples"]
            assert "too-many-in-flight" in examples, (method, path)
            assert "Retry-After" in responses["429"]["headers"], (method, path)
            if method in ("post", "put", "patch"):
                assert "request-timeout" in responses["408"]["content"]["application/problem+json"]["examples"]

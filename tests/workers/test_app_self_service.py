"""An app looks after itself with its key: `PATCH /v1/app` (webhook, events), its delivery log (`GET
/v1/app/deliveries`), redelivery and a test ping, received by a local endpoint and checked against the
app's secret."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from standardwebhooks.webhooks import Webhook

from api.app import create_app
from api.service import self_service
from api.store import LogNote
from api.store.delivery_log import DeliveryLog
from local_endpoint import LocalEndpoint
from support import assert_problem, eventually, run_webhooks


class Receiver(LocalEndpoint):
    def __init__(self, statuses: list[int] | None = None) -> None:
        self.deliveries: list[tuple[dict[str, str], bytes]] = []
        self.statuses = list(statuses or [])
        super().__init__("/hooks")

    def answer(self, headers: dict[str, str], body: bytes) -> int:
        self.deliveries.append((headers, body))
        return self.statuses.pop(0) if self.statuses else 204


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def log(client, key: str, query: str = "") -> dict[str, Any]:  # type: ignore[no-untyped-def]
    resp = client.get(f"/v1/app/deliveries{query}", headers=auth(key))
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()  # type: ignore[no-any-return]


def test_an_app_changes_its_webhook_and_events_itself(client, make_app, settings) -> None:  # type: ignore[no-untyped-def]
    issued = make_app()
    resp = client.patch("/v1/app", json={"webhook": "https://hooks.example.com/d", "events": ["game.ended", "turn.started"]}, headers=auth(issued.key))
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["webhook"] == "https://hooks.example.com/d" and body["events"] == ["game.ended", "turn.started"]
    secret = body["webhook_secret"]
    assert secret.startswith("whsec_"), "a webhook where there was none comes with its secret, shown once"
    again = client.patch("/v1/app", json={"webhook": "https://hooks.example.com/e"}, headers=auth(issued.key)).get_json()
    assert "webhook_secret" not in again and again["events"] == ["game.ended", "turn.started"], "another URL keeps the secret"
    for bad in ({"webhook": "ftp://x.example.com"}, {"webhook": "https://u:p@x.example.com/"}, {"events": ["turn.begun"]},
                {"events": []}, {"rate_limit": "0"}, {"max_games": 0}):  # fmt: skip
        refused = client.patch("/v1/app", json=bad, headers=auth(issued.key))
        assert refused.status_code == 422, (bad, refused.get_json())
    assert client.get("/v1/app", headers=auth(issued.key)).get_json()["webhook"] == "https://hooks.example.com/e", "nothing changed"
    assert client.patch("/v1/app", json={"events": ["game.ended"]}).status_code == 401
    strict = create_app({"DOMINO": replace(settings, webhook_allow_private=False), "TESTING": True}).test_client()
    private = strict.patch("/v1/app", json={"webhook": "http://127.0.0.1:9/x"}, headers=auth(issued.key))
    assert private.status_code == 422 and "points to" in private.get_json()["detail"], "the rules of its creation"
    removed = client.patch("/v1/app", json={"webhook": None}, headers=auth(issued.key)).get_json()
    assert removed["webhook"] is None and removed["webhook_secrets"] == []


def test_a_test_ping_is_signed_and_its_result_is_in_the_log(client, make_app, service) -> None:  # type: ignore[no-untyped-def]
    receiver = Receiver()
    try:
        issued = make_app(webhook=receiver.url)
        resp = client.post("/v1/app/webhook/test", headers=auth(issued.key))
        assert resp.status_code == 202, resp.get_json()
        queued = resp.get_json()
        assert queued["kind"] == "ping" and queued["status"] == "pending" and queued["attempts"] == 0
        assert log(client, issued.key)["deliveries"] == [queued]
        run_webhooks(service)
    finally:
        receiver.close()
    (headers, body), = receiver.deliveries
    assert Webhook(issued.webhook_secret).verify(body, headers)["type"] == "ping"
    assert headers["webhook-id"] == queued["id"]
    (done,) = log(client, issued.key)["deliveries"]
    assert (done["status"], done["attempts"], done["code"]) == ("delivered", 1, 204)
    assert isinstance(done["duration_ms"], int) and done["last_attempt_at"] is not None
    assert_problem(client.post("/v1/app/webhook/test", headers=auth(make_app().key)), 409, "no-webhook")


def test_the_log_shows_retries_pages_and_redelivers(client, make_app, service) -> None:  # type: ignore[no-untyped-def]
    receiver = Receiver(statuses=[500])
    try:
        issued = make_app(webhook=receiver.url)
        games = []
        for _ in range(3):
            resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "A"}, {"name": "B"}]}, headers=auth(issued.key))
            games.append(resp.get_json()["game"]["id"])
        run_webhooks(service)
        failed = [d for d in log(client, issued.key)["deliveries"] if d["status"] != "delivered"]
        assert [(d["status"], d["code"], d["attempts"]) for d in failed] == [("retrying", 500, 1)]

        def all_delivered() -> bool:
            if service.sweep().app_events:
                run_webhooks(service)
            return all(d["status"] == "delivered" for d in log(client, issued.key)["deliveries"])

        eventually(all_delivered, "the failed delivery was tried again", 60, 0.05)
        first = log(client, issued.key, "?limit=2")
        second = client.get(first["next"], headers=auth(issued.key)).get_json()
        listed = first["deliveries"] + second["deliveries"]
        assert second["next"] is None and [d["game_id"] for d in listed] == games[::-1], "newest first"
        assert {d["kind"] for d in listed} == {"game.started"}
        retried = next(d for d in listed if d["id"] == failed[0]["id"])
        assert (retried["attempts"], retried["code"]) == (2, 204)

        again = client.post(f"/v1/app/deliveries/{retried['id']}/redeliver", headers=auth(issued.key))
        assert again.status_code == 202 and again.get_json()["status"] == "pending"
        run_webhooks(service)
        assert client.post("/v1/app/deliveries/msg_nope/redeliver", headers=auth(issued.key)).status_code == 404
        other = make_app()
        assert client.post(f"/v1/app/deliveries/{retried['id']}/redeliver", headers=auth(other.key)).status_code == 404
    finally:
        receiver.close()
    ids = [h["webhook-id"] for h, _ in receiver.deliveries]
    assert ids.count(retried["id"]) == 3, "failed, retried, redelivered: one webhook-id"
    assert [d for d in log(client, issued.key)["deliveries"] if d["id"] == retried["id"]][0]["attempts"] == 3


def test_the_log_keeps_the_newest_and_drops_the_old(service) -> None:  # type: ignore[no-untyped-def]
    kept = DeliveryLog(service.store.apps.conn, service.settings.key_prefix, ttl_s=100, max_entries=3)
    for i in range(5):
        kept.note_many([LogNote("a1", f"msg_{i}", 1000.0 + i, {"kind": "ping", "body": "{}"}, {"status": "pending"})])
    rows, done = kept.page("a1", None, 10)
    assert [r[0] for r in rows] == ["msg_4", "msg_3", "msg_2"] and done
    assert kept.get("a1", "msg_0") is None, "a dropped entry's record goes with it"
    kept.note_many([LogNote("a1", "msg_9", 1200.0, {"kind": "ping", "body": "{}"}, {})])
    assert [r[0] for r in kept.page("a1", None, 10)[0]] == ["msg_9"], "older than its time to keep"
    batch = [LogNote("a1", f"msg_b{i}", 1200.5 + i, {"kind": "ping", "body": "{}"}, {"status": "pending"}) for i in range(4)]
    kept.note_many([*batch, LogNote("a2", "msg_x", 1201.0, {"kind": "ping", "body": "{}"}, {})])
    assert [r[0] for r in kept.page("a1", None, 10)[0]] == ["msg_b3", "msg_b2", "msg_b1"], "a batch is trimmed too"
    assert [r[0] for r in kept.page("a2", None, 10)[0]] == ["msg_x"]


def test_a_batch_handed_over_at_once_is_listed_in_its_order_whatever_the_clock_reads(service, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The log keeps times to the microsecond: a batch noted at a time just past half a microsecond (here the
    first two of four rounded to the same time, listed then by id) still gets a time of its own for each."""
    monkeypatch.setattr(self_service.time, "time", lambda: 1796616003.2508485)
    kept = [(f"msg_{name}", {"app": "a1", "game": name, "body": "{}"}) for name in ("zz", "aa", "mm", "bb")]
    self_service.queued(service.store, kept)
    rows, done = service.store.delivery_log.page("a1", None, 10)
    assert [r[0] for r in rows] == [d for d, _ in reversed(kept)] and done, "newest first: the order handed over"
    assert len({at for _, at, _ in rows}) == len(kept)

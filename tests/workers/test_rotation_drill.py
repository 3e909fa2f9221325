"""A rotation drill: an app keeps calling the API and checking its webhook deliveries (a local receiver) while
its operator rotates its key, then its webhook secret, each with a grace. The app switches to the new key,
and its receiver to the new secret, some time later, as a real deployment would: not one request fails and
not one delivery fails its signature check, retries of deliveries queued before the rotation included."""

from __future__ import annotations

import collections
import threading
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from local_endpoint import LocalEndpoint
from support import eventually, run_webhooks


class AppReceiver(LocalEndpoint):
    """The app's webhook endpoint: checks each delivery as it comes with the secret the app has deployed;
    answers 503 to the next ``hiccups`` deliveries (before checking them), so the service tries them again."""

    def __init__(self) -> None:
        self.secret = ""
        self.hiccups = 0
        self.verified: list[str] = []  # webhook-id of each delivery that checked out
        self.refused: list[dict[str, str]] = []  # headers of each that did not
        self.lock = threading.Lock()
        super().__init__("/hooks")

    def answer(self, headers: dict[str, str], body: bytes) -> int:
        with self.lock:
            if self.hiccups:
                self.hiccups -= 1
                return 503
            try:
                Webhook(self.secret).verify(body, headers)
            except WebhookVerificationError:
                self.refused.append(headers)
                return 400
            self.verified.append(headers["webhook-id"])
            return 204


class Caller:
    """The app's own traffic: reads itself and lists its games, flat out, with whatever key it holds now."""

    def __init__(self, app: Any) -> None:
        self.client = app.test_client()
        self.key = ""
        self.answers: collections.Counter[tuple[str, int]] = collections.Counter()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.stop.is_set():
            key = self.key
            for path in ("/v1/app", "/v1/games?owner=me"):
                resp = self.client.get(path, headers={"Authorization": f"Bearer {key}"})
                self.answers[(key, resp.status_code)] += 1

    def made(self, key: str) -> int:
        return self.answers[(key, 200)]

    def failed(self) -> dict[tuple[str, int], int]:
        return {k: n for k, n in self.answers.items() if k[1] != 200}


@pytest.mark.slow  # a few seconds: two dozen deliveries and retries, and the app's traffic beside them
def test_rotating_the_key_and_the_secret_fails_no_request_and_no_signature(app, client, make_app, service) -> None:  # type: ignore[no-untyped-def]
    receiver, caller = AppReceiver(), Caller(app)
    try:
        issued = make_app(webhook=receiver.url)
        receiver.secret, caller.key = issued.webhook_secret, issued.key
        caller.thread.start()

        def new_game() -> str:
            seats = [{"name": "Ana"}, {"name": "Bo"}]
            resp = client.post("/v1/games", json={"variant": "draw", "seats": seats}, headers={"Authorization": f"Bearer {caller.key}"})
            assert resp.status_code == 201, resp.get_json()
            return f"msg_{resp.get_json()['game']['id']}_0_game_started"

        def delivered(msg_id: str) -> bool:
            run_webhooks(service)
            if msg_id not in receiver.verified and service.sweep().app_events:
                run_webhooks(service)
            return msg_id in receiver.verified

        # a delivery queued before the rotations, whose first try fails: its retries come after them
        receiver.hiccups = 1
        before = new_game()
        run_webhooks(service)

        # the key: the old one works on during the grace, the app switches to the new one later
        old_key = caller.key
        rotated = service.rotate_app_key(issued.app.id, 3600)
        eventually(lambda: caller.made(old_key) >= 40, "the app went on with its old key after the rotation")
        caller.key = rotated.key
        eventually(lambda: caller.made(rotated.key) >= 40, "the app went on with its new key")

        # the secret: signed with both during the grace; the receiver still checks with the old one ...
        new_secret = service.rotate_webhook_secret(issued.app.id, 3600).webhook_secret
        eventually(lambda: delivered(before), "the delivery queued before the rotation was retried", 60, 0.05)
        eventually(lambda: delivered(new_game()), "a delivery after the rotation, checked with the old secret", 60, 0.05)
        # ... then deploys the new one, with a delivery failed meanwhile still to come
        receiver.hiccups = 1
        failed_once = new_game()
        run_webhooks(service)
        receiver.secret = new_secret
        eventually(lambda: delivered(failed_once), "the retry, checked with the new secret", 60, 0.05)
        eventually(lambda: delivered(new_game()), "a new delivery, checked with the new secret", 60, 0.05)
    finally:
        caller.stop.set()
        caller.thread.join(30)
        receiver.close()
    assert caller.failed() == {}, "not one request failed"
    assert receiver.refused == [], "not one delivery failed its signature check"
    assert len(set(receiver.verified)) == 4

"""Correspondence play as an app hears it (issue 31): a game left idle ends `expired` and its `game.ended` is
delivered; an app's abort is delivered the same way."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from standardwebhooks.webhooks import Webhook

from api.app import create_app
from local_endpoint import LocalEndpoint
from support import eventually, run_webhooks

TWO = [{"name": "Ana", "player": "u-ana"}, {"name": "Bo", "player": "u-bo"}]


class Receiver(LocalEndpoint):
    """An app's webhook endpoint: keeps each delivery (headers, body), answers 204."""

    def __init__(self) -> None:
        self.deliveries: list[tuple[dict[str, str], bytes]] = []
        super().__init__("/hooks")

    def answer(self, headers: dict[str, str], body: bytes) -> int:
        self.deliveries.append((headers, body))
        return 204

    def verified(self, secret: str) -> list[dict[str, Any]]:
        return [Webhook(secret).verify(body, headers) for headers, body in self.deliveries]


def test_an_idle_apps_game_ends_expired_and_its_app_hears_it(settings) -> None:  # type: ignore[no-untyped-def]
    app = create_app({"DOMINO": replace(settings, game_ttl=1), "TESTING": True})
    client, service = app.test_client(), app.extensions["domino.service"]
    receiver = Receiver()
    try:
        issued = service.create_app("corr-app", receiver.url, None, None)
        auth = {"Authorization": f"Bearer {issued.key}"}
        game_id = client.post("/v1/games", json={"variant": "draw", "seats": TWO}, headers=auth).get_json()["game"]["id"]
        eventually(lambda: [j for j in service.sweep().expired if j[0] == game_id], "the idle game ended")
        eventually(lambda: run_webhooks(service) or len(receiver.deliveries) >= 2, "game.started and game.ended")
        payloads = receiver.verified(issued.webhook_secret)
    finally:
        receiver.close()
    assert [p["type"] for p in payloads] == ["game.started", "game.ended"]
    ended = payloads[1]["data"]
    assert ended["game_id"] == game_id and ended["status"] == "finished" and ended["winners"] == []
    assert ended["outcome"] == {"reason": "expired", "winners": [], "team": None, "scores": [0, 0]}
    assert ended["players"] == ["u-ana", "u-bo"]
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "finished", "never a 404"


def test_an_aborted_apps_game_is_heard_as_ended(client, service) -> None:  # type: ignore[no-untyped-def]
    receiver = Receiver()
    try:
        issued = service.create_app("corr-abort", receiver.url, None, None)
        auth = {"Authorization": f"Bearer {issued.key}"}
        game_id = client.post("/v1/games", json={"variant": "draw", "seats": TWO}, headers=auth).get_json()["game"]["id"]
        assert client.post(f"/v1/games/{game_id}/abort", headers=auth).status_code == 200
        eventually(lambda: run_webhooks(service) or len(receiver.deliveries) >= 2, "game.started and game.ended")
        payloads = receiver.verified(issued.webhook_secret)
    finally:
        receiver.close()
    assert [p["type"] for p in payloads] == ["game.started", "game.ended"]
    assert payloads[1]["data"]["status"] == "aborted" and payloads[1]["data"]["outcome"]["reason"] == "aborted"

"""Correspondence play as an app hears it (issue 31): a game left idle ends `expired` and its `game.ended` is
delivered; an app's abort is delivered the same way."""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook

from api.app import create_app
from local_endpoint import Recorder
from support import eventually, hear

TWO = [{"name": "Ana", "player": "u-ana"}, {"name": "Bo", "player": "u-bo"}]


class Receiver(Recorder):
    def verified(self, secret: str) -> list[dict[str, Any]]:
        return [Webhook(secret).verify(body, headers) for headers, body in self.deliveries]

    def events(self, secret: str) -> list[dict[str, Any]]:
        """Each event's payload once, in the order first heard: a delivery answered after its timeout is sent
        again, with the same `webhook-id` (at least once)."""
        once = {headers["webhook-id"]: (headers, body) for headers, body in reversed(self.deliveries)}
        return [Webhook(secret).verify(body, headers) for headers, body in reversed(once.values())]



def test_an_idle_apps_game_ends_expired_and_its_app_hears_it(settings) -> None:  # type: ignore[no-untyped-def]
    app = create_app({"DOMINO": replace(settings, game_ttl=1), "TESTING": True})
    client, service = app.test_client(), app.extensions["domino.service"]
    receiver = Receiver()
    try:
        issued = service.create_app("corr-app", receiver.url, None, None)
        auth = {"Authorization": f"Bearer {issued.key}"}
        game_id = client.post("/v1/games", json={"variant": "draw", "seats": TWO}, headers=auth).get_json()["game"]["id"]
        eventually(lambda: [j for j in service.sweep().expired if j[0] == game_id], "the idle game ended")
        hear(service, receiver.deliveries, 2, "game.started and game.ended")
        payloads = receiver.events(issued.webhook_secret)
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
        hear(service, receiver.deliveries, 2, "game.started and game.ended")
        payloads = receiver.events(issued.webhook_secret)
    finally:
        receiver.close()
    assert [p["type"] for p in payloads] == ["game.started", "game.ended"]
    assert payloads[1]["data"]["status"] == "aborted" and payloads[1]["data"]["outcome"]["reason"] == "aborted"


def _turns_game(client, service, receiver: Receiver, events: str, timeout: float | None = None):  # type: ignore[no-untyped-def]
    issued = service.create_app(f"corr-{uuid.uuid4().hex[:8]}", receiver.url, None, None, events)
    auth = {"Authorization": f"Bearer {issued.key}"}
    body = {"variant": "draw", "seats": TWO, "turn_timeout_s": timeout}
    resp = client.post("/v1/games", json=body, headers=auth).get_json()
    return issued, resp["game"]["id"], resp["tokens"]


def test_an_app_hears_each_turn_of_a_human_seat(client, service) -> None:  # type: ignore[no-untyped-def]
    receiver = Receiver()
    try:
        issued, game_id, tokens = _turns_game(client, service, receiver, "turn.started,game.ended", 3600)
        hear(service, receiver.deliveries, 1, "the first turn")
        view = client.get(f"/v1/games/{game_id}").get_json()
        seat = view["turn"]
        auth = {"Authorization": f"Bearer {tokens[seat]['token']}"}
        move = client.get(f"/v1/games/{game_id}", headers=auth).get_json()["legal_moves"][0]
        assert client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth).status_code == 200
        hear(service, receiver.deliveries, 2, "the second turn")
        payloads = receiver.events(issued.webhook_secret)
    finally:
        receiver.close()
    assert [p["type"] for p in payloads] == ["turn.started", "turn.started"], "only what it subscribed to"
    first, second = (p["data"] for p in payloads)
    assert first["version"] == 0 and first["seat"] == seat and first["player"] == TWO[seat].get("player")
    assert first["deadline"] == view["deadline"] and first["game_id"] == game_id
    assert second["version"] == 1 and second["seat"] == 1 - seat and second["deadline"] > first["deadline"] - 1
    ids = list(dict.fromkeys(h["webhook-id"] for h, _ in receiver.deliveries))
    assert ids == [f"msg_{game_id}_0_turn_started", f"msg_{game_id}_1_turn_started"]


def test_a_reminder_comes_once_with_one_id_even_when_the_sweep_dies_before_or_after_sending_it(
    settings, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A sweep that dies after taking a due reminder and before sending it leaves the entry leased: it is sent
    once the lease runs out. One that dies after sending it and before clearing it sends it again, as the same
    delivery: never two different webhook-ids for one reminder."""
    app = create_app({"DOMINO": replace(settings, reminder_min_turn=600, reminder_fraction=0.2), "TESTING": True})
    client, service = app.test_client(), app.extensions["domino.service"]
    lease = service.settings.bot_due_delay
    receiver = Receiver()
    try:
        issued, game_id, _ = _turns_game(client, service, receiver, "turn.reminder", 1000)
        _, short_id, _ = _turns_game(client, service, receiver, "turn.reminder", 599)  # too short for a reminder
        deadline = client.get(f"/v1/games/{game_id}").get_json()["deadline"]
        assert service.sweep(now=deadline - 250).reminders == [], "not yet: a quarter of its time left"
        reminders, lifecycle = service.store.reminders_due, service.timed.lifecycle

        def dies(*args: Any) -> bool:
            raise RuntimeError("the sweep died here")

        with monkeypatch.context() as patched:
            patched.setattr(lifecycle, "remind_many", dies)
            with pytest.raises(RuntimeError):
                service.sweep(now=deadline - 150)
        assert reminders.size() == 1 and receiver.deliveries == [], "taken, not sent, not lost"
        assert service.sweep(now=deadline - 150).reminders == [], "leased: no other sweep takes it meanwhile"
        with monkeypatch.context() as patched:
            patched.setattr(reminders, "clear_many_if", dies)
            with pytest.raises(RuntimeError):
                service.sweep(now=deadline - 150 + lease)
        assert reminders.size() == 1, "sent, and the entry outlived the crash"
        again = service.sweep(now=deadline - 150 + 2 * lease)
        assert [j[0] for j in again.reminders] == [game_id] and reminders.size() == 0
        hear(service, receiver.deliveries, 1, "the reminder")  # sent again as the same delivery: one id
        payloads = receiver.verified(issued.webhook_secret)
    finally:
        receiver.close()
    assert {p["type"] for p in payloads} == {"turn.reminder"}
    assert {p["data"]["game_id"] for p in payloads} == {game_id}, "no reminder for a short turn"
    assert {h["webhook-id"] for h, _ in receiver.deliveries} == {f"msg_{game_id}_0_turn_reminder"}, "one id"
    assert payloads[0]["data"]["deadline"] == deadline
    assert short_id != game_id


def test_a_clock_game_reminds_the_seat_whose_bank_is_long_enough(client, service) -> None:  # type: ignore[no-untyped-def]
    """On a Fischer clock the turn's time is the seat's bank as its turn starts: at least reminder_min_turn
    (600 s by default), it is reminded when reminder_fraction (0.2) of that bank is left; a shorter bank is not."""
    receiver = Receiver()
    try:
        issued = service.create_app(f"corr-{uuid.uuid4().hex[:8]}", receiver.url, None, None, "turn.reminder")
        auth = {"Authorization": f"Bearer {issued.key}"}
        ids = {}
        for bank in (1000, 599):
            body = {"variant": "draw", "seats": TWO, "clock": {"initial_s": bank, "increment_s": 5}}
            resp = client.post("/v1/games", json=body, headers=auth)
            assert resp.status_code == 201, resp.get_json()
            ids[bank] = resp.get_json()["game"]["id"]
        deadline = client.get(f"/v1/games/{ids[1000]}").get_json()["deadline"]
        assert service.sweep(now=deadline - 250).reminders == [], "a quarter of the bank left: not yet"
        assert [j[0] for j in service.sweep(now=deadline - 150).reminders] == [ids[1000]]
        hear(service, receiver.deliveries, 1, "the reminder")
        payloads = receiver.verified(issued.webhook_secret)
    finally:
        receiver.close()
    assert [(p["type"], p["data"]["game_id"]) for p in payloads] == [("turn.reminder", ids[1000])]
    assert payloads[0]["data"]["deadline"] == deadline
    assert service.store.reminders_due.size() == 0, "none was marked for the short bank"

"""Challenges between an app's players: the app hears `challenge.received` (signed, once per challenge), answers
for its player with its key, and owns the game."""

from __future__ import annotations

from typing import Any

from standardwebhooks.webhooks import Webhook

from local_endpoint import Recorder
from support import assert_problem, hear

CHALLENGES = "/v1/challenges"


def test_an_apps_player_challenges_another_the_app_hears_it_and_accepts_for_them(client, service, make_app) -> None:  # type: ignore[no-untyped-def]
    receiver = Recorder()
    try:
        issued = service.create_app("ch-app", receiver.url, None, None, "game.started,challenge.received")
        key = {"Authorization": f"Bearer {issued.key}"}
        itself = client.post(CHALLENGES, json={"to": {"player": "u1"}, "variant": "draw", "player": "u1"}, headers=key)
        assert_problem(itself, 422, "invalid-request")
        made = client.post(CHALLENGES, json={"to": {"player": "u2"}, "variant": "draw", "player": "u1", "rated": True}, headers=key)
        assert made.status_code == 201, made.get_json()
        answer: dict[str, Any] = made.get_json()
        url = f"{CHALLENGES}/{answer['challenge']['id']}"
        hear(service, receiver.deliveries, 1, "challenge.received")
        (headers, body), = receiver.deliveries
        payload = Webhook(issued.webhook_secret).verify(body, headers)
        assert payload["type"] == "challenge.received" and payload["data"]["player"] == "u2"
        assert payload["data"]["challenge"]["id"] == answer["challenge"]["id"]
        assert headers["webhook-id"] == f"msg_{answer['challenge']['id']}_0_challenge_received"
        assert_problem(client.post(f"{url}/accept", query_string={"player": "u1"}, headers=key), 403, "forbidden")
        other = {"Authorization": f"Bearer {make_app().key}"}
        assert_problem(client.post(f"{url}/accept", query_string={"player": "u2"}, headers=other), 404, "not-found")
        accepted = client.post(f"{url}/accept", query_string={"player": "u2"}, headers=key)
        assert accepted.status_code == 200, accepted.get_json()
        mine = accepted.get_json()
        assert mine["status"] == "accepted" and mine["seat"] == 1 and mine["token"]
        theirs = client.get(url, query_string={"player": "u1"}, headers=key).get_json()
        assert theirs["seat"] == 0 and theirs["token"] and theirs["game_id"] == mine["game_id"]
        assert client.get(url, headers={"Authorization": f"Bearer {answer['token']}"}).get_json()["token"] == theirs["token"]
        view = client.get(f"/v1/games/{mine['game_id']}", headers={"Authorization": f"Bearer {mine['token']}"}).get_json()
        assert view["seat"] == 1 and view["rated"] is True and [s["player"] for s in view["seats"]] == ["u1", "u2"]
        owned = client.get("/v1/games", query_string={"owner": "me"}, headers=key).get_json()
        assert mine["game_id"] in [g["id"] for g in owned["games"]]
    finally:
        receiver.close()


def test_an_apps_player_challenges_a_bot_of_another_app_which_accepts(client, make_app, register_bot) -> None:  # type: ignore[no-untyped-def]
    bot = register_bot("lender", key=make_app().key)
    key = {"Authorization": f"Bearer {make_app().key}"}
    answer = client.post(CHALLENGES, json={"to": {"bot": "lender"}, "variant": "draw", "player": "u9"}, headers=key).get_json()
    accepted = client.post(f"{CHALLENGES}/{answer['challenge']['id']}/accept", headers={"Authorization": f"Bearer {bot['token']}"})
    assert accepted.status_code == 200, accepted.get_json()
    assert client.get(f"/v1/games/{accepted.get_json()['game_id']}").get_json()["seats"][1]["kind"] == "registered"
    unconsented = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "u9"}, {"bot": "lender"}]}, headers=key)
    assert_problem(unconsented, 403, "forbidden")  # the challenge was its consent to that game only

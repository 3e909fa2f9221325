"""Who seeks besides anonymous clients: an app's players (the app hears `match.found`, signed, and owns the
game) and a registered bot (its stream gets a `match` notice; it sits as itself)."""

from __future__ import annotations

from typing import Any

from standardwebhooks.webhooks import Webhook

from local_endpoint import Recorder
from support import hear

TICKETS = "/v1/matchmaking/tickets"


def _read(client, answer: dict[str, Any]) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    auth = {"Authorization": f"Bearer {answer['token']}"}
    return client.get(f"{TICKETS}/{answer['ticket']['id']}", headers=auth).get_json()  # type: ignore[no-any-return]


def test_an_apps_players_are_matched_into_its_own_game_and_it_hears_match_found(client, service, run_bots) -> None:  # type: ignore[no-untyped-def]
    receiver = Recorder()
    try:
        issued = service.create_app("mm-app", receiver.url, None, None, "game.started,match.found")
        auth = {"Authorization": f"Bearer {issued.key}"}
        body = {"variant": "draw", "players": 2}
        tickets = [client.post(TICKETS, json={**body, "player": p}, headers=auth).get_json() for p in ("u1", "u2")]
        run_bots()
        a, b = (_read(client, t) for t in tickets)
        assert a["status"] == b["status"] == "matched" and a["game_id"] == b["game_id"]
        owned = client.get("/v1/games", query_string={"owner": "me"}, headers=auth).get_json()
        assert a["game_id"] in [g["id"] for g in owned["games"]]
        hear(service, receiver.deliveries, 2, "game.started and match.found")
        payloads = [Webhook(issued.webhook_secret).verify(body, headers) for headers, body in receiver.deliveries]
    finally:
        receiver.close()
    found = next(p for p in payloads if p["type"] == "match.found")
    assert found["data"]["game_id"] == a["game_id"]
    assert sorted((p["player"], p["seat"], p["ticket"]) for p in found["data"]["players"]) == sorted(
        [("u1", a["seat"], tickets[0]["ticket"]["id"]), ("u2", b["seat"], tickets[1]["ticket"]["id"])]
    )


def test_a_registered_bot_seeks_with_its_token_and_hears_its_match(client, run_bots, register_bot) -> None:  # type: ignore[no-untyped-def]
    bot = register_bot("seeker")
    bot_auth = {"Authorization": f"Bearer {bot['token']}"}
    held = client.post(TICKETS, json={"variant": "draw", "players": 2}, headers=bot_auth).get_json()
    assert held["ticket"]["holder"] == {"kind": "bot", "name": "seeker"}
    human = client.post(TICKETS, json={"variant": "draw", "players": 2, "name": "Ada"}).get_json()
    run_bots()
    mine, theirs = _read(client, held), _read(client, human)
    assert mine["status"] == theirs["status"] == "matched" and mine["token"] is None  # it moves with its own token
    view = client.get(f"/v1/games/{mine['game_id']}").get_json()
    assert view["seats"][mine["seat"]]["kind"] == "registered" and view["seats"][mine["seat"]]["name"] == "seeker"
    notices = client.get("/v1/bot/events", headers=bot_auth).get_json()["events"]
    assert {"type": "match", "game_id": mine["game_id"], "seat": mine["seat"], "ticket": held["ticket"]["id"]}.items() <= next(
        n for n in notices if n["type"] == "match"
    ).items()

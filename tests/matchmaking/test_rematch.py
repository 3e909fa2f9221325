"""Rematch: the same table again once every deciding seat accepts; one new game however many ask at once;
late, repeated or declined answers are 409 `offer-closed`."""

from __future__ import annotations

import threading
from typing import Any

import pytest


def finished_game(client, seats: list[dict[str, Any]] | None = None, key: str | None = None) -> tuple[str, dict[int, str]]:  # type: ignore[no-untyped-def]
    """A game (two humans unless told) ended by a resignation: its id and the seat tokens. ``key``: the app
    key it is created with."""
    seats = seats or [{"name": "Ana"}, {"name": "Bo"}]
    body = {"variant": "draw", "seats": seats, "rules": {"target_score": 50}}
    created = client.post("/v1/games", json=body, headers=auth(key) if key else {}).get_json()
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    game_id = created["game"]["id"]
    first = min(tokens)
    assert client.post(f"/v1/games/{game_id}/resign", headers=auth(tokens[first])).status_code == 200
    return game_id, tokens


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_both_seats_accept_and_one_new_game_is_linked_from_the_old(client) -> None:
    game_id, tokens = finished_game(client)
    offered = client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[0]))
    assert offered.status_code == 202 and offered.get_json()["status"] == "open"
    accepted = client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[1]))
    assert accepted.status_code == 201, accepted.get_json()
    new = accepted.get_json()
    assert new["game"]["seat"] == 1 and new["game"]["variant"] == "draw" and new["game"]["rules"]["target_score"] == 50
    assert [s["name"] for s in new["game"]["seats"]] == ["Ana", "Bo"]
    assert client.get(f"/v1/games/{new['game']['id']}", headers=auth(new["token"])).get_json()["seat"] == 1
    first = client.get(f"/v1/games/{game_id}/rematch", headers=auth(tokens[0])).get_json()
    assert first["status"] == "created" and first["next_game_id"] == new["game"]["id"]
    assert client.get(f"/v1/games/{new['game']['id']}", headers=auth(first["token"])).get_json()["seat"] == 0
    old = client.get(f"/v1/games/{game_id}").get_json()
    assert old["next_game_id"] == new["game"]["id"]
    events = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    assert events[-1]["type"] == "rematch_created" and events[-1]["next_game_id"] == new["game"]["id"]
    again = client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[0]))
    assert again.status_code == 409 and again.get_json()["type"].endswith("/offer-closed")


def test_computer_players_accept_at_once(client) -> None:
    game_id, tokens = finished_game(client, [{"name": "Ana"}, {"bot": "random"}])
    made = client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[0]))
    assert made.status_code == 201 and made.get_json()["game"]["seats"][1]["kind"] == "bot"


def test_every_seat_asking_at_once_makes_one_game(client, app) -> None:
    game_id, tokens = finished_game(client, [{"name": s} for s in ("Ana", "Bo", "Cy", "Di")])
    answers: list[Any] = []

    def ask(token: str) -> None:
        answers.append(app.test_client().post(f"/v1/games/{game_id}/rematch", headers=auth(token)))

    threads = [threading.Thread(target=ask, args=(t,)) for t in tokens.values()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(a.status_code for a in answers) == [201, 202, 202, 202]
    made = next(a.get_json() for a in answers if a.status_code == 201)
    links = {client.get(f"/v1/games/{game_id}/rematch", headers=auth(t)).get_json()["next_game_id"] for t in tokens.values()}
    assert links == {made["game"]["id"]}


def test_a_declined_offer_is_closed(client) -> None:
    game_id, tokens = finished_game(client)
    client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[0]))
    declined = client.post(f"/v1/games/{game_id}/rematch/decline", headers=auth(tokens[1]))
    assert declined.status_code == 200 and declined.get_json()["status"] == "declined"
    late = client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[1]))
    assert late.status_code == 409 and late.get_json()["rematch_status"] == "declined"
    assert client.get(f"/v1/games/{game_id}").get_json()["next_game_id"] is None


@pytest.mark.parametrize("body", [{"rematch_timeout_s": 0}, {"rematch_timeout_s": 601}, {"other": 1}])
def test_bad_offers_are_422(client, body: dict[str, Any]) -> None:
    game_id, tokens = finished_game(client)
    assert client.post(f"/v1/games/{game_id}/rematch", json=body, headers=auth(tokens[0])).status_code == 422


def test_no_rematch_before_the_end_nor_without_a_seat_token(client) -> None:
    created = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"name": "Bo"}]}).get_json()
    game_id, token = created["game"]["id"], created["tokens"][0]["token"]
    early = client.post(f"/v1/games/{game_id}/rematch", headers=auth(token))
    assert early.status_code == 409 and early.get_json()["type"].endswith("/game-not-over")
    assert client.post(f"/v1/games/{game_id}/rematch").status_code == 401


def test_an_offer_answered_after_it_expired_is_closed(client, monkeypatch) -> None:
    import api.service.matchmaking.rematch as rematch

    game_id, tokens = finished_game(client)
    client.post(f"/v1/games/{game_id}/rematch", json={"rematch_timeout_s": 5}, headers=auth(tokens[0]))
    later = rematch.time.time() + 6
    monkeypatch.setattr(rematch.time, "time", lambda: later)
    late = client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[1]))
    assert late.status_code == 409 and late.get_json()["rematch_status"] == "expired"


def test_a_registered_bot_hears_the_offer_and_accepts_with_its_token(client, register_bot, app_key) -> None:
    bot = register_bot("rematcher")
    game_id, tokens = finished_game(client, [{"name": "Ana"}, {"bot": "rematcher"}], key=app_key)  # its owner seats it
    assert client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[0])).status_code == 202
    notices = client.get("/v1/bot/events", headers=auth(bot["token"])).get_json()["events"]
    assert any(n["type"] == "rematch" and n["game_id"] == game_id and n["seat"] == 1 for n in notices)
    made = client.post(f"/v1/games/{game_id}/rematch", headers=auth(bot["token"]))
    assert made.status_code == 201 and made.get_json()["token"] is None
    assert made.get_json()["game"]["seats"][1]["kind"] == "registered"


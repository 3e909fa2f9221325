"""A registered bot is seated only with consent: by its owner's app key (or in an arena it was entered in:
test_arena_owners.py). Any other seating is a 403 that creates nothing; a name no bot can have is a 422."""

from __future__ import annotations

import pytest


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.mark.parametrize("rated", [False, True], ids=["unrated", "rated"])
def test_a_registered_bot_is_seated_only_by_its_owners_key(client, make_app, register_bot, stored_keys, rated):
    owner, other = make_app(), make_app()
    register_bot("ownbot", key=owner.key)
    body = {"variant": "draw", "seats": [{"bot": "ownbot"}, {"bot": "greedy"}], "rated": rated}
    before = stored_keys()
    for headers in ({}, auth(other.key)):
        resp = client.post("/v1/games", json=body, headers=headers)
        assert resp.status_code == 403, resp.get_json()
        assert resp.get_json()["type"] == "/problems/forbidden" and "'ownbot'" in resp.get_json()["detail"]
    assert stored_keys() == before, "a refused seating creates nothing"
    assert client.get("/v1/games", query_string={"owner": "me"}, headers=auth(other.key)).get_json()["games"] == []
    mine = client.post("/v1/games", json=body, headers=auth(owner.key))
    assert mine.status_code == 201, mine.get_json()
    assert mine.get_json()["game"]["seats"][0]["kind"] == "registered"


def test_consent_is_judged_before_the_rest_of_the_seats(client, make_app, register_bot):
    owner, other = make_app(), make_app()
    register_bot("ownbot", key=owner.key)
    seats = [{"name": "Ana"}, {"bot": "ownbot"}, {"bot": "greedy"}]
    resp = client.post("/v1/games", json={"variant": "draw", "seats": seats, "rules": {"target_score": 1}}, headers=auth(other.key))
    assert resp.status_code == 403, resp.get_json()


@pytest.mark.parametrize("name", ["x:events", "mybot:events", "Upper", "a b"])
def test_a_name_no_bot_can_have_is_a_422_everywhere(client, app_key, name):
    game = client.post("/v1/games", json={"variant": "draw", "seats": [{"bot": name}, {"bot": "greedy"}]}, headers=auth(app_key))
    assert game.status_code == 422, game.get_json()
    arena = client.post("/v1/arenas", json={"variant": "draw", "bots": [name, "greedy"], "deals": 1}, headers=auth(app_key))
    assert arena.status_code == 422, arena.get_json()
    assert "bots" in arena.get_json()["errors"]["json"]
    assert client.get(f"/v1/bots/{name}").status_code == 404

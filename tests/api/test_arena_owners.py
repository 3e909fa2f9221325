"""Arenas have owners and limits: created with an app key or a bot token (anonymous: 401), listed and
cancelled by their owner, capped per owner; they enter computer players, the owner's own bots, and the
registered bots opened to arenas (any other: 403, nothing created)."""

from __future__ import annotations

from dataclasses import replace as replace_settings
from typing import Any

import pytest

FAST = {"target_score": 30}


@pytest.fixture
def settings(settings):  # type: ignore[no-untyped-def]
    """Two arenas running per owner, one game in play per arena."""
    return replace_settings(settings, arenas_per_owner=2, arena_games_per_bot=1)


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _create(client, key: str | None, bots: list[str], deals: int = 2) -> Any:  # type: ignore[no-untyped-def]
    body = {"variant": "draw", "bots": bots, "deals": deals, "duplicate": False, "rules": FAST}
    return client.post("/v1/arenas", json=body, headers=auth(key) if key else {})


def test_an_anonymous_arena_is_a_401_and_an_app_or_a_bot_owns_one(client, app_key, register_bot, service):
    refused = _create(client, None, ["greedy", "random"])
    assert refused.status_code == 401 and refused.get_json()["type"] == "/problems/unauthorized"
    assert _create(client, "dsk_bot_forged", ["greedy", "random"]).status_code == 401
    assert service.store.arenas.running() == []
    by_app = _create(client, app_key, ["greedy", "random"])
    assert by_app.status_code == 202, by_app.get_json()
    bot = register_bot("selfish")
    by_bot = _create(client, bot["token"], ["selfish", "greedy"])
    assert by_bot.status_code == 202, by_bot.get_json()
    assert by_bot.get_json()["games"][0]["seats"] == ["selfish", "greedy"]


def test_another_apps_bot_enters_only_once_its_owner_opened_it_to_arenas(client, make_app, register_bot, service, stored_keys):
    owner, other = make_app(), make_app()
    register_bot("closedbot", key=owner.key)
    before = stored_keys()
    refused = _create(client, other.key, ["closedbot", "greedy"])
    assert refused.status_code == 403 and "'closedbot'" in refused.get_json()["detail"], refused.get_json()
    assert stored_keys() == before, "nothing created"
    assert client.get("/v1/bots/closedbot").get_json()["arenas"] == "closed"
    assert client.patch("/v1/bots/closedbot", json={"arenas": "open"}, headers=auth(other.key)).status_code == 403
    opened = client.patch("/v1/bots/closedbot", json={"arenas": "open"}, headers=auth(owner.key))
    assert opened.status_code == 200 and opened.get_json()["arenas"] == "open"
    entered = _create(client, other.key, ["closedbot", "greedy"])
    assert entered.status_code == 202, entered.get_json()
    game = client.get(f"/v1/games/{entered.get_json()['games'][0]['id']}").get_json()
    assert game["seats"][0]["kind"] == "registered" and game["rated"] is True
    # Opened to arenas is not opened to games: outside an arena only its owner's key seats it.
    seats = [{"bot": "closedbot"}, {"bot": "greedy"}]
    assert client.post("/v1/games", json={"variant": "draw", "seats": seats}, headers=auth(other.key)).status_code == 403
    closed = client.patch("/v1/bots/closedbot", json={"arenas": "closed"}, headers=auth(owner.key))
    assert closed.status_code == 200 and _create(client, other.key, ["closedbot", "random"]).status_code == 403
    assert client.patch("/v1/bots/closedbot", json={"arenas": "ajar"}, headers=auth(owner.key)).status_code == 422


def test_an_owner_lists_pages_and_cancels_its_arenas_within_its_cap(client, make_app, service):
    mine, theirs = make_app(), make_app()
    first = _create(client, mine.key, ["greedy", "random"]).get_json()
    second = _create(client, mine.key, ["random", "greedy"]).get_json()
    capped = _create(client, mine.key, ["greedy", "random"])
    assert capped.status_code == 429 and capped.get_json()["type"] == "/problems/too-many-arenas", capped.get_json()
    assert int(capped.headers["Retry-After"]) > 0
    assert _create(client, theirs.key, ["greedy", "random"]).status_code == 202, "the cap is per owner"

    page = client.get("/v1/arenas", query_string={"owner": "me", "limit": 1}, headers=auth(mine.key)).get_json()
    assert [a["id"] for a in page["arenas"]] == [second["id"]] and page["next"]
    rest = client.get(page["next"], headers=auth(mine.key)).get_json()
    assert [a["id"] for a in rest["arenas"]] == [first["id"]] and rest["next"] is None
    assert client.get("/v1/arenas", query_string={"owner": "me"}).status_code == 401
    assert client.get("/v1/arenas", headers=auth(mine.key)).status_code == 422, "owner=me is required"

    assert client.post(f"/v1/arenas/{first['id']}/cancel", headers=auth(theirs.key)).status_code == 403
    assert client.post(f"/v1/arenas/{first['id']}/cancel").status_code == 401
    assert client.post("/v1/arenas/aaaaaaaaaaaaaaaa/cancel", headers=auth(mine.key)).status_code == 404
    cancelled = client.post(f"/v1/arenas/{first['id']}/cancel", headers=auth(mine.key))
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled", cancelled.get_json()
    assert first["id"] not in service.store.arenas.running()
    assert service.arenas.advance(first["id"]) == 0, "a cancelled arena starts no more games"
    assert _create(client, mine.key, ["greedy", "random"]).status_code == 202, "a cancelled arena frees its place"
    again = client.post(f"/v1/arenas/{first['id']}/cancel", headers=auth(mine.key))
    assert again.status_code == 200 and again.get_json()["status"] == "cancelled"


def test_a_cancelled_arenas_games_in_play_end_and_count(client, app_key, run_bots):
    arena = _create(client, app_key, ["greedy", "random"]).get_json()
    assert arena["games_playing"] == 1
    client.post(f"/v1/arenas/{arena['id']}/cancel", headers=auth(app_key))
    run_bots()
    done = client.get(f"/v1/arenas/{arena['id']}").get_json()
    assert done["status"] == "cancelled" and done["games_done"] == 1 and done["games"][1]["status"] == "pending"
    board = {r["name"]: r["games"] for r in client.get("/v1/ratings/draw").get_json()["ratings"]}
    assert board == {"greedy": 1, "random": 1}

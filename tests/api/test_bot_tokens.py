"""A registered bot's token: its owner rotates it (`POST /v1/bots/{name}/token`, the old one stopping at once
or after a grace), and retiring the bot or revoking its app stops every token at once, the server moving for
its seats until their games end."""

from __future__ import annotations

import time
from typing import Any


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def seated(client, key: str, bot: str, **body: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """A game of the owner's app with ``bot`` in seat 0 (its owner's key consents) and a human in seat 1."""
    seats = [{"bot": bot}, {"name": "Ana"}]
    resp = client.post("/v1/games", json={"variant": "draw", "seats": seats, **body}, headers=auth(key))
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()  # type: ignore[no-any-return]


def answers(client, game_id: str, token: str) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """(its view's status, its stream's status) with ``token``."""
    view = client.get(f"/v1/games/{game_id}", headers=auth(token)).status_code
    stream = client.get("/v1/bot/events", query_string={"wait": 0}, headers=auth(token)).status_code
    return view, stream


def test_a_rotated_token_stops_at_once_and_the_new_one_moves_in_games_seated_before(client, register_bot, app_key, service) -> None:  # type: ignore[no-untyped-def]
    old = register_bot("rotabot")["token"]
    game_id = seated(client, app_key, "rotabot")["game"]["id"]
    resp = client.post("/v1/bots/rotabot/token", headers=auth(app_key))
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-store"
    rotated = resp.get_json()
    new = rotated["token"]
    assert new.startswith("dsk_bot_") and new != old and rotated["previous_token_expires_at"] is None
    assert answers(client, game_id, old) == (401, 401)
    assert answers(client, game_id, new) == (200, 200)
    assert client.get(f"/v1/games/{game_id}", headers=auth(new)).get_json()["seat"] == 0
    assert len(service.store.bots.conn.keys(service.store.bots.token_key("*"))) == 1, "one token indexed"


def test_a_grace_keeps_the_old_token_until_it_ends(client, register_bot, app_key, service) -> None:  # type: ignore[no-untyped-def]
    first = register_bot("gracebot")["token"]
    game_id = seated(client, app_key, "gracebot")["game"]["id"]
    rotated = client.post("/v1/bots/gracebot/token", json={"grace_s": 600}, headers=auth(app_key)).get_json()
    assert rotated["previous_token_expires_at"] is not None
    assert answers(client, game_id, first) == answers(client, game_id, rotated["token"]) == (200, 200)
    bots = service.store.bots
    olds = [k for k in bots.conn.keys(bots.token_key("*")) if bots.conn.ttl(k) > 0]
    assert len(olds) == 1 and bots.conn.ttl(olds[0]) <= 600, "the old token's index expires with its grace"
    again = client.post("/v1/bots/gracebot/token", json={"grace_s": 600}, headers=auth(app_key)).get_json()
    assert answers(client, game_id, first)[0] == 401, "rotating again ends the earlier grace"
    assert answers(client, game_id, rotated["token"])[0] == answers(client, game_id, again["token"])[0] == 200


def test_only_the_owner_rotates_a_token_and_the_grace_is_checked(client, register_bot, make_app) -> None:  # type: ignore[no-untyped-def]
    owner, other = make_app(), make_app()
    register_bot("ownedbot", key=owner.key)
    assert client.post("/v1/bots/ownedbot/token", headers=auth(other.key)).status_code == 403
    assert client.post("/v1/bots/ownedbot/token").status_code == 401
    assert client.post("/v1/bots/nobody/token", headers=auth(owner.key)).status_code == 404
    for grace in (-1, 31 * 86400, "1h", True):
        resp = client.post("/v1/bots/ownedbot/token", json={"grace_s": grace}, headers=auth(owner.key))
        assert resp.status_code == 422 and "grace_s" in resp.get_json()["errors"]["json"], grace
    assert client.delete("/v1/bots/ownedbot", headers=auth(owner.key)).status_code == 204
    assert client.post("/v1/bots/ownedbot/token", headers=auth(owner.key)).status_code == 422, "retired"


def test_retiring_stops_the_token_at_once_and_the_server_moves_for_its_seats(client, register_bot, app_key, service, run_bots) -> None:  # type: ignore[no-untyped-def]
    token = register_bot("quitter")["token"]
    created = next(g for i in range(40) if (g := seated(client, app_key, "quitter", seed=f"s{i}"))["game"]["turn"] == 1)
    game_id, human = created["game"]["id"], created["tokens"][0]["token"]
    assert answers(client, game_id, token) == (200, 200)
    assert client.delete("/v1/bots/quitter", headers=auth(app_key)).status_code == 204
    assert answers(client, game_id, token) == (401, 401)
    told = turn_notices(service, "quitter")
    view = client.get(f"/v1/games/{game_id}", headers=auth(human)).get_json()
    moved_for = 0
    while view["status"] == "playing" and moved_for < 3:
        if view["turn"] == 0:  # the bot's: due at once, where its own turns wait 30 s (bot_turn_timeout)
            assert service.sweep(now=time.time() + 1).timeouts, "the retired bot's turn is due at once"
            run_bots()
            moved_for += 1
        else:
            resp = client.post(f"/v1/games/{game_id}/moves", json=view["legal_moves"][0], headers=auth(human))
            assert resp.status_code == 200, resp.get_json()
        view = client.get(f"/v1/games/{game_id}", headers=auth(human)).get_json()
    events = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    bot_moves = [e for e in events if e.get("seat") == 0 and e["type"] in ("tile_played", "tile_drawn", "passed")]
    assert moved_for and bot_moves and all(e.get("auto") for e in bot_moves)
    assert turn_notices(service, "quitter") == told, "nobody is told of a retired bot's turns"


def turn_notices(service, name: str) -> int:  # type: ignore[no-untyped-def]
    return sum(n["type"] == "turn" for _, n in service.store.bots.read(name, "0-0", count=10_000))


def test_revoking_the_app_retires_its_bots_and_stops_their_tokens(client, register_bot, make_app, service) -> None:  # type: ignore[no-untyped-def]
    owner = make_app()
    token = register_bot("orphan", key=owner.key)["token"]
    game_id = seated(client, owner.key, "orphan")["game"]["id"]
    service.revoke_app(owner.app.id)
    assert answers(client, game_id, token) == (401, 401)
    assert "orphan" not in [b["id"] for b in client.get("/v1/bots").get_json()]
    assert client.get("/v1/bots/orphan").status_code == 404


def test_a_retired_bots_turn_already_begun_is_moved_for_at_once_and_its_other_games_keep_their_deadlines(client, register_bot, app_key, service, run_bots) -> None:  # type: ignore[no-untyped-def]
    register_bot("sleeper")
    day3 = {"turn_timeout_s": 3 * 86400}
    games = [seated(client, app_key, "sleeper", seed=f"s{i}", **day3) for i in range(40)]
    its_turn = next(g for g in games if g["game"]["turn"] == 0)
    theirs = next(g for g in games if g["game"]["turn"] == 1)
    game_id, human = its_turn["game"]["id"], its_turn["tokens"][0]["token"]
    due = service.store.turns_due
    their_deadline = due.due_at(theirs["game"]["id"])
    assert their_deadline is not None and their_deadline > time.time() + 2 * 86400
    assert not service.sweep(now=time.time() + 1).timeouts, "its turn waits for its deadline, days away"
    assert client.delete("/v1/bots/sleeper", headers=auth(app_key)).status_code == 204
    assert service.sweep(now=time.time() + 1).timeouts, "the turn it had begun is due at once"
    run_bots()
    events = client.get(f"/v1/games/{game_id}/events", headers=auth(human)).get_json()["events"]
    bot_moves = [e for e in events if e.get("seat") == 0 and e["type"] in ("tile_played", "tile_drawn", "passed")]
    assert bot_moves and all(e.get("auto") for e in bot_moves), "the server moved for it"
    assert due.due_at(theirs["game"]["id"]) == their_deadline, "a game at the other seat's turn keeps its deadline"

"""The ways to buy a rating, played through HTTP: each is refused, or leaves every leaderboard as it was (a
seat that resigns or lets the server play for it takes the loss alone; app players never move a bot's
rating; nobody seats another's bot or claims another app's player)."""

from __future__ import annotations

from typing import Any

from support import eventually
from workers import sweep as sweep_mod

FAST = {"target_score": 30}


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _board(client, variant: str = "draw", key: str | None = None) -> dict[str, dict[str, Any]]:  # type: ignore[no-untyped-def]
    query = "?app=me" if key else ""
    resp = client.get(f"/v1/ratings/{variant}{query}", headers=auth(key) if key else {})
    assert resp.status_code == 200, resp.get_json()
    return {r["name"]: r for r in resp.get_json()["ratings"]}


def _rated(client, key: str, seats: list[dict[str, Any]], **body: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    resp = client.post("/v1/games", json={"variant": "draw", "seats": seats, "rated": True, "rules": FAST, **body}, headers=auth(key))
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()  # type: ignore[no-any-return]


def test_nobody_rates_another_apps_bot(client, make_app, register_bot, stored_keys):
    owner, attacker = make_app(), make_app()
    register_bot("victim", key=owner.key)
    before = stored_keys()
    seats = [{"bot": "victim"}, {"bot": "greedy"}]
    for headers in ({}, auth(attacker.key)):
        resp = client.post("/v1/games", json={"variant": "draw", "seats": seats, "rated": True}, headers=headers)
        assert resp.status_code == 403, resp.get_json()
        partnered = [{"bot": "victim"}, {"name": "a", "player": "p1"}, {"bot": "greedy"}, {"name": "b", "player": "p2"}]
        body = {"variant": "draw", "seats": partnered, "rated": True, "rules": {"teams": "partners_opposite"}}
        assert client.post("/v1/games", json=body, headers=headers).status_code == 403
    arena = {"variant": "draw", "bots": ["victim", "greedy"], "deals": 1}
    assert client.post("/v1/arenas", json=arena).status_code == 401
    assert client.post("/v1/arenas", json=arena, headers=auth(attacker.key)).status_code == 403
    assert stored_keys() == before and _board(client) == {}


def test_players_that_resign_on_demand_never_move_a_bots_rating(client, app_key, register_bot, run_bots):
    register_bot("climber")
    for i in range(5):
        game = _rated(client, app_key, [{"bot": "climber"}, {"name": "x", "player": f"throwaway-{i}"}])
        resp = client.post(f"/v1/games/{game['game']['id']}/resign", json={"seat": 1}, headers=auth(app_key))
        assert resp.status_code == 200, resp.get_json()
    run_bots()
    assert _board(client) == {}, "the bots' leaderboard is as it was"
    players = _board(client, key=app_key)
    assert set(players) == {f"throwaway-{i}" for i in range(5)}
    assert all(p["games"] == 1 and p["mu"] < 25 for p in players.values()), "each resigning player lost"


def test_a_seat_that_resigns_takes_the_loss_alone(client, app_key, register_bot, run_bots):
    bot = register_bot("quitter")
    seats = [{"bot": "quitter"}, {"bot": "greedy"}, {"bot": "random"}, {"bot": "club"}]
    game = _rated(client, app_key, seats, rules={**FAST, "teams": "partners_opposite"})
    game_id = game["game"]["id"]
    resign = client.post(f"/v1/games/{game_id}/resign", headers=auth(bot["token"]))
    assert resign.status_code == 200, resign.get_json()
    assert resign.get_json()["winners"] == [1, 3]
    run_bots()
    board = _board(client)
    assert "random" not in board, "the resigning seat's partner is not rated for that game"
    assert board["quitter"]["mu"] < 25 and board["quitter"]["games"] == 1
    assert board["greedy"]["mu"] > 25 and board["club"]["mu"] > 25, "the other side is rated as winning"


def test_a_bot_the_server_played_for_is_rated_as_losing_alone(client, app_key, register_bot, run_bots, service):
    register_bot("sleeper")
    game = _rated(client, app_key, [{"bot": "sleeper"}, {"bot": "greedy"}], turn_timeout_s=0.02)
    game_id = game["game"]["id"]

    def rated() -> bool:
        run_bots()
        sweep_mod.sweep_once(service)  # the server plays the sleeping bot's turns at their deadlines
        return "sleeper" in _board(client)

    eventually(rated, "the game ended and was rated", 60, 0.02)
    view = client.get(f"/v1/games/{game_id}").get_json()
    assert view["status"] == "finished"
    events = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    assert any(e.get("auto") and e.get("seat") == 0 for e in events)
    board = _board(client)
    assert board["sleeper"]["mu"] < 25, "whoever won, a seat the server played for loses"
    assert board["greedy"]["mu"] > 25


def test_a_rated_seat_naming_a_player_is_unlisted_and_claimed_only_with_its_apps_key(client, make_app, stored_keys):
    app, other = make_app(), make_app()
    seats = [{"open": True, "player": "user-7"}, {"bot": "greedy"}]
    game = _rated(client, app.key, seats)
    game_id = game["game"]["id"]
    assert game_id not in [g["id"] for g in client.get("/v1/games?status=waiting").get_json()["games"]]
    for headers in ({}, auth(other.key)):
        resp = client.post(f"/v1/games/{game_id}/seats/0", json={"name": "impostor"}, headers=headers)
        assert resp.status_code == 403, resp.get_json()
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "waiting"
    claimed = client.post(f"/v1/games/{game_id}/seats/0", json={"name": "Seven"}, headers=auth(app.key))
    assert claimed.status_code == 201, claimed.get_json()


def test_who_takes_the_loss_alone() -> None:
    from api.service.ratings import forfeited

    doc: Any = {"turns": {"0": [7, 4], "1": [7, 0], "2": [6, 3]}}
    assert forfeited(doc) == {0}, "more than half of its turns played by the server; exactly half is not"
    assert forfeited({**doc, "resigned": 1}) == {0, 1}
    assert forfeited({}) == set()

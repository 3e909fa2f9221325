"""An app runs the games it owns (issue 31): it aborts them and resigns any of their seats with its key; another
app's key is a 403, no key a 401; a finished game cannot be aborted (409 naming its status), a seat the game
does not have is a 422; nothing changes on a refusal."""

from __future__ import annotations

from typing import Any

TWO = [{"name": "Ana", "player": "u-ana"}, {"name": "Bo"}]


def _game(client, key: str, seats: list[dict[str, Any]] = TWO) -> tuple[str, list[dict[str, Any]]]:  # type: ignore[no-untyped-def]
    resp = client.post("/v1/games", json={"variant": "draw", "seats": seats}, headers={"Authorization": f"Bearer {key}"})
    assert resp.status_code == 201
    return resp.get_json()["game"]["id"], resp.get_json()["tokens"]


def _problem(resp, status: int, slug: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    assert resp.status_code == status, resp.get_json()
    assert resp.content_type == "application/problem+json" and resp.get_json()["type"] == f"/problems/{slug}"
    return resp.get_json()  # type: ignore[no-any-return]


def test_the_owning_app_aborts_its_game(client, make_app, service) -> None:  # type: ignore[no-untyped-def]
    ours, theirs = make_app(), make_app()
    game_id, _ = _game(client, ours.key)
    url = f"/v1/games/{game_id}/abort"
    _problem(client.post(url), 401, "unauthorized")
    _problem(client.post(url, headers={"Authorization": f"Bearer {theirs.key}"}), 403, "forbidden")
    _problem(client.post(url, json={"x": 1}, headers={"Authorization": f"Bearer {ours.key}"}), 422, "invalid-request")
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "playing", "nothing changed"
    resp = client.post(url, json={}, headers={"Authorization": f"Bearer {ours.key}"})
    assert resp.status_code == 200
    view = resp.get_json()
    assert view["status"] == "aborted" and view["winners"] == [] and view["seat"] is None and "hand" not in view
    history = client.get(f"/v1/games/{game_id}/history").get_json()
    assert history["outcome"] == {"reason": "aborted", "winners": [], "team": None}
    again = _problem(client.post(url, headers={"Authorization": f"Bearer {ours.key}"}), 409, "game-over")
    assert again["game_status"] == "aborted"
    assert service.store.app_games.held(ours.app.id) == [], "the slot of the app's cap is free"


def test_a_waiting_game_aborted_leaves_the_lobby(client, make_app, service) -> None:  # type: ignore[no-untyped-def]
    ours = make_app()
    game_id, _ = _game(client, ours.key, [{"name": "Ana"}, {"open": True}])
    assert [g["id"] for g in client.get("/v1/games").get_json()["games"]] == [game_id]
    resp = client.post(f"/v1/games/{game_id}/abort", headers={"Authorization": f"Bearer {ours.key}"})
    assert resp.status_code == 200 and resp.get_json()["status"] == "aborted"
    assert client.get("/v1/games").get_json()["games"] == []
    claim = client.post(f"/v1/games/{game_id}/seats/1", json={"name": "Bo"})
    assert claim.status_code == 409


def test_the_owning_app_resigns_any_seat(client, make_app) -> None:  # type: ignore[no-untyped-def]
    ours, theirs = make_app(), make_app()
    game_id, tokens = _game(client, ours.key)
    url = f"/v1/games/{game_id}/resign"
    app_auth = {"Authorization": f"Bearer {ours.key}"}
    _problem(client.post(url, json={"seat": 1}, headers={"Authorization": f"Bearer {theirs.key}"}), 403, "forbidden")
    for body in ({"seat": 2}, {"seat": -1}, {}, {"seat": "1"}):
        bad = _problem(client.post(url, json=body, headers=app_auth), 422, "invalid-request")
        assert "seat" in str(bad["errors"])
    seat_auth = {"Authorization": f"Bearer {tokens[0]['token']}"}
    _problem(client.post(url, json={"seat": 1}, headers=seat_auth), 422, "invalid-request")
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "playing", "nothing changed"
    resp = client.post(url, json={"seat": 1}, headers=app_auth)
    assert resp.status_code == 200
    view = resp.get_json()
    assert view["status"] == "finished" and view["winners"] == [0] and view["seat"] is None
    _problem(client.post(url, json={"seat": 0}, headers=app_auth), 409, "game-over")


def test_a_seat_token_still_resigns_its_own_seat_with_no_body(client, make_app) -> None:  # type: ignore[no-untyped-def]
    game_id, tokens = _game(client, make_app().key)
    resp = client.post(f"/v1/games/{game_id}/resign", headers={"Authorization": f"Bearer {tokens[1]['token']}"})
    assert resp.status_code == 200 and resp.get_json()["winners"] == [0] and resp.get_json()["seat"] == 1
    _problem(client.post(f"/v1/games/{game_id}/resign"), 401, "unauthorized")


def test_the_games_waiting_for_a_player_soonest_deadline_first(client, make_app) -> None:  # type: ignore[no-untyped-def]
    ours, theirs = make_app(), make_app()
    auth = {"Authorization": f"Bearer {ours.key}"}
    mine: dict[str, float | None] = {}
    for timeout in (None, 7200, None, 3600, 86400):
        seats = [{"name": "Ana", "player": "u-ana"}, {"name": "Bo", "player": "u-bo"}]
        resp = client.post("/v1/games", json={"variant": "draw", "seats": seats, "turn_timeout_s": timeout}, headers=auth)
        view = resp.get_json()["game"]
        if view["turn"] == 0:  # Ana's turn
            mine[view["id"]] = view["deadline"]
    _game(client, ours.key, [{"name": "Ana", "player": "u-ana"}, {"open": True}])  # waiting: nobody's turn
    _game(client, theirs.key, [{"name": "Ana", "player": "u-ana"}, {"name": "Bo"}])  # another app's
    timed = sorted((d, g) for g, d in mine.items() if d is not None)
    untimed = [g for g, d in mine.items() if d is None]  # created oldest first
    expected = [g for _, g in timed] + untimed
    seen: list[str] = []
    url: str | None = "/v1/games?owner=me&player=u-ana&to_move=true&limit=2"
    while url:
        page = client.get(url, headers=auth)
        assert page.status_code == 200, page.get_json()
        body = page.get_json()
        assert all(g["turn"] == 0 and g["status"] == "playing" for g in body["games"]) and len(body["games"]) <= 2
        seen += [g["id"] for g in body["games"]]
        url = body["next"]
    assert seen == expected
    bob = client.get("/v1/games?owner=me&player=u-bo&to_move=true", headers=auth).get_json()["games"]
    assert not set(g["id"] for g in bob) & set(expected)
    for bad in ("to_move=true", "owner=me&to_move=true", "owner=me&player=u-ana&cursor=abc",
                "owner=me&player=u-ana&to_move=true&cursor=!!", "owner=me&player=u-ana&to_move=true&status=playing"):  # fmt: skip
        _problem(client.get(f"/v1/games?{bad}", headers=auth), 422, "invalid-request")
    _problem(client.get("/v1/games?owner=me&player=u-ana&to_move=true"), 401, "unauthorized")

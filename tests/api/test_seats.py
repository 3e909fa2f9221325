"""Open seats, the lobby, resigning."""

from __future__ import annotations

import threading

import pytest
from conftest import Player

pytestmark = pytest.mark.cluster  # on the single Redis and on a Redis Cluster


def test_concurrent_claims_of_one_seat_exactly_one_wins(app, create_game, run_bots):
    data, players, spectator = create_game([{"name": "Ana"}, {"open": True}, {"bot": "greedy"}])
    game_id = data["game"]["id"]
    assert data["game"]["status"] == "waiting" and data["game"]["legal_moves"] == []
    assert [s["kind"] for s in data["game"]["seats"]] == ["human", "open", "bot"]
    # Nobody moves while a seat is open.
    resp = players[0].move({"type": "draw"})
    assert resp.status_code == 409 and resp.get_json()["type"] == "/problems/not-started"
    barrier = threading.Barrier(12)
    answers: list = []

    def claim(i: int) -> None:
        client = app.test_client()
        barrier.wait()
        resp = client.post(f"/v1/games/{game_id}/seats/1", json={"name": f"claimant{i}"})
        answers.append((resp.status_code, resp.get_json()))

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    codes = sorted(code for code, _ in answers)
    assert codes == [201] + [409] * 11, codes
    assert all(body["type"] == "/problems/seat-taken" for code, body in answers if code == 409)
    winner = next(body for code, body in answers if code == 201)
    assert winner["seat"] == 1 and winner["game"]["seat"] == 1 and winner["game"]["status"] == "playing"
    view = spectator.view().get_json()
    assert view["status"] == "playing" and view["seats"][1]["name"] == winner["game"]["seats"][1]["name"]
    bo = Player(app.test_client(), game_id, winner["token"])
    assert bo.view().get_json()["hand"]
    types = [e["type"] for e in app.test_client().get(f"/v1/games/{game_id}/events?after=0").get_json()["events"]]
    assert types[:2] == ["seat_claimed", "game_started"]
    # Other seats: taken, bot, out of range.
    client = app.test_client()
    assert client.post(f"/v1/games/{game_id}/seats/0", json={"name": "X"}).status_code == 409
    assert client.post(f"/v1/games/{game_id}/seats/2", json={"name": "X"}).status_code == 409
    assert client.post(f"/v1/games/{game_id}/seats/7", json={"name": "X"}).status_code == 404
    assert client.post(f"/v1/games/{game_id}/seats/1", json={"name": ""}).status_code == 422
    run_bots()  # the game started: the computer player moves when it is its turn


def test_lobby_lists_open_listed_games_newest_first_with_pages(client, create_game):
    open_ids = []
    for i in range(3):
        data, _, _ = create_game([{"name": f"A{i}"}, {"open": True}])
        open_ids.append(data["game"]["id"])
    hidden, _, _ = create_game([{"name": "Secret"}, {"open": True}], unlisted=True)
    full, _, _ = create_game([{"name": "Ana"}, {"name": "Bo"}])
    page = client.get("/v1/games?status=waiting&limit=2").get_json()
    assert [g["id"] for g in page["games"]] == open_ids[::-1][:2]
    assert page["games"][0]["open_seats"] == [1] and page["games"][0]["status"] == "waiting"
    page2 = client.get(page["next"]).get_json()
    assert [g["id"] for g in page2["games"]] == [open_ids[0]] and page2["next"] is None
    listed = {g["id"] for g in client.get("/v1/games?status=waiting&limit=100").get_json()["games"]}
    assert hidden["game"]["id"] not in listed and full["game"]["id"] not in listed
    # A filled game leaves the lobby.
    assert client.post(f"/v1/games/{open_ids[2]}/seats/1", json={"name": "Bo"}).status_code == 201
    listed = [g["id"] for g in client.get("/v1/games").get_json()["games"]]
    assert listed == open_ids[:2][::-1]
    assert client.get("/v1/games?status=playing").status_code == 422


def test_resign_ends_the_game_and_the_other_side_wins(client, create_game):
    data, players, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}])
    game_id = data["game"]["id"]
    assert client.post(f"/v1/games/{game_id}/resign").status_code == 401
    resp = players[0].client.post(f"/v1/games/{game_id}/resign", headers=players[0].headers)
    assert resp.status_code == 200, resp.get_json()
    view = resp.get_json()
    assert view["status"] == "finished" and view["winners"] == [1] and view["seat"] == 0
    events = client.get(f"/v1/games/{game_id}/events?after=0").get_json()
    assert [e["type"] for e in events["events"]] == ["resigned", "game_ended"] and events["ended"]
    assert events["events"][1]["reason"] == "resigned"
    again = players[1].client.post(f"/v1/games/{game_id}/resign", headers=players[1].headers)
    assert again.status_code == 409 and again.get_json()["type"] == "/problems/game-over"


def test_teams_resign_gives_the_win_to_the_other_team(client, create_game):
    data, players, _ = create_game(
        [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}], rules={"teams": "partners_opposite"}
    )
    resp = players[1].client.post(f"/v1/games/{data['game']['id']}/resign", headers=players[1].headers)
    assert resp.status_code == 200
    assert resp.get_json()["winners"] == [0, 2]


def test_claiming_and_resigning_honour_if_match(client, create_game):
    """On a stale version: 412 with the current one, and nothing changed; a malformed one: 422."""
    data, players, spectator = create_game([{"name": "Ana"}, {"open": True}])
    game_id, version = data["game"]["id"], data["game"]["version"]
    url = f"/v1/games/{game_id}/seats/1"
    stale = client.post(url, json={"name": "Bo"}, headers={"If-Match": f'"{version + 5}"'})
    assert stale.status_code == 412 and stale.get_json()["current_version"] == version
    assert client.post(url, json={"name": "Bo"}, headers={"If-Match": "garbage"}).status_code == 422
    assert spectator.view().get_json()["seats"][1]["kind"] == "open"
    claimed = client.post(url, json={"name": "Bo"}, headers={"If-Match": f'"{version}"'})
    assert claimed.status_code == 201, claimed.get_json()

    resign = f"/v1/games/{game_id}/resign"
    now = spectator.view().get_json()["version"]
    for header in (f'"{now - 1}"', "garbage"):
        resp = client.post(resign, headers={**players[0].headers, "If-Match": header})
        assert resp.status_code == (412 if header != "garbage" else 422), resp.get_json()
    assert spectator.view().get_json()["status"] == "playing"
    resp = client.post(resign, headers={**players[0].headers, "If-Match": f'"{now}"'})
    assert resp.status_code == 200 and resp.get_json()["status"] == "finished"


def test_the_operations_that_take_no_body_refuse_one_with_members(client, create_game):
    """Resigning, a stream ticket and cancelling a simulation take no body: none, or `{}`; anything else is a 422
    and changes nothing (an unknown member is refused everywhere else too)."""
    data, players, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}])
    game_id = data["game"]["id"]
    sim = client.post("/v1/simulations", json={"variant": "draw", "strategies": ["random", "random"], "games": 2}).get_json()
    for url, headers in (
        (f"/v1/games/{game_id}/resign", players[0].headers),
        (f"/v1/games/{game_id}/events/ticket", players[0].headers),
        (f"/v1/simulations/{sim['id']}/cancel", {"Authorization": f"Bearer {sim['token']}"}),
    ):
        for body in ('{"zz": 1}', "[1]", "null"):
            resp = client.post(url, data=body, content_type="application/json", headers=headers)
            assert resp.status_code == 422 and resp.mimetype == "application/problem+json", (url, body, resp.get_json())
    assert spectator.view().get_json()["status"] == "playing"
    assert client.post(f"/v1/games/{game_id}/events/ticket", json={}, headers=players[0].headers).status_code == 201
    assert client.post(f"/v1/games/{game_id}/resign", json={}, headers=players[0].headers).status_code == 200


def test_while_a_game_waits_for_seats_nobody_sees_a_tile(client, create_game):
    """A creator who saw its hand could resign the deals it dislikes and leave only good ones to whoever joins:
    until the last seat is taken no view, event or history shows a seat any tile; then its seat sees its own."""
    rules = {"starting_rule": "lot"}  # the opener may lead any tile: its first legal moves would be its hand
    data, players, spectator = create_game([{"name": "Shark"}, {"open": True}], rules=rules)
    game_id, shark = data["game"]["id"], players[0]
    assert data["game"]["hand"] == [] and data["game"]["legal_moves"] == []
    seen = [
        shark.view().get_json(),
        client.get(f"/v1/games/{game_id}/events?after=-1", headers=shark.headers).get_json(),
        client.get(f"/v1/games/{game_id}/history", headers=shark.headers).get_json(),
    ]
    text = str(seen)
    assert seen[0]["hand"] == [] and "'lead'" not in text and "legal_moves': [{" not in text, text
    assert not any(e.get("legal_moves") for e in seen[1]["events"]), seen[1]
    claimed = client.post(f"/v1/games/{game_id}/seats/1", json={"name": "Bo"})
    assert claimed.status_code == 201 and len(claimed.get_json()["game"]["hand"]) == 7
    assert len(shark.view().get_json()["hand"]) == 7
    events = client.get(f"/v1/games/{game_id}/events?after=-1", headers=shark.headers).get_json()["events"]
    turn = events[-1]
    assert turn["type"] == "turn_started" and (turn["seat"] != 0 or turn["legal_moves"]), turn

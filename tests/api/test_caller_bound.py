"""What one client may do to others: Idempotency-Key answers bound to the caller, games per client capped,
client-seeded games kept out of the lobby, and seats of a listed game capped per client."""

from __future__ import annotations

from dataclasses import replace

from api.app import create_app
from support import assert_problem

BODY = {"variant": "draw", "seats": [{"name": "Ana", "webhook": "http://127.0.0.1:9/hook"}, {"bot": "greedy"}]}
ALICE = {"REMOTE_ADDR": "10.0.0.1"}
MALLORY = {"REMOTE_ADDR": "10.0.0.66"}


def test_another_caller_repeating_a_key_gets_a_game_of_its_own_never_the_first_callers_secrets(client):
    first = client.post("/v1/games", json=BODY, headers={"Idempotency-Key": "k-1"}, environ_base=ALICE)
    assert first.status_code == 201
    again = client.post("/v1/games", json=BODY, headers={"Idempotency-Key": "k-1"}, environ_base=ALICE)
    assert again.get_json() == first.get_json()  # the same caller's retry: the first answer

    stolen = client.post("/v1/games", json=BODY, headers={"Idempotency-Key": "k-1"}, environ_base=MALLORY)
    assert stolen.status_code == 201
    mine, theirs = first.get_json(), stolen.get_json()
    assert theirs["game"]["id"] != mine["game"]["id"]
    assert theirs["tokens"][0]["token"] != mine["tokens"][0]["token"]
    assert theirs["tokens"][0]["webhook_secret"] != mine["tokens"][0]["webhook_secret"]
    assert mine["tokens"][0]["token"] not in stolen.get_data(as_text=True)


def test_a_different_body_from_another_caller_reveals_nothing_about_the_key(client):
    client.post("/v1/games", json=BODY, headers={"Idempotency-Key": "k-2"}, environ_base=ALICE)
    other = {**BODY, "seed": "s"}
    probe = client.post("/v1/games", json=other, headers={"Idempotency-Key": "k-2"}, environ_base=MALLORY)
    fresh = client.post("/v1/games", json=other, headers={"Idempotency-Key": "k-unused"}, environ_base=MALLORY)
    assert probe.status_code == fresh.status_code == 201  # as for a key nobody used


def test_the_same_address_with_another_bearer_token_is_another_caller(client):
    first = client.post("/v1/games", json=BODY, headers={"Idempotency-Key": "k-3", "Authorization": "Bearer a"})
    other = client.post("/v1/games", json=BODY, headers={"Idempotency-Key": "k-3", "Authorization": "Bearer b"})
    assert first.status_code == other.status_code == 201
    assert first.get_json()["game"]["id"] != other.get_json()["game"]["id"]


def test_games_waiting_or_playing_are_capped_per_client_and_an_ended_game_frees_its_slot(settings):
    app = create_app({"DOMINO": replace(settings, games_per_client=2, capacity_retry_after=7), "TESTING": True})
    client = app.test_client()
    body = {"variant": "draw", "seats": [{"name": "Ana"}, {"open": True}]}
    games = [client.post("/v1/games", json=body, environ_base=ALICE) for _ in range(2)]
    assert all(g.status_code == 201 for g in games)
    refused = client.post("/v1/games", json=body, environ_base=ALICE)
    assert_problem(refused, 429, "too-many-games")
    assert refused.headers["Retry-After"] == "7"
    assert client.post("/v1/games", json=body, environ_base=MALLORY).status_code == 201  # another client

    # Ending one of the two (its creator resigns after the seat is claimed) frees a slot.
    game = games[0].get_json()
    claimed = client.post(f"/v1/games/{game['game']['id']}/seats/1", json={"name": "Bo"}, environ_base=MALLORY)
    assert claimed.status_code == 201
    token = game["tokens"][0]["token"]
    resigned = client.post(f"/v1/games/{game['game']['id']}/resign", headers={"Authorization": f"Bearer {token}"})
    assert resigned.get_json()["status"] == "finished"
    assert client.post("/v1/games", json=body, environ_base=ALICE).status_code == 201


def test_finished_games_are_capped_per_client_until_the_archive_takes_them(settings, service, run_archive):
    s = replace(settings, games_per_client=0, finished_games_per_client=2, capacity_retry_after=7)
    client = create_app({"DOMINO": s, "TESTING": True}).test_client()
    body = {"variant": "draw", "seats": [{"name": "Ana"}, {"name": "Bo"}]}

    def finished() -> str:
        game = client.post("/v1/games", json=body, environ_base=ALICE).get_json()
        auth = {"Authorization": f"Bearer {game['tokens'][0]['token']}"}
        assert client.post(f"/v1/games/{game['game']['id']}/resign", headers=auth).get_json()["status"] == "finished"
        return str(game["game"]["id"])

    ended = [finished(), finished()]
    refused = client.post("/v1/games", json=body, environ_base=ALICE)
    assert_problem(refused, 429, "too-many-games")
    assert "archive" in refused.get_json()["detail"] and refused.headers["Retry-After"] == "7"
    assert client.post("/v1/games", json=body, environ_base=MALLORY).status_code == 201  # another client

    service.archiving.enqueue()  # as the sweep does for the games due
    assert run_archive()  # the archive takes them: they no longer count
    for game_id in ended:
        assert client.get(f"/v1/games/{game_id}").get_json()["archived"] is True
    assert client.post("/v1/games", json=body, environ_base=ALICE).status_code == 201


def test_a_client_seeded_game_is_never_listed_and_claiming_its_seat_says_so(client):
    seeded = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"open": True}], "seed": "12345"})
    plain = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Cy"}, {"open": True}]})
    lobby = [g["id"] for g in client.get("/v1/games?status=waiting").get_json()["games"]]
    assert plain.get_json()["game"]["id"] in lobby
    assert seeded.get_json()["game"]["id"] not in lobby

    seeded_id = seeded.get_json()["game"]["id"]
    claim = client.post(f"/v1/games/{seeded_id}/seats/1", json={"name": "Bo"}, environ_base=MALLORY)
    assert claim.status_code == 201
    assert claim.get_json()["client_seeded"] is True and claim.get_json()["game"]["client_seeded"] is True
    plain_claim = client.post(f"/v1/games/{plain.get_json()['game']['id']}/seats/1", json={"name": "Bo"})
    assert plain_claim.get_json()["client_seeded"] is False


def test_one_client_cannot_take_every_open_seat_of_a_listed_game(client):
    body = {"variant": "draw", "seats": [{"name": "Ana"}, {"open": True}, {"open": True}]}
    game_id = client.post("/v1/games", json=body).get_json()["game"]["id"]
    assert client.post(f"/v1/games/{game_id}/seats/1", json={"name": "M1"}, environ_base=MALLORY).status_code == 201
    second = client.post(f"/v1/games/{game_id}/seats/2", json={"name": "M2"}, environ_base=MALLORY)
    problem = assert_problem(second, 409, "seat-limit")
    assert "seats" in problem["detail"]
    view = client.get(f"/v1/games/{game_id}").get_json()
    assert view["status"] == "waiting" and view["seats"][2]["kind"] == "open"  # nothing changed
    assert client.post(f"/v1/games/{game_id}/seats/2", json={"name": "Bo"}, environ_base=ALICE).status_code == 201


def test_in_an_unlisted_game_the_creator_shares_seats_as_it_likes(client):
    body = {"variant": "draw", "seats": [{"name": "Ana"}, {"open": True}, {"open": True}], "unlisted": True}
    game_id = client.post("/v1/games", json=body).get_json()["game"]["id"]
    assert client.post(f"/v1/games/{game_id}/seats/1", json={"name": "B"}).status_code == 201
    assert client.post(f"/v1/games/{game_id}/seats/2", json={"name": "C"}).status_code == 201

"""Matchmaking tickets through HTTP: matched, cancelled, expired, filled with computer players; bad input."""

from __future__ import annotations

from typing import Any

import pytest
from tickets_support import TICKETS, read, seek



@pytest.mark.cluster
def test_two_compatible_tickets_make_one_game_and_each_reads_its_seat(client, run_bots) -> None:
    first = seek(client, {"variant": "draw", "players": 2, "name": "Ada"}, address="127.0.0.2")
    assert first.status_code == 201, first.json
    assert first.json["ticket"]["status"] == "waiting" and first.json["token"].startswith("dtk_")
    run_bots()
    assert read(client, first.json).json["status"] == "waiting"
    second = seek(client, {"variant": "draw", "players": 2, "rules": {"target_score": 100}}, address="127.0.0.3")
    run_bots()
    a, b = read(client, first.json).json, read(client, second.json).json
    assert a["status"] == b["status"] == "matched"
    assert a["game_id"] == b["game_id"] and {a["seat"], b["seat"]} == {0, 1}
    view = client.get(f"/v1/games/{a['game_id']}", headers={"Authorization": f"Bearer {a['token']}"}).json
    assert view["seat"] == a["seat"] and view["seats"][a["seat"]]["name"] == "Ada"
    assert client.get(f"/v1/games/{b['game_id']}", headers={"Authorization": f"Bearer {b['token']}"}).json["seat"] == b["seat"]


def test_tickets_for_other_rules_or_sizes_wait_apart(client, run_bots) -> None:
    one = seek(client, {"variant": "draw", "players": 2}, address="127.0.0.2").json
    other = seek(client, {"variant": "draw", "players": 2, "rules": {"target_score": 50}}, address="127.0.0.3").json
    bigger = seek(client, {"variant": "draw", "players": 3}, address="127.0.0.4").json
    run_bots()
    assert {read(client, t).json["status"] for t in (one, other, bigger)} == {"waiting"}


def test_one_player_is_never_matched_with_itself_but_one_address_may_seat_two_people(client, run_bots, app_key) -> None:
    key = {"Authorization": f"Bearer {app_key}"}
    first = seek(client, {"variant": "draw", "players": 2, "player": "u1"}, headers=key).json
    second = seek(client, {"variant": "draw", "players": 2, "player": "u1"}, headers=key).json
    run_bots()
    assert read(client, first).json["status"] == read(client, second).json["status"] == "waiting"
    one = seek(client, {"variant": "draw", "players": 3}).json
    two = seek(client, {"variant": "draw", "players": 3}).json  # the same address: two people behind one router
    three = seek(client, {"variant": "draw", "players": 3}, address="127.0.0.7").json
    run_bots()
    assert {read(client, t).json["status"] for t in (one, two, three)} == {"matched"}


def test_a_cancelled_ticket_is_never_matched_and_a_matched_one_cannot_be_cancelled(client, run_bots) -> None:
    gone = seek(client, {"variant": "draw", "players": 2}, address="127.0.0.2").json
    cancelled = client.delete(f"{TICKETS}/{gone['ticket']['id']}", headers={"Authorization": f"Bearer {gone['token']}"})
    assert cancelled.status_code == 200 and cancelled.json["status"] == "cancelled"
    a = seek(client, {"variant": "draw", "players": 2}, address="127.0.0.3").json
    b = seek(client, {"variant": "draw", "players": 2}, address="127.0.0.4").json
    run_bots()
    assert read(client, gone).json["status"] == "cancelled"
    assert read(client, a).json["status"] == "matched"
    late = client.delete(f"{TICKETS}/{b['ticket']['id']}", headers={"Authorization": f"Bearer {b['token']}"})
    assert late.status_code == 409 and late.json["type"].endswith("/offer-closed") and late.json["ticket_status"] == "matched"


@pytest.mark.cluster
def test_the_table_is_filled_with_computer_players_after_the_wait(client, run_bots, service) -> None:
    alone = seek(client, {"variant": "draw", "players": 3, "bots_after_s": 0, "bot": "random"}).json
    run_bots()
    ticket = read(client, alone).json
    assert ticket["status"] == "matched", ticket
    view = client.get(f"/v1/games/{ticket['game_id']}", headers={"Authorization": f"Bearer {ticket['token']}"}).json
    assert [s["kind"] for s in view["seats"]].count("bot") == 2
    assert {s["name"] for s in view["seats"] if s["kind"] == "bot"} == {"random"}


def test_a_long_poll_returns_when_the_ticket_is_matched(client, service, run_bots) -> None:
    first = seek(client, {"variant": "draw", "players": 2}, address="127.0.0.2").json
    seek(client, {"variant": "draw", "players": 2}, address="127.0.0.3")
    run_bots()
    assert read(client, first, wait=5).json["status"] == "matched"


def test_an_unread_ticket_expires(client, service, run_bots) -> None:
    ticket = seek(client, {"variant": "draw", "players": 2}).json
    service.matchmaking.sweep(now=10**10)
    assert read(client, ticket).json["status"] == "expired"


def test_a_holder_has_at_most_three_open_tickets(client) -> None:
    for players in (2, 3, 4):
        assert seek(client, {"variant": "draw", "players": players}).status_code == 201
    refused = seek(client, {"variant": "draw", "players": 2})
    assert refused.status_code == 429 and refused.json["type"].endswith("/too-many-tickets") and refused.headers["Retry-After"]


def test_a_ticket_token_reads_only_its_own_ticket(client) -> None:
    one = seek(client, {"variant": "draw", "players": 2}).json
    two = seek(client, {"variant": "draw", "players": 3}).json
    crossed = client.get(f"{TICKETS}/{one['ticket']['id']}", headers={"Authorization": f"Bearer {two['token']}"})
    assert crossed.status_code == 401 and crossed.headers["Content-Type"] == "application/problem+json"
    assert client.delete(f"{TICKETS}/{one['ticket']['id']}").status_code == 401  # no token
    assert client.get(f"{TICKETS}/t3k7mzq2c4x9b2rt", headers={"Authorization": f"Bearer {one['token']}"}).status_code == 404


@pytest.mark.parametrize(
    "body, field",
    [
        ({"variant": "nope", "players": 2}, "variant"),
        ({"variant": "draw", "players": 2, "rating_range": [0, 10]}, "rating_range"),
        ({"variant": "draw", "players": 2, "rated": True}, "rated"),
        ({"variant": "draw", "players": 2, "party": "new"}, "party"),
        ({"variant": "draw", "players": 2, "bot": "greedy"}, "bot"),
        ({"variant": "draw", "players": 2, "player": "u1"}, "player"),
        ({"variant": "draw", "players": 2, "turn_timeout_s": 60, "clock": {"initial_s": 60}}, "clock"),
    ],
)
def test_bad_tickets_are_422_naming_the_field(client, stored_keys, body: dict[str, Any], field: str) -> None:
    before = stored_keys()
    answer = seek(client, body)
    assert answer.status_code == 422, answer.json
    assert field in str(answer.json["errors"]), answer.json
    assert stored_keys() == before

"""Challenges (issue 34, item 3): one player or bot offers a game to another, who accepts or declines."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from support import assert_problem, blocked_clients, eventually

CHALLENGES = "/v1/challenges"


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def challenge(client, body: dict[str, Any], headers: dict[str, str] | None = None, address: str = "127.0.0.1") -> Any:  # type: ignore[no-untyped-def]
    return client.post(CHALLENGES, json=body, headers=headers or {}, environ_base={"REMOTE_ADDR": address})


def notices(client, bot: dict[str, Any]) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    return client.get("/v1/bot/events", headers=auth(bot["token"])).get_json()["events"]  # type: ignore[no-any-return]


@pytest.mark.cluster
def test_a_bot_sees_the_challenge_accepts_it_and_both_read_their_seats(client, register_bot) -> None:
    bot = register_bot("taker")
    made = challenge(client, {"to": {"bot": "taker"}, "variant": "draw", "name": "Ada"})
    assert made.status_code == 201, made.get_json()
    answer = made.get_json()
    open_ = answer["challenge"]
    assert open_["status"] == "open" and open_["to"] == {"bot": "taker"} and open_["from"]["kind"] == "anonymous"
    assert answer["token"].startswith("dch_") and made.headers["Location"] == f"{CHALLENGES}/{open_['id']}"
    seen = [n for n in notices(client, bot) if n["type"] == "challenge"]
    assert [n["challenge_id"] for n in seen] == [open_["id"]] and seen[0]["challenge"]["status"] == "open"
    accepted = client.post(f"{CHALLENGES}/{open_['id']}/accept", headers=auth(bot["token"]))
    assert accepted.status_code == 200, accepted.get_json()
    mine = accepted.get_json()
    assert mine["status"] == "accepted" and mine["seat"] == 1 and mine["token"] is None and mine["game_id"]
    theirs = client.get(f"{CHALLENGES}/{open_['id']}", headers=auth(answer["token"])).get_json()
    assert theirs["game_id"] == mine["game_id"] and theirs["seat"] == 0 and theirs["token"]
    view = client.get(f"/v1/games/{mine['game_id']}", headers=auth(theirs["token"])).get_json()
    assert view["seat"] == 0 and [s["kind"] for s in view["seats"]] == ["human", "registered"]
    assert view["seats"][0]["name"] == "Ada" and view["seats"][1]["name"] == "taker"
    again = client.post(f"{CHALLENGES}/{open_['id']}/accept", headers=auth(bot["token"]))
    assert assert_problem(again, 409, "offer-closed")["challenge_status"] == "accepted"


def test_a_declined_challenge_makes_no_game_and_stays_declined(client, register_bot) -> None:
    bot = register_bot("decliner")
    answer = challenge(client, {"to": {"bot": "decliner"}, "variant": "draw"}).get_json()
    url = f"{CHALLENGES}/{answer['challenge']['id']}"
    declined = client.post(f"{url}/decline", headers=auth(bot["token"]))
    assert declined.status_code == 200 and declined.get_json()["status"] == "declined"
    assert_problem(client.post(f"{url}/accept", headers=auth(bot["token"])), 409, "offer-closed")
    assert_problem(client.delete(url, headers=auth(answer["token"])), 409, "offer-closed")
    read = client.get(url, headers=auth(answer["token"])).get_json()
    assert read["status"] == "declined" and read["game_id"] is None


def test_only_the_addressee_answers_and_only_the_challenger_cancels(client, register_bot) -> None:
    bot = register_bot("addressee")
    other = register_bot("bystander")
    answer = challenge(client, {"to": {"bot": "addressee"}, "variant": "draw"}).get_json()
    url = f"{CHALLENGES}/{answer['challenge']['id']}"
    assert_problem(client.post(f"{url}/accept", headers=auth(answer["token"])), 403, "forbidden")
    assert_problem(client.post(f"{url}/accept", headers=auth(other["token"])), 404, "not-found")
    assert_problem(client.post(f"{url}/accept"), 401, "unauthorized")
    assert_problem(client.delete(url, headers=auth(bot["token"])), 403, "forbidden")
    cancelled = client.delete(url, headers=auth(answer["token"]))
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"
    assert_problem(client.post(f"{url}/accept", headers=auth(bot["token"])), 409, "offer-closed")


@pytest.mark.cluster
def test_an_accept_and_a_cancel_racing_end_in_exactly_one_state(client, register_bot) -> None:
    bot = register_bot("racer")
    for _ in range(8):
        answer = challenge(client, {"to": {"bot": "racer"}, "variant": "draw"}).get_json()
        url = f"{CHALLENGES}/{answer['challenge']['id']}"
        start = threading.Barrier(2)
        codes: dict[str, int] = {}

        def call(what: str, method: str, path: str, token: str, start: threading.Barrier = start, codes: dict[str, int] = codes) -> None:
            start.wait()  # both requests leave together
            codes[what] = client.open(path, method=method, headers=auth(token)).status_code

        threads = [
            threading.Thread(target=call, args=("accept", "POST", f"{url}/accept", bot["token"])),
            threading.Thread(target=call, args=("cancel", "DELETE", url, answer["token"])),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(codes.values()) == [200, 409], codes
        final = client.get(url, headers=auth(answer["token"])).get_json()
        assert final["status"] == ("accepted" if codes["accept"] == 200 else "cancelled")
        assert (final["game_id"] is not None) == (codes["accept"] == 200)


def test_an_expired_challenge_is_reported_expired_and_cannot_be_accepted(client, register_bot, monkeypatch) -> None:
    from api.service.matchmaking import challenges

    bot = register_bot("sleeper")
    answer = challenge(client, {"to": {"bot": "sleeper"}, "variant": "draw", "expires_in_s": 1}).get_json()
    url = f"{CHALLENGES}/{answer['challenge']['id']}"
    later = challenges.time.time() + 2  # the clock passes the expiry: no waiting
    monkeypatch.setattr(challenges.time, "time", lambda: later)
    assert client.get(url, headers=auth(answer["token"])).get_json()["status"] == "expired"
    late = client.post(f"{url}/accept", headers=auth(bot["token"]))
    assert assert_problem(late, 409, "offer-closed")["challenge_status"] == "expired"
    assert client.get(url, headers=auth(bot["token"])).get_json()["status"] == "expired"


def test_a_challenge_key_expires_with_a_ttl(client, register_bot, service) -> None:
    register_bot("ttl")
    answer = challenge(client, {"to": {"bot": "ttl"}, "variant": "draw", "expires_in_s": 5}).get_json()
    key = service.store.challenges.key(answer["challenge"]["id"])
    assert 0 < service.store.queue_redis.ttl(key) <= 5 + 3600


def test_bad_challenges_are_clear_problems_and_change_nothing(client, register_bot, stored_keys) -> None:
    bot = register_bot("picky")
    before = stored_keys()
    assert_problem(challenge(client, {"to": {"bot": "nobody-here"}, "variant": "draw"}), 404, "not-found")
    assert_problem(challenge(client, {"to": {"bot": "picky"}, "variant": "draw"}, headers=auth(bot["token"])), 422, "invalid-request")
    assert_problem(challenge(client, {"to": {"player": "u1"}, "variant": "draw"}), 422, "invalid-request")
    assert_problem(challenge(client, {"to": {"bot": "picky"}, "variant": "draw", "rated": True}), 422, "invalid-request")
    assert_problem(challenge(client, {"to": {"bot": "picky", "player": "u1"}, "variant": "draw"}), 422, "invalid-request")
    assert_problem(challenge(client, {"to": {"bot": "picky"}, "variant": "block"}), 422, "invalid-request")
    assert_problem(client.get(f"{CHALLENGES}/c3k7mzq2c4x9b2rt", headers=auth(bot["token"])), 404, "not-found")
    assert stored_keys() - before == set()


def test_too_many_open_challenges_are_429_with_retry_after(client, register_bot) -> None:
    register_bot("popular")
    for _ in range(5):
        assert challenge(client, {"to": {"bot": "popular"}, "variant": "draw"}).status_code == 201
    refused = challenge(client, {"to": {"bot": "popular"}, "variant": "draw"})
    assert_problem(refused, 429, "too-many-challenges")
    assert int(refused.headers["Retry-After"]) > 0
    assert challenge(client, {"to": {"bot": "popular"}, "variant": "draw"}, address="10.0.0.2").status_code == 201


def test_a_bot_sets_its_limits_with_its_owners_key_or_its_own_token(client, register_bot, app_key) -> None:
    bot = register_bot("limited")
    other = register_bot("neighbour")
    owner = client.patch("/v1/bots/limited", json={"max_games": 3}, headers=auth(app_key))
    assert owner.status_code == 200 and owner.get_json()["max_games"] == 3
    itself = client.patch("/v1/bots/limited", json={"min_turn_timeout_s": 5, "max_games": None}, headers=auth(bot["token"]))
    assert itself.status_code == 200, itself.get_json()
    assert (itself.get_json()["max_games"], itself.get_json()["min_turn_timeout_s"]) == (None, 5)
    assert client.get("/v1/bots/limited").get_json()["min_turn_timeout_s"] == 5
    assert_problem(client.patch("/v1/bots/limited", json={"description": "mine"}, headers=auth(bot["token"])), 403, "forbidden")
    assert_problem(client.patch("/v1/bots/limited", json={"max_games": 1}, headers=auth(other["token"])), 403, "forbidden")
    assert_problem(client.patch("/v1/bots/limited", json={"max_games": 1}), 401, "unauthorized")
    assert_problem(client.patch("/v1/bots/limited", json={"max_games": 0}, headers=auth(app_key)), 422, "invalid-request")


def test_a_challenge_with_less_time_per_move_than_the_bot_accepts_is_422(client, register_bot, stored_keys) -> None:
    bot = register_bot("patient")
    client.patch("/v1/bots/patient", json={"min_turn_timeout_s": 20}, headers=auth(bot["token"]))
    before = stored_keys()
    short = challenge(client, {"to": {"bot": "patient"}, "variant": "draw", "turn_timeout_s": 2})
    assert assert_problem(short, 422, "deadline-too-short")["min_turn_timeout_s"] == 20
    seeking = {"variant": "draw", "players": 2, "clock": {"initial_s": 10, "increment_s": 1}}  # a bank of 10 s
    assert_problem(client.post("/v1/matchmaking/tickets", json=seeking, headers=auth(bot["token"])), 422, "deadline-too-short")
    assert stored_keys() - before == set()
    assert challenge(client, {"to": {"bot": "patient"}, "variant": "draw", "turn_timeout_s": 20}).status_code == 201
    assert challenge(client, {"to": {"bot": "patient"}, "variant": "draw"}).status_code == 201  # a bot's turns: 30 s


def test_a_bot_at_its_max_games_is_busy_until_one_ends(client, register_bot, app_key) -> None:
    bot = register_bot("busy")
    client.patch("/v1/bots/busy", json={"max_games": 1}, headers=auth(bot["token"]))
    first, waiting = (challenge(client, {"to": {"bot": "busy"}, "variant": "draw"}).get_json() for _ in range(2))
    accepted = client.post(f"{CHALLENGES}/{first['challenge']['id']}/accept", headers=auth(bot["token"])).get_json()
    assert_problem(challenge(client, {"to": {"bot": "busy"}, "variant": "draw"}), 409, "bot-busy")
    late = f"{CHALLENGES}/{waiting['challenge']['id']}"
    assert_problem(client.post(f"{late}/accept", headers=auth(bot["token"])), 409, "bot-busy")
    assert client.get(late, headers=auth(waiting["token"])).get_json()["status"] == "open"  # nothing changed
    seats = [{"name": "Ana"}, {"bot": "busy"}]
    assert_problem(client.post("/v1/games", json={"variant": "draw", "seats": seats}, headers=auth(app_key)), 409, "bot-busy")
    seeking = {"variant": "draw", "players": 2}
    assert_problem(client.post("/v1/matchmaking/tickets", json=seeking, headers=auth(bot["token"])), 409, "bot-busy")
    token = client.get(f"{CHALLENGES}/{first['challenge']['id']}", headers=auth(first["token"])).get_json()["token"]
    assert client.post(f"/v1/games/{accepted['game_id']}/resign", headers=auth(token)).status_code == 200
    assert client.post(f"{late}/accept", headers=auth(bot["token"])).get_json()["status"] == "accepted"


def test_a_short_challenge_expires_on_its_own_and_frees_its_place_under_the_cap(client, register_bot) -> None:
    bot = register_bot("brief")
    brief = challenge(client, {"to": {"bot": "brief"}, "variant": "draw", "expires_in_s": 1}).get_json()
    for _ in range(4):
        assert challenge(client, {"to": {"bot": "brief"}, "variant": "draw"}).status_code == 201
    url = f"{CHALLENGES}/{brief['challenge']['id']}"
    eventually(lambda: client.get(url, headers=auth(brief["token"])).get_json()["status"] == "expired", "the challenge expired")
    assert_problem(client.post(f"{url}/decline", headers=auth(bot["token"])), 409, "offer-closed")
    assert challenge(client, {"to": {"bot": "brief"}, "variant": "draw"}).status_code == 201  # its place is free
    assert_problem(challenge(client, {"to": {"bot": "brief"}, "variant": "draw"}), 429, "too-many-challenges")


def test_the_challengers_long_poll_returns_when_the_challenge_is_answered(client, register_bot, service) -> None:
    bot = register_bot("answerer")
    answer = challenge(client, {"to": {"bot": "answerer"}, "variant": "draw"}).get_json()
    url = f"{CHALLENGES}/{answer['challenge']['id']}"
    conn = service.store.queue_redis
    waiting_before = blocked_clients(conn, "xread")
    read: dict[str, Any] = {}
    poll = threading.Thread(target=lambda: read.update(client.get(url, query_string={"wait": 25}, headers=auth(answer["token"])).get_json()))
    poll.start()
    eventually(lambda: blocked_clients(conn, "xread") > waiting_before, "the long poll waits")
    assert client.post(f"{url}/accept", headers=auth(bot["token"])).status_code == 200
    poll.join(30)
    assert read["status"] == "accepted" and read["seat"] == 0 and read["token"]
    brief = challenge(client, {"to": {"bot": "answerer"}, "variant": "draw", "expires_in_s": 1}).get_json()
    expired = client.get(f"{CHALLENGES}/{brief['challenge']['id']}", query_string={"wait": 25}, headers=auth(brief["token"]))
    assert expired.get_json()["status"] == "expired"  # a poll waits no longer than the challenge stays open


def test_a_bot_challenges_a_bot_and_each_hears_the_others_answer(client, register_bot) -> None:
    challenger, addressee = register_bot("asker"), register_bot("answering")
    made = challenge(client, {"to": {"bot": "answering"}, "variant": "draw", "rated": True}, headers=auth(challenger["token"]))
    assert made.status_code == 201, made.get_json()
    first = made.get_json()["challenge"]
    assert first["from"] == {"kind": "bot", "name": "asker"} and first["rated"] is True
    assert client.post(f"{CHALLENGES}/{first['id']}/accept", headers=auth(addressee["token"])).status_code == 200
    heard = [n["challenge"] for n in notices(client, challenger) if n["type"] == "challenge"]
    assert [(c["id"], c["status"], c["seat"], c["token"]) for c in heard] == [(first["id"], "accepted", 0, None)]
    assert client.get(f"/v1/games/{heard[0]['game_id']}").get_json()["rated"] is True
    second = challenge(client, {"to": {"bot": "answering"}, "variant": "draw"}, headers=auth(challenger["token"])).get_json()
    assert client.delete(f"{CHALLENGES}/{second['challenge']['id']}", headers=auth(challenger["token"])).status_code == 200
    told = [n["challenge"] for n in notices(client, addressee) if n["type"] == "challenge"]
    assert [(c["id"], c["status"]) for c in told][-2:] == [(second["challenge"]["id"], "open"), (second["challenge"]["id"], "cancelled")]

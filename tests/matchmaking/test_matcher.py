"""The matcher under races and crashes: every ticket ends matched once or cancelled, never both; a match a
crash left half done is finished by the sweep; parties sit as partners; rated tickets meet within range."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from typing import Any

import orjson
import pytest

from api.service.matchmaking.matcher import Matcher

from tickets_support import TICKETS, read, seek


@pytest.mark.slow
def test_many_matchers_and_cancels_at_once_match_each_ticket_once(client, service) -> None:
    tickets = [seek(client, {"variant": "draw", "players": 2}, address=f"127.0.1.{i}").json for i in range(40)]
    pool = service.store.tickets.get(tickets[0]["ticket"]["id"])
    assert pool is not None
    pool_name = orjson.loads(pool["spec"])["pool"]
    rng = random.Random(7)
    to_cancel = rng.sample(tickets, 12)
    cancelled: list[str] = []

    def cancel() -> None:
        for t in to_cancel:
            answer = client.delete(f"{TICKETS}/{t['ticket']['id']}", headers={"Authorization": f"Bearer {t['token']}"})
            if answer.status_code == 200:
                cancelled.append(t["ticket"]["id"])
            else:
                assert answer.status_code == 409

    threads = [threading.Thread(target=service.match_pool, args=(pool_name, "")) for _ in range(4)]
    threads.append(threading.Thread(target=cancel))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    formed = sum(1 for t in tickets if service.store.tickets.get(t["ticket"]["id"])["status"] == "matched")
    assert formed >= 2  # the passes ran beside the cancels
    service.matchmaking.sweep()
    seats: Counter[tuple[str, int]] = Counter()
    statuses = Counter()
    for t in tickets:
        ticket = read(client, t).json
        statuses[ticket["status"]] += 1
        if ticket["status"] == "matched":
            assert t["ticket"]["id"] not in cancelled
            seats[(ticket["game_id"], ticket["seat"])] += 1
        elif ticket["status"] == "cancelled":
            assert t["ticket"]["id"] in cancelled
        else:  # an odd one out, when an odd number was cancelled
            assert ticket["status"] == "waiting" and t["ticket"]["id"] not in cancelled
    assert all(n == 1 for n in seats.values())  # no seat given twice
    games = Counter(game for game, _ in seats)
    assert all(n == 2 for n in games.values())  # every game has its two tickets
    assert statuses["waiting"] <= 1 and statuses["matched"] + statuses["cancelled"] + statuses["waiting"] == len(tickets)


def test_a_match_left_half_done_by_a_crash_is_finished_by_the_sweep(client, service, run_bots, monkeypatch) -> None:
    finish = Matcher.finish
    crashed: list[str] = []

    def crash(self: Matcher, match_id: str, match: dict[str, Any], *specs: Any) -> None:
        crashed.append(match_id)
        raise SystemExit("killed between the claim and the game")

    monkeypatch.setattr(Matcher, "finish", crash)
    a = seek(client, {"variant": "draw", "players": 2}, address="127.0.0.2").json
    b = seek(client, {"variant": "draw", "players": 2}, address="127.0.0.3").json
    try:
        run_bots()
    except SystemExit:
        pass
    assert crashed and read(client, a).json["status"] == "waiting"  # claimed: no longer cancellable, not yet seated
    refused = client.delete(f"{TICKETS}/{a['ticket']['id']}", headers={"Authorization": f"Bearer {a['token']}"})
    assert refused.status_code == 409
    monkeypatch.setattr(Matcher, "finish", finish)
    service.matchmaking.sweep(now=time.time() + 60)
    one, two = read(client, a).json, read(client, b).json
    assert one["status"] == two["status"] == "matched" and one["game_id"] == two["game_id"]


def test_a_party_sits_as_partners_and_waits_for_both(client, run_bots) -> None:
    team = {"variant": "block", "players": 4, "rules": {"teams": "partners_opposite"}}
    opener = seek(client, {**team, "party": "new"}, address="127.0.0.2").json
    code = opener["ticket"]["party"]
    solos = [seek(client, team, address=f"127.0.0.{i}").json for i in (3, 4)]
    run_bots()
    assert read(client, opener).json["status"] == "waiting"  # its partner has not come
    partner = seek(client, {**team, "party": code}, address="127.0.0.5").json
    run_bots()
    a, b = read(client, opener).json, read(client, partner).json
    assert a["status"] == b["status"] == "matched" and a["game_id"] == b["game_id"]
    assert {a["seat"], b["seat"]} in ({0, 2}, {1, 3})
    assert {read(client, s).json["seat"] for s in solos} == {0, 1, 2, 3} - {a["seat"], b["seat"]}


def test_a_party_code_of_another_table_is_refused(client) -> None:
    opener = seek(client, {"variant": "block", "players": 4, "rules": {"teams": "partners_opposite"}, "party": "new"}).json
    other = seek(
        client,
        {"variant": "block", "players": 4, "rules": {"teams": "partners_opposite", "target_score": 50}, "party": opener["ticket"]["party"]},
        address="127.0.0.9",
    )
    assert other.status_code == 422 and "party" in str(other.json["errors"])


def test_rated_tickets_meet_only_within_their_ranges_which_widen(client, service, make_app) -> None:
    issued = make_app()
    key = {"Authorization": f"Bearer {issued.key}"}
    body = {"variant": "draw", "players": 2, "rated": True}
    narrow = seek(client, {**body, "player": "u1", "rating_range": [50, 60]}, headers=key).json
    other = seek(client, {**body, "player": "u2"}, headers=key).json
    service.matchmaking.sweep()
    assert read(client, narrow).json["status"] == "waiting"  # u2's ordinal, 0, is far outside [50, 60]
    later = time.time() + 200  # 0.5 a second: [50-100, 60+100] holds 0
    service.store.tickets.touch(narrow["ticket"]["id"], later)
    service.store.tickets.touch(other["ticket"]["id"], later)
    service.matchmaking.sweep(now=later)
    a, b = read(client, narrow).json, read(client, other).json
    assert a["status"] == b["status"] == "matched" and a["game_id"] == b["game_id"]
    view = client.get(f"/v1/games/{a['game_id']}", headers={"Authorization": f"Bearer {a['token']}"}).json
    assert view["rated"] is True and {s["player"] for s in view["seats"]} == {"u1", "u2"}


def test_a_match_whose_game_cannot_be_made_cancels_its_tickets(client, run_bots, monkeypatch) -> None:
    from api.service.create import Creation
    from api.service.errors import InvalidRequest

    def refuse(*args: Any, **kwargs: Any) -> bool:
        raise InvalidRequest("the bot retired meanwhile")

    monkeypatch.setattr(Creation, "create_for_match", refuse)
    a = seek(client, {"variant": "draw", "players": 2}, address="127.0.0.2").json
    b = seek(client, {"variant": "draw", "players": 2}, address="127.0.0.3").json
    run_bots()
    assert read(client, a).json["status"] == read(client, b).json["status"] == "cancelled"

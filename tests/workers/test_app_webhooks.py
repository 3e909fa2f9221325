"""An app's lifecycle webhooks, received by a local HTTP receiver and run by real RQ workers: `game.started`,
`round.ended` and `game.ended`, signed as Standard Webhooks with the app's secret, no hidden tile before the
end, a failed delivery tried again by the sweep with the same `webhook-id`, and a delivery whose process dies
just after the commit sent by the sweep, once, while one of a commit that failed or lost its race is not."""

from __future__ import annotations

import re
import time
from typing import Any, Iterator, NamedTuple

import orjson
import pytest
from standardwebhooks.webhooks import Webhook

from api.store import StoreUnavailable
from support import eventually, run_webhooks
from local_endpoint import LocalEndpoint

TILE = re.compile(r'"\d{1,2}-\d{1,2}"')


class Receiver(LocalEndpoint):
    """An app's webhook endpoint: records each delivery (headers, body) and answers with the next status of
    ``statuses`` (then 204)."""

    def __init__(self, statuses: list[int] | None = None) -> None:
        self.deliveries: list[tuple[dict[str, str], bytes]] = []
        self.statuses = list(statuses or [])
        super().__init__("/domino-hooks")

    def answer(self, headers: dict[str, str], body: bytes) -> int:
        self.deliveries.append((headers, body))
        return self.statuses.pop(0) if self.statuses else 204

    def verified(self, secret: str) -> list[dict[str, Any]]:
        """Every delivery's payload, each checked against its signature (raises if one is wrong)."""
        return [Webhook(secret).verify(body, headers) for headers, body in self.deliveries]


def test_an_apps_game_is_heard_from_start_to_end(client, make_app, service, run_bots) -> None:  # type: ignore[no-untyped-def]
    receiver = Receiver()
    try:
        issued = make_app(webhook=receiver.url)
        seats = [{"bot": "greedy", "player": "bot:a"}, {"bot": "random", "metadata": {"side": "b"}}]
        body = {"variant": "draw", "seats": seats, "rules": {"target_score": 30}, "metadata": {"match": 7}}
        resp = client.post("/v1/games", json=body, headers={"Authorization": f"Bearer {issued.key}"})
        assert resp.status_code == 201
        game_id = resp.get_json()["game"]["id"]
        run_webhooks(service)
        started = receiver.verified(issued.webhook_secret)
        assert [p["type"] for p in started] == ["game.started"]
        assert not TILE.search(receiver.deliveries[0][1].decode()), "no tile is known before the first move"
        while run_bots():
            pass
        assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "finished"
        run_webhooks(service)
        payloads = receiver.verified(issued.webhook_secret)
    finally:
        receiver.close()
    types = [p["type"] for p in payloads]
    rounds = types.count("round.ended")
    assert types == ["game.started"] + ["round.ended"] * rounds + ["game.ended"] and rounds >= 1
    ids = [headers["webhook-id"] for headers, _ in receiver.deliveries]
    assert len(set(ids)) == len(ids), "one delivery id per event"
    assert ids[0] == f"msg_{game_id}_0_game_started"
    ended = payloads[-1]["data"]
    final = client.get(f"/v1/games/{game_id}").get_json()
    assert ended["game_id"] == game_id and ended["winners"] == final["winners"] and ended["scores"] == final["scores"]
    assert ended["metadata"] == {"match": 7} and ended["players"] == ["bot:a", None]
    assert ended["seats"][1]["metadata"] == {"side": "b"} and ended["outcome"]["reason"] == "target_score"
    versions = [p["data"]["version"] for p in payloads]
    assert versions == sorted(versions)
    for payload in payloads[:-1]:  # before the end: nobody's hand, only what a spectator sees
        data = payload["data"]
        assert "hand" not in orjson.dumps(data).decode().replace('"hands"', "")
        assert "deals" not in data and "seed" not in data


def test_a_failed_delivery_is_retried_with_the_same_delivery_id(client, make_app, service) -> None:  # type: ignore[no-untyped-def]
    receiver = Receiver(statuses=[500])
    try:
        issued = make_app(webhook=receiver.url)
        seats = [{"name": "Ana", "player": "user:1"}, {"name": "Bo"}]
        resp = client.post("/v1/games", json={"variant": "draw", "seats": seats}, headers={"Authorization": f"Bearer {issued.key}"})
        assert resp.status_code == 201
        run_webhooks(service)
        assert len(receiver.deliveries) == 1, "the first try failed (500)"

        def tried_again() -> bool:  # due again after the back-off (50 ms in the tests) and the timeout
            if service.sweep().app_events:
                run_webhooks(service)
            return len(receiver.deliveries) >= 2

        eventually(tried_again, "the failed delivery was tried again", 60, 0.05)
        payloads = receiver.verified(issued.webhook_secret)
        assert service.store.app_hooks_due.size() == 0, "delivered: nothing left due"
        assert service.sweep().app_events == [], "and nothing sent again"
    finally:
        receiver.close()
    first, second = (headers for headers, _ in receiver.deliveries)
    assert first["webhook-id"] == second["webhook-id"] == f"msg_{resp.get_json()['game']['id']}_0_game_started"
    assert (first["webhook-attempt"], second["webhook-attempt"]) == ("1", "2")
    assert payloads[0] == payloads[1] and payloads[0]["data"]["players"] == ["user:1", None]


def test_a_revoked_app_hears_nothing_more(client, make_app, service) -> None:  # type: ignore[no-untyped-def]
    receiver = Receiver()
    try:
        issued = make_app(webhook=receiver.url)
        resp = client.post(
            "/v1/games",
            json={"variant": "draw", "seats": [{"name": "Ana"}, {"name": "Bo"}]},
            headers={"Authorization": f"Bearer {issued.key}"},
        )
        service.revoke_app(issued.app.id)
        run_webhooks(service)
        token = resp.get_json()["tokens"][0]["token"]
        assert client.post(f"/v1/games/{resp.get_json()['game']['id']}/resign", headers={"Authorization": f"Bearer {token}"}).status_code == 200
        run_webhooks(service)
    finally:
        receiver.close()
    assert receiver.deliveries == []


class Died(BaseException):
    """The process dies here: nothing after this point runs (not even an ``except Exception``)."""


def die(*args: object) -> None:
    raise Died


class OwnedGame(NamedTuple):
    receiver: Receiver
    issued: Any  # the app, as make_app issued it
    game_id: str
    tokens: list[dict[str, str]]  # each seat's Authorization header


@pytest.fixture
def owned_game(client, make_app, service) -> Iterator[OwnedGame]:  # type: ignore[no-untyped-def]
    """A game of two people that an app with a local receiver owns, its game.started delivered."""
    receiver = Receiver()
    try:
        issued = make_app(webhook=receiver.url)
        seats = [{"name": "Ana", "player": "user:1"}, {"name": "Bo", "player": "user:2"}]
        resp = client.post("/v1/games", json={"variant": "draw", "seats": seats}, headers={"Authorization": f"Bearer {issued.key}"})
        assert resp.status_code == 201
        tokens = [{"Authorization": f"Bearer {t['token']}"} for t in resp.get_json()["tokens"]]
        run_webhooks(service)
        yield OwnedGame(receiver, issued, resp.get_json()["game"]["id"], tokens)
    finally:
        receiver.close()


def sweep_later(service) -> list[str]:  # type: ignore[no-untyped-def]
    """One sweep a minute from now (every pending entry and back-off is due), its jobs run; the deliveries enqueued."""
    report = service.sweep(now=time.time() + 60)
    run_webhooks(service)
    return [delivery_id for delivery_id, _, _ in report.app_events]


@pytest.mark.cluster
def test_a_delivery_whose_process_died_after_the_commit_is_sent_by_the_sweep_once(client, owned_game, service) -> None:  # type: ignore[no-untyped-def]
    receiver, issued, game_id, tokens = owned_game
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(service.commits.lifecycle, "emit", die)  # dies between the commit and the enqueue
        with pytest.raises(Died):
            client.post(f"/v1/games/{game_id}/resign", headers=tokens[1])
    game = client.get(f"/v1/games/{game_id}").get_json()
    assert game["status"] == "finished", "the resignation was committed"
    run_webhooks(service)
    assert len(receiver.deliveries) == 1, "only game.started: the end's delivery was never enqueued"
    ended = f"msg_{game_id}_{game['version']}_game_ended"
    due = service.store.app_hooks_due.due_at(ended)
    assert due is not None, "marked pending before the commit"
    # As at a moment just before it is due (not the clock: a slow machine may already be past it).
    assert service.sweep(now=due - 0.01).app_events == [], "not due yet: a live process has its time to enqueue it"
    assert sweep_later(service) == [ended]
    assert sweep_later(service) == [] and service.store.app_hooks_due.size() == 0, "delivered: nothing more"
    payloads = receiver.verified(issued.webhook_secret)
    assert [p["type"] for p in payloads] == ["game.started", "game.ended"]
    headers = receiver.deliveries[1][0]
    assert headers["webhook-id"] == ended and headers["webhook-attempt"] == "1"
    data = payloads[1]["data"]
    assert data["version"] == game["version"] and data["winners"] == game["winners"] == [0]
    assert data["outcome"]["reason"] == "resigned"


def test_a_pending_delivery_of_a_commit_that_failed_is_dropped(client, owned_game, service) -> None:  # type: ignore[no-untyped-def]
    receiver, issued, game_id, tokens = owned_game
    with pytest.MonkeyPatch.context() as patch:

        def fail(*args: object, **kwargs: object) -> None:
            raise StoreUnavailable("the game's Redis went away")

        patch.setattr(service.store.games, "commit", fail)
        assert client.post(f"/v1/games/{game_id}/resign", headers=tokens[0]).status_code == 503
    assert service.store.app_hooks_due.size() == 1, "noted before the commit"
    assert sweep_later(service) == [] and service.store.app_hooks_due.size() == 0, "the game never reached it"
    run_webhooks(service)
    assert len(receiver.deliveries) == 1, "only game.started"
    with pytest.MonkeyPatch.context() as patch:  # the other seat resigns; its process dies after the commit
        patch.setattr(service.commits.lifecycle, "emit", die)
        with pytest.raises(Died):
            client.post(f"/v1/games/{game_id}/resign", headers=tokens[1])
    assert len(sweep_later(service)) == 1
    payloads = receiver.verified(issued.webhook_secret)
    assert [p["type"] for p in payloads] == ["game.started", "game.ended"]
    assert payloads[1]["data"]["winners"] == client.get(f"/v1/games/{game_id}").get_json()["winners"] == [0]


def test_a_commit_that_lost_its_race_sends_nothing_the_winner_is_sent(client, owned_game, service) -> None:  # type: ignore[no-untyped-def]
    receiver, issued, game_id, tokens = owned_game
    commit = service.store.games.commit
    raced = []

    def race(*args: object, **kwargs: object) -> object:
        """Seat 0's resignation, noted, is overtaken by seat 1's, whose process dies after its commit."""
        if not raced:
            raced.append(True)
            with pytest.raises(Died):
                service.resign(game_id, tokens[1]["Authorization"].removeprefix("Bearer "))
        return commit(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(service.store.games, "commit", race)
        patch.setattr(service.commits.lifecycle, "emit", die)
        assert client.post(f"/v1/games/{game_id}/resign", headers=tokens[0]).status_code == 409
    assert raced and service.store.app_hooks_due.size() == 1, "one entry, noted by both commits"
    assert len(sweep_later(service)) == 1
    assert sweep_later(service) == []
    payloads = receiver.verified(issued.webhook_secret)
    assert [p["type"] for p in payloads] == ["game.started", "game.ended"]
    assert payloads[1]["data"]["winners"] == client.get(f"/v1/games/{game_id}").get_json()["winners"] == [0]

"""Webhook deliveries are fair per owner (issue 32, item 4): one owner's jam of hosts that never answer holds
a few of a worker's many delivery threads, and another owner's delivery goes out meanwhile; nothing is lost.
Every host is a loopback listener (127.0.0.0/8)."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest

from api.app import create_app
from api.queues import WEBHOOKS
from api.service import deliveries
from api.service.deliveries import Deliveries
from local_endpoint import BlackHole, LocalEndpoint
from support import eventually, work_burst


def test_one_owner_never_holds_more_than_its_share_and_owners_take_turns():
    pool = Deliveries(size=6, per_owner=2)
    release = threading.Event()
    running: dict[str, int] = {"jam": 0}
    most = 0
    done: list[str] = []
    lock = threading.Lock()

    def jam() -> None:
        nonlocal most
        with lock:
            running["jam"] += 1
            most = max(most, running["jam"])
        release.wait(30)
        with lock:
            running["jam"] -= 1

    for i in range(6):
        assert pool.submit("client:jam", f"jam-{i}", jam) == "queued"
    assert pool.submit("client:jam", "jam-0", jam) == "pending", "a delivery already here is not queued twice"
    for i in range(3):
        assert pool.submit(f"client:{i}", f"other-{i}", lambda i=i: done.append(f"other-{i}")) == "queued"
    eventually(lambda: len(done) == 3, "the other owners' deliveries went out while the jam held its share")
    assert running["jam"] == 2 and most == 2
    backlog = [pool.submit("client:jam", f"more-{i}", jam) for i in range(10)]
    assert "deferred: owner busy" in backlog, "an owner's backlog is bounded: the rest stay due for the sweep"
    release.set()
    assert pool.wait_idle(30)
    assert most == 2


def test_one_games_deliveries_go_one_at_a_time_in_order():
    pool = Deliveries(size=8, per_owner=4)
    order: list[int] = []
    inside = threading.Semaphore(1)  # two of one game at once would find it taken

    def event(i: int) -> None:
        assert inside.acquire(blocking=False), "two deliveries of one game at once"  # then i is missing below
        order.append(i)
        inside.release()

    for i in range(12):
        assert pool.submit("app:a", f"e{i}", lambda i=i: event(i), lane="game-1") == "queued"
    assert pool.wait_idle(30)
    assert order == list(range(12))


class Bot(LocalEndpoint):
    """An honest hosted bot: records when each delivery arrived, and how many dead-host connections existed."""

    def __init__(self, holes: list[BlackHole]) -> None:
        self.holes = holes
        self.arrivals: list[int] = []
        super().__init__("/turn")

    def answer(self, headers: dict[str, str], body: bytes) -> int:
        self.arrivals.append(sum(len(h.accepted) for h in self.holes))
        return 204


def _hosted_game(client, url: str, address: str) -> str:  # type: ignore[no-untyped-def]
    """A game created by ``address`` whose hosted seat (0) is to move: its delivery is queued."""
    env = {"REMOTE_ADDR": address}
    seats = [{"name": "hb", "webhook": url}, {"name": "Bo"}]
    resp = client.post("/v1/games", json={"variant": "draw", "seats": seats}, environ_base=env)
    assert resp.status_code == 201, resp.get_json()
    data = resp.get_json()
    if data["game"]["turn"] != 0:
        auth = {"Authorization": f"Bearer {next(t['token'] for t in data['tokens'] if t['seat'] == 1)}"}
        move = client.get(f"/v1/games/{data['game']['id']}", headers=auth, environ_base=env).get_json()["legal_moves"][0]
        resp = client.post(f"/v1/games/{data['game']['id']}/moves", json=move, headers=auth, environ_base=env)
        assert resp.status_code == 200
    return str(data["game"]["id"])


@pytest.mark.slow
def test_black_hole_webhooks_of_one_client_do_not_hold_up_another_clients_delivery(settings, monkeypatch):
    """The attack of the issue, small: 20 games from one address with hosted seats at 20 hosts that accept and
    never answer (each a new host: no back-off shared between them), and then one game of another client. The
    dead hosts hold their deliveries (a first-contact timeout longer than the test) until the test closes
    them: meanwhile the other client's delivery goes out, while the first client holds only its share."""
    from workers import jobs

    s = replace(settings, webhook_first_timeout=60.0)
    monkeypatch.setenv("DOMINO_WEBHOOK_FIRST_TIMEOUT", "60")  # the jobs' service reads the environment
    jobs.use_service(None)
    app = create_app({"DOMINO": s, "TESTING": True})
    service, client = app.extensions["domino.service"], app.test_client()
    holes = [BlackHole("127.0.0.1") for _ in range(20)]
    bot = Bot(holes)
    try:
        attack = [_hosted_game(client, f"http://127.0.0.1:{h.port}/turn", "127.0.0.66") for h in holes]
        honest = _hosted_game(client, bot.url, "127.0.0.77")
        assert work_burst(service, (WEBHOOKS,))  # every delivery handed to this process's delivery threads
        eventually(lambda: bot.arrivals, "the honest delivery went out while the dead hosts held theirs", 60)
        assert bot.arrivals[0] <= s.webhook_per_owner, "the other client held at most its share meanwhile"
    finally:
        bot.close()
        for h in holes:
            h.close()  # their deliveries fail now (reset, or refused)
    assert deliveries.wait_idle(60)
    due = dict(service.store.hooks_due.overdue(time.time() + 3600))
    assert all(any(m.startswith(f"{g}:") for m in due) for g in attack), "nothing lost: each stays due"
    assert not any(m.startswith(f"{honest}:") for m in due), "the honest one is done"

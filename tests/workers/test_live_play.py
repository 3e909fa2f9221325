"""Turn timeouts, hosted bots' webhooks and the reference client, on real RQ workers and a real HTTP server.

The hosted bot is a local HTTP server on 127.0.0.1 (loopback only)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from standardwebhooks.webhooks import Webhook

from workers import sweep as sweep_mod
from support import eventually, run_webhooks, stop_process
from local_endpoint import LocalEndpoint

pytestmark = pytest.mark.cluster  # on the single Redis and on a Redis Cluster

ROOT = Path(__file__).resolve().parents[2]


def test_a_timed_out_human_seat_is_played_for_and_the_game_finishes(create_game, run_bots, service, client):
    data, players, spectator = create_game(
        [{"name": "Ana"}, {"bot": "greedy"}], rules={"match_end": "fixed_rounds", "rounds": 1}, turn_timeout_s=0.05, seed="clock"
    )
    game_id = data["game"]["id"]
    assert data["game"]["turn_timeout_s"] == 0.05
    saw_deadline = False

    def finished():  # type: ignore[no-untyped-def]
        """Ana's view once the game is over; meanwhile the bot moves, and the sweep moves for Ana."""
        nonlocal saw_deadline
        run_bots()
        view = players[0].view().get_json()
        if view["status"] == "finished":
            return view
        if view["turn"] == 0:
            assert view["deadline"] is not None and view["legal_moves"]
            saw_deadline = True
        sweep_mod.sweep_once(service)
        return None

    eventually(finished, "the game finished, Ana's turns played for her", 60, 0.02)
    assert saw_deadline
    events = client.get(f"/v1/games/{game_id}/events", headers=players[0].headers).get_json()["events"]
    auto = [e for e in events if e.get("auto")]
    assert auto and {e["seat"] for e in auto if e["type"] in ("tile_played", "tile_drawn", "passed")} == {0}
    last = events[-1]["version"]
    bot_plays = [e for e in events if e["type"] == "tile_played" and e["seat"] == 1 and e["version"] != last]
    assert bot_plays and all("deadline" in e for e in bot_plays), "after the bot's move, the human's clock runs"
    assert not any(e.get("auto") for e in events if e["seat"] == 1 and e["type"] == "tile_played")


class HookServer(LocalEndpoint):
    """A hosted bot on 127.0.0.1: records each delivery; answers 500 to the first ``fail`` ones."""

    def __init__(self, fail: int) -> None:
        self.requests: list[tuple[dict[str, str], bytes, float]] = []
        self.fail = fail
        super().__init__("/turn")

    def answer(self, headers: dict[str, str], body: bytes) -> int:
        self.requests.append((headers, body, time.monotonic()))
        return 500 if len(self.requests) <= self.fail else 204


@pytest.fixture
def hook_server():  # type: ignore[no-untyped-def]
    servers: list[HookServer] = []

    def make(fail: int = 0) -> HookServer:
        servers.append(HookServer(fail))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def test_a_webhook_is_signed_and_a_failing_one_is_retried(create_game, service, hook_server, run_bots):
    hook = hook_server(fail=2)
    data, players, _ = create_game(
        [{"name": "mybot", "webhook": hook.url}, {"name": "Bo"}],
        rules={"match_end": "fixed_rounds", "rounds": 1},
        seed="hooked",
    )
    game_id = data["game"]["id"]
    secret = next(t["webhook_secret"] for t in data["tokens"] if t["seat"] == 0)
    assert secret.startswith("whsec_")
    assert data["game"]["seats"][0]["kind"] == "hosted"
    assert "webhook" not in json.dumps(data["game"]), "the URL and secret are not in views"
    if data["game"]["turn"] != 0:  # let the human open, so it is the hosted bot's turn
        bo = players[1]
        bo.move(bo.view().get_json()["legal_moves"][0])
    version = players[0].view().get_json()["version"]

    def tried_three_times() -> bool:  # each retry is queued by the sweep once its back-off has run out
        run_webhooks(service)
        sweep_mod.sweep_once(service)
        return len(hook.requests) >= 3

    eventually(tried_three_times, "two failures, then a third try", 60, 0.02)
    assert len(hook.requests) == 3, "two failures, then the third try succeeds"
    ids = {h["webhook-id"] for h, _, _ in hook.requests}
    assert len(ids) == 1, "every retry of one turn carries the same webhook-id"
    gaps = [b[2] - a[2] for a, b in zip(hook.requests, hook.requests[1:])]
    assert all(g >= 0.04 for g in gaps), gaps  # the configured back-off (0.05 s)
    headers, body, _ = hook.requests[-1]
    payload = Webhook(secret).verify(body, headers)  # raises unless the signature is right
    assert payload["game_id"] == game_id and payload["seat"] == 0 and payload["version"] == version
    assert payload["view"]["legal_moves"] and payload["view"]["hand"]
    assert headers["webhook-signature"].startswith("v1,")
    with pytest.raises(Exception):
        Webhook("whsec_" + "A" * 32).verify(body, headers)
    # Delivered: no more tries, even once every back-off has run out (the sweep is told it is an hour later).
    run_webhooks(service)
    sweep_mod.sweep_once(service, time.time() + 3600)
    run_webhooks(service)
    assert len(hook.requests) == 3
    # The bot answers with its token through the move endpoint; the next turn of the bot is delivered again.
    move = payload["view"]["legal_moves"][0]
    resp = players[0].move({**move, "expected_version": payload["version"]})
    assert resp.status_code == 200, resp.get_json()


@pytest.mark.single_redis  # refused before the game store: the same code on a cluster
def test_webhook_urls_are_checked(client):
    for url in ("ftp://127.0.0.1/x", "file:///etc/passwd", "http://", "http://user:pw@127.0.0.1/"):
        resp = client.post(
            "/v1/games", json={"variant": "draw", "seats": [{"name": "b", "webhook": url}, {"name": "Bo"}]}
        )
        assert resp.status_code == 422, url
    resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"bot": "greedy", "webhook": "http://127.0.0.1/"}, {"name": "Bo"}]})
    assert resp.status_code == 422


@pytest.fixture
def live_server(app):  # type: ignore[no-untyped-def]
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture
def worker_process(settings):  # type: ignore[no-untyped-def]
    env = {**os.environ, "DOMINO_RQ_LOG_LEVEL": "WARNING", "DOMINO_LOG_LEVEL": "WARNING"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "workers.cli", "worker", "bots", "bot-games", "--sweep"],
        env=env,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
    )
    yield proc
    stop_process(proc)


@pytest.mark.slow
def test_the_reference_client_finishes_a_game_against_two_computer_players(live_server, worker_process, client):
    resp = client.post(
        "/v1/games",
        json={
            "variant": "draw",
            "seats": [{"open": True}, {"bot": "greedy"}, {"bot": "random"}],
            "rules": {"match_end": "fixed_rounds", "rounds": 2},
        },
    )
    game_id = resp.get_json()["game"]["id"]
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "hosted_bot.py"), "--url", live_server, "--game", game_id,
         "--claim", "0", "--name", "ref", "--wait", "5"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"game {game_id}: finished" in done.stdout
    print(f"\nreference client: 2 rounds against 2 computer players in {time.perf_counter() - t0:.2f} s: {done.stdout.strip()}")
    view = client.get(f"/v1/games/{game_id}").get_json()
    assert view["status"] == "finished" and view["seats"][0]["name"] == "ref"
    events = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    assert any(e["type"] == "tile_played" and e["seat"] == 0 and not e.get("auto") for e in events)
    # Claiming the seat again: 409 seat-taken, told in one line (the problem's detail), no traceback.
    again = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "hosted_bot.py"), "--url", live_server, "--game", game_id,
         "--claim", "0", "--name", "late"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert again.returncode == 1
    assert "Traceback" not in again.stderr and "409" in again.stderr and "is taken" in again.stderr, again.stderr


def test_webhooks_into_our_own_network_are_refused_unless_allowed(settings, monkeypatch):
    from dataclasses import replace

    from api.service import addresses
    from api.app import create_app

    for url in ("http://127.0.0.1:9/", "http://10.1.2.3/x", "http://[::1]/", "http://169.254.169.254/latest",
                "http://localhost:8000/", "http://192.168.0.7/"):  # fmt: skip
        assert addresses.literal_target(url), url
    assert addresses.literal_target("https://203.0.113.9/")  # documentation range: not global
    assert addresses.literal_target("https://8.8.8.8/hook") is None
    assert addresses.literal_target("https://bots.example.com/") is None  # judged when delivered
    with monkeypatch.context() as m:  # a public-looking name that resolves into a private network
        m.setattr(addresses.socket, "getaddrinfo", lambda *a, **k: [(0, 0, 0, "", ("10.0.0.5", 0))])
        with pytest.raises(addresses.Refused, match="10.0.0.5"):
            addresses.pin("https://bots.example.com/", allow_private=False, deadline=1.0)

    strict = replace(settings, webhook_allow_private=False)
    client = create_app({"DOMINO": strict, "TESTING": True}).test_client()
    resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "b", "webhook": "http://127.0.0.1:9/"}, {"name": "Bo"}]})
    assert resp.status_code == 422
    assert "non-public" in resp.get_json()["detail"]

"""Registered bots against a served app and real worker processes: a webhook bot answering its signed
deliveries with its bot token, and the reference client's registered mode playing several games at once
from one stream (long poll and SSE). Everything listens on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from standardwebhooks.webhooks import Webhook

from local_endpoint import LocalEndpoint
from support import eventually, stop_process

ROOT = Path(__file__).resolve().parents[2]
ONE_ROUND = {"match_end": "fixed_rounds", "rounds": 1}

pytestmark = pytest.mark.slow  # real processes: hosted bots, reference clients, a served app and its worker


@pytest.fixture
def settings(settings, monkeypatch):  # type: ignore[no-untyped-def]
    """The suite's settings, with a webhook's read timeout (first contact too) a ceiling rather than the suite's
    second: the webhook bot here posts its move before it answers, through the served app, which on a loaded
    machine can take longer than a second. A timed-out delivery would back its host off and use up its retries,
    or be sent again while the first is still being answered; the test waits on the bot's answer instead."""
    for field in ("WEBHOOK_TIMEOUT", "WEBHOOK_FIRST_TIMEOUT"):
        monkeypatch.setenv(f"DOMINO_{field}", "60")  # the worker processes read the environment
    return replace(settings, webhook_timeout=60.0, webhook_first_timeout=60.0)


@pytest.fixture
def webhooks_worker(settings):  # type: ignore[no-untyped-def]
    """A real worker process on the webhooks queue (the `served` fixture runs one on the bots queue)."""
    env = {**os.environ, "DOMINO_RQ_LOG_LEVEL": "WARNING", "DOMINO_LOG_LEVEL": "WARNING"}
    proc = subprocess.Popen([sys.executable, "-m", "workers.cli", "worker", "webhooks"], env=env, stdin=subprocess.DEVNULL, cwd=ROOT)
    yield proc
    stop_process(proc)


class WebhookBot(LocalEndpoint):
    """A registered bot's webhook on 127.0.0.1: checks each delivery's signature, then posts a legal move with
    its bot token (before answering 204, as docs/hosted-bots.md allows)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.token = ""
        self.secret = ""
        self.deliveries: list[tuple[dict[str, str], dict[str, Any]]] = []
        self.answers: list[int] = []
        super().__init__("/turn")

    def answer(self, headers: dict[str, str], body: bytes) -> int:
        payload = Webhook(self.secret).verify(body, headers)  # raises on a bad signature: no answer
        self.deliveries.append((headers, payload))
        move = {**payload["legal_moves"][0], "expected_version": payload["version"]}
        resp = httpx.post(self.base_url + payload["move_url"], json=move, headers={"Authorization": f"Bearer {self.token}"})
        self.answers.append(resp.status_code)
        return 204


def wait_finished(base: str, game_ids: list[str], seconds: float = 120) -> list[dict[str, Any]]:
    def views() -> list[dict[str, Any]] | None:
        found = [httpx.get(f"{base}/v1/games/{g}").json() for g in game_ids]
        return found if all(v["status"] == "finished" for v in found) else None

    return eventually(views, f"games {game_ids} finished", seconds, 0.05)  # type: ignore[no-any-return]


def own_moves(base: str, game_id: str, seat: int) -> list[dict[str, Any]]:
    events = httpx.get(f"{base}/v1/games/{game_id}/events").json()["events"]
    return [e for e in events if e.get("seat") == seat and e["type"] in ("tile_played", "tile_drawn", "passed")]


def test_a_webhook_bot_gets_signed_turns_and_answers_with_its_token(served, webhooks_worker, register_bot, app_key):
    hook = WebhookBot(served)
    try:
        bot = register_bot("hookbot", webhook=hook.url)
        hook.token, hook.secret = bot["token"], bot["webhook_secret"]
        assert bot["delivery"] == "webhook" and bot["webhook_secret"].startswith("whsec_")
        resp = httpx.post(f"{served}/v1/games", json={"variant": "draw", "seats": [{"bot": "hookbot"}, {"bot": "greedy"}], "rules": ONE_ROUND},
                          headers={"Authorization": f"Bearer {app_key}"})  # its owner seats it
        assert resp.status_code == 201, resp.json()
        game_id = resp.json()["game"]["id"]
        (view,) = wait_finished(served, [game_id])
    finally:
        hook.close()
    assert hook.deliveries and set(hook.answers) == {200}, hook.answers
    headers, payload = hook.deliveries[0]
    assert headers["webhook-id"] == f"turn_{game_id}_{payload['version']}" and headers["webhook-signature"].startswith("v1,")
    assert payload["type"] == "turn" and payload["seat"] == 0 and payload["view"]["hand"] and payload["deadline"]
    assert bot["token"] not in orjson.dumps(payload).decode()
    mine = own_moves(served, game_id, 0)
    assert len(mine) == len(hook.deliveries) and not any(e.get("auto") for e in mine)
    assert view["seats"][0]["kind"] == "registered"


@pytest.mark.parametrize("mode", ["long-poll", "sse"])
def test_the_reference_client_plays_several_games_at_once_from_one_stream(served, register_bot, app_key, mode):
    bot = register_bot("refbot", variants=("draw", "block"))
    owner = {"Authorization": f"Bearer {app_key}"}  # a registered bot is seated by its owner
    games = []
    for variant, opponent in (("draw", "greedy"), ("block", "random"), ("draw", "random")):
        body = {"variant": variant, "seats": [{"bot": opponent}, {"bot": "refbot"}], "rules": ONE_ROUND}
        games.append(httpx.post(f"{served}/v1/games", json=body, headers=owner).json()["game"]["id"])
    args = [sys.executable, str(ROOT / "examples" / "hosted_bot.py"), "--url", served, "--registered", "--games", "3", "--wait", "1"]
    if mode == "sse":
        args.append("--sse")
    env = {**os.environ, "DOMINO_BOT_TOKEN": bot["token"]}
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    assert "3 games ended" in done.stdout, done.stdout
    for view in wait_finished(served, games):
        assert view["seats"][1]["name"] == "refbot"
        mine = own_moves(served, view["id"], 1)
        assert mine and not any(e.get("auto") for e in mine), "the client made every move of its seat"
    # Started again, it first gets the notices kept from the run before: their endings are not this run's.
    body = {"variant": "draw", "seats": [{"bot": "greedy"}, {"bot": "refbot"}], "rules": ONE_ROUND}
    fresh = httpx.post(f"{served}/v1/games", json=body, headers=owner).json()["game"]["id"]
    again = subprocess.run([*args[:args.index("--games") + 1], "1", *args[args.index("--games") + 2 :]],
                           capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)  # fmt: skip
    assert again.returncode == 0 and "1 games ended" in again.stdout and fresh in again.stdout, again.stdout
    (view,) = wait_finished(served, [fresh])
    assert own_moves(served, fresh, 1) and view["status"] == "finished"
    wrong = subprocess.run(args[:-1] if mode == "sse" else args, capture_output=True, text=True, timeout=60, cwd=ROOT,
                           env={**os.environ, "DOMINO_BOT_TOKEN": "dsk_bot_wrong"})  # fmt: skip
    assert wrong.returncode == 1 and "401" in wrong.stderr and "Traceback" not in wrong.stderr


def test_the_reference_client_accepts_a_challenge_and_plays_its_game(served, register_bot) -> None:  # type: ignore[no-untyped-def]
    bot = register_bot("takerbot")
    args = [sys.executable, str(ROOT / "examples" / "hosted_bot.py"), "--url", served, "--registered", "--accept-challenges",
            "--games", "1", "--wait", "1"]  # fmt: skip
    client = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                              env={**os.environ, "DOMINO_BOT_TOKEN": bot["token"]})  # fmt: skip
    try:
        made = httpx.post(f"{served}/v1/challenges", json={"to": {"bot": "takerbot"}, "variant": "draw", "rules": ONE_ROUND})
        assert made.status_code == 201, made.json()
        mine = {"Authorization": f"Bearer {made.json()['token']}"}
        url = f"{served}/v1/challenges/{made.json()['challenge']['id']}"
        read = eventually(lambda: (r := httpx.get(url, params={"wait": 5}, headers=mine, timeout=30).json())["game_id"] and r,
                          "the bot accepted the challenge")  # fmt: skip
        assert read["status"] == "accepted" and read["seat"] == 0
        resigned = httpx.post(f"{served}/v1/games/{read['game_id']}/resign", headers={"Authorization": f"Bearer {read['token']}"})
        assert resigned.status_code == 200, resigned.json()
        out, err = client.communicate(timeout=60)
    finally:
        stop_process(client)
    assert client.returncode == 0, err
    assert f"accepted, game {read['game_id']}" in out and "1 games ended, 1 won" in out, out

"""Third-party apps over HTTP: keys (create, rotate, revoke), `GET /v1/app`, games owned by an app and listed
with `owner=me`, metadata and players, the app's own rate limit and game cap, and `domino-admin`."""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from api.app import create_app
from workers import admin
from conftest import openapi_document

ROOT = Path(__file__).resolve().parents[2]
TWO_HUMANS = [{"name": "Ana", "player": "user:1"}, {"name": "Bo", "player": "user:2"}]


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def create(client, key: str, seats=TWO_HUMANS, **body):  # type: ignore[no-untyped-def]
    resp = client.post("/v1/games", json={"variant": "draw", "seats": seats, **body}, headers=bearer(key))
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def owned(client, key: str, query: str = "") -> list[str]:  # type: ignore[no-untyped-def]
    resp = client.get(f"/v1/games?owner=me{query}", headers=bearer(key))
    assert resp.status_code == 200, resp.get_json()
    return [g["id"] for g in resp.get_json()["games"]]


def test_the_app_reads_itself_never_its_key_or_secret(client, make_app) -> None:  # type: ignore[no-untyped-def]
    issued = make_app("tabletop", webhook="https://hooks.example.com/domino", rate_limit="500/30", max_games=7)
    assert issued.key.startswith("dsk_app_") and len(issued.key) == len("dsk_app_") + 43
    resp = client.get("/v1/app", headers=bearer(issued.key))
    assert resp.status_code == 200
    body = resp.get_json()
    assert body == {
        "id": issued.app.id, "name": "tabletop", "webhook": "https://hooks.example.com/domino", "rate_limit": "500/30",
        "max_games": 7, "created_at": body["created_at"], "revoked": False,
        "events": ["game.started", "round.ended", "game.ended"],
        "keys": [{"generation": "current", "expires_at": None, "in_use": True}],
        "webhook_secrets": [{"generation": "current", "expires_at": None}],
    }  # fmt: skip
    assert issued.key not in resp.text and issued.webhook_secret and issued.webhook_secret not in resp.text
    assert resp.headers["RateLimit-Policy"] == '"app";q=500;w=30'
    assert client.get("/v1/app").status_code == 401


def test_an_unknown_app_key_is_a_401_never_an_anonymous_request(client, app_key) -> None:  # type: ignore[no-untyped-def]
    forged = app_key[:-4] + ("AAAA" if not app_key.endswith("AAAA") else "BBBB")
    for method, path in (("get", "/v1/games"), ("get", "/v1/variants"), ("post", "/v1/games"), ("get", "/v1/app")):
        resp = getattr(client, method)(path, headers=bearer(forged), json={"variant": "draw", "seats": TWO_HUMANS})
        assert resp.status_code == 401, (path, resp.get_json())
        assert resp.get_json()["type"] == "/problems/unauthorized"
        assert forged not in resp.text


def test_a_game_created_with_a_key_belongs_to_that_app_only(client, make_app) -> None:  # type: ignore[no-untyped-def]
    a, b = make_app(), make_app()
    game_a = create(client, a.key, unlisted=True)["game"]["id"]
    game_b = create(client, b.key)["game"]["id"]
    assert owned(client, a.key) == [game_a]
    assert owned(client, b.key) == [game_b]
    assert owned(client, b.key, "&player=user:1") == [game_b], "players are per app"
    # B's key is no seat token of A's game: it cannot move there or resign
    move = client.post(f"/v1/games/{game_a}/moves", json={"type": "pass"}, headers=bearer(b.key))
    assert move.status_code == 401
    assert client.post(f"/v1/games/{game_a}/resign", headers=bearer(b.key)).status_code == 403  # another app's game
    # anonymous games belong to nobody; owner=me needs a key
    anonymous = client.post("/v1/games", json={"variant": "draw", "seats": TWO_HUMANS}).get_json()["game"]["id"]
    assert anonymous not in owned(client, a.key) + owned(client, b.key)
    assert client.get("/v1/games?owner=me").status_code == 401


def test_revoking_takes_effect_on_the_next_request(client, make_app, service) -> None:  # type: ignore[no-untyped-def]
    issued = make_app()
    game = create(client, issued.key)
    assert client.get("/v1/app", headers=bearer(issued.key)).status_code == 200
    service.revoke_app(issued.app.name)
    assert client.get("/v1/app", headers=bearer(issued.key)).status_code == 401
    assert client.post("/v1/games", json={"variant": "draw", "seats": TWO_HUMANS}, headers=bearer(issued.key)).status_code == 401
    # its games play on with their seat tokens
    token = game["tokens"][0]["token"]
    assert client.get(f"/v1/games/{game['game']['id']}", headers=bearer(token)).status_code == 200


def test_rotating_keeps_the_old_key_until_its_grace_ends(client, make_app, service, settings) -> None:  # type: ignore[no-untyped-def]
    issued = make_app(webhook="https://hooks.example.com/x")
    game_id = create(client, issued.key)["game"]["id"]
    rotated = service.rotate_app_key(issued.app.id, 3600)
    assert rotated.key != issued.key and rotated.webhook_secret is None, "the secret rotates on its own"
    old_view = client.get("/v1/app", headers=bearer(issued.key))
    assert old_view.status_code == 200
    keys = old_view.get_json()["keys"]
    assert [(k["generation"], k["in_use"]) for k in keys] == [("current", False), ("previous", True)]
    assert keys[0]["expires_at"] is None and keys[1]["expires_at"] == pytest.approx(rotated.app.old_key_until, abs=0.01)
    assert rotated.key not in old_view.text and issued.key not in old_view.text
    assert client.get("/v1/app", headers=bearer(rotated.key)).get_json()["keys"][0]["in_use"] is True
    assert owned(client, rotated.key) == owned(client, issued.key) == [game_id], "the app keeps its games"
    # the grace over (its index key expired): the old key is a 401, the new one works
    service.store.apps.conn.delete(service.store.apps.key_index(rotated.app.old_key_hash))
    assert client.get("/v1/app", headers=bearer(issued.key)).status_code == 401
    assert client.get("/v1/app", headers=bearer(rotated.key)).status_code == 200


def test_a_key_is_kept_no_longer_than_its_grace(client, make_app, service) -> None:  # type: ignore[no-untyped-def]
    issued = make_app()
    rotated = service.rotate_app_key(issued.app.id, 600)
    index = service.store.apps.key_index(rotated.app.old_key_hash)
    assert 0 < service.store.apps.conn.ttl(index) <= 600, "the old key's index expires with its grace"
    again = service.rotate_app_key(issued.app.id, 600)
    assert client.get("/v1/app", headers=bearer(issued.key)).status_code == 401, "one previous key at most"
    assert client.get("/v1/app", headers=bearer(rotated.key)).status_code == 200
    now = service.rotate_app_key(issued.app.id, 0)
    for key in (issued.key, rotated.key, again.key):
        assert client.get("/v1/app", headers=bearer(key)).status_code == 401
    assert [k["generation"] for k in client.get("/v1/app", headers=bearer(now.key)).get_json()["keys"]] == ["current"]
    service.revoke_app(issued.app.id)
    assert client.get("/v1/app", headers=bearer(now.key)).status_code == 401


def test_a_rotated_secret_signs_with_both_during_its_grace(client, make_app, service) -> None:  # type: ignore[no-untyped-def]
    from api.service.webhooks import app_secrets, signed_request
    from standardwebhooks.webhooks import Webhook

    issued = make_app(webhook="https://hooks.example.com/x")
    rotated = service.rotate_webhook_secret(issued.app.id, 3600)
    assert rotated.key is None and rotated.webhook_secret not in (None, issued.webhook_secret)
    record = service.store.apps.get(issued.app.id)
    headers = signed_request(app_secrets(record), "msg_1", b"{}")
    assert len(headers["webhook-signature"].split(" ")) == 2
    for secret in (issued.webhook_secret, rotated.webhook_secret):
        assert Webhook(secret).verify(b"{}", headers) == {}
    later = signed_request(app_secrets(record, now=rotated.app.old_secret_until + 1), "msg_1", b"{}")
    assert len(later["webhook-signature"].split(" ")) == 1 and Webhook(rotated.webhook_secret).verify(b"{}", later) == {}
    secrets = client.get("/v1/app", headers=bearer(issued.key)).get_json()["webhook_secrets"]
    assert [s["generation"] for s in secrets] == ["current", "previous"]
    with pytest.raises(Exception, match="no webhook"):
        service.rotate_webhook_secret(make_app().app.id)


def test_require_app_key_refuses_anonymous_creation(settings) -> None:  # type: ignore[no-untyped-def]
    strict = create_app({"DOMINO": replace(settings, require_app_key=True), "TESTING": True})
    client = strict.test_client()
    resp = client.post("/v1/games", json={"variant": "draw", "seats": TWO_HUMANS})
    assert resp.status_code == 401 and resp.get_json()["type"] == "/problems/unauthorized"
    key = strict.extensions["domino.service"].create_app("strict", None, None, None).key
    assert create(client, key)["game"]["status"] == "playing"
    assert client.get("/v1/games?status=waiting").status_code == 200, "the lobby stays open"


def test_metadata_and_players_come_back_in_views_history_and_events(client, app_key) -> None:  # type: ignore[no-untyped-def]
    seats = [{"name": "Ana", "player": "user:1", "metadata": {"avatar": 3}}, {"bot": "greedy", "metadata": {"level": "easy"}}]
    data = create(client, app_key, seats=seats, metadata={"table": "t-17", "nested": {"a": [1, 2]}})
    game = data["game"]
    assert game["metadata"] == {"table": "t-17", "nested": {"a": [1, 2]}}
    assert game["seats"][0]["player"] == "user:1" and game["seats"][0]["metadata"] == {"avatar": 3}
    assert game["seats"][1]["metadata"] == {"level": "easy"} and "player" not in game["seats"][1]
    spectator = client.get(f"/v1/games/{game['id']}").get_json()
    assert spectator["metadata"] == game["metadata"] and spectator["seats"][0]["player"] == "user:1"
    history = client.get(f"/v1/games/{game['id']}/history").get_json()
    assert history["metadata"] == game["metadata"] and history["seats"][0]["metadata"] == {"avatar": 3}
    events = client.get(f"/v1/games/{game['id']}/events?after=-1").get_json()["events"]
    created = next(e for e in events if e["type"] == "game_created")
    assert created["metadata"] == game["metadata"] and created["seats"][0]["player"] == "user:1"
    documented = openapi_document()["components"]["schemas"]["GameCreatedEvent"]["properties"]
    assert set(created) <= set(documented), set(created) - set(documented)


def test_an_open_seat_keeps_its_player_when_claimed(client, app_key) -> None:  # type: ignore[no-untyped-def]
    game = create(client, app_key, seats=[{"name": "Ana"}, {"open": True, "player": "user:9", "metadata": {"x": 1}}])["game"]
    anyone = client.post(f"/v1/games/{game['id']}/seats/1", json={"name": "Bo"})
    assert anyone.status_code == 403, "the app's player's seat is the app's to claim"
    claimed = client.post(f"/v1/games/{game['id']}/seats/1", json={"name": "Bo"}, headers={"Authorization": f"Bearer {app_key}"})
    assert claimed.status_code == 201
    assert claimed.get_json()["game"]["seats"][1] | {"hand_count": None} == {
        "seat": 1, "name": "Bo", "kind": "human", "player": "user:9", "metadata": {"x": 1}, "hand_count": None,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"metadata": {"blob": "x" * 1100}}, ["metadata"]),
        ({"seats": [{"name": "Ana"}, {"name": "Bo", "metadata": {"blob": "x" * 1100}}]}, ["seats", "1", "metadata"]),
        ({"seats": [{"name": "Ana", "player": "no spaces"}, {"name": "Bo"}]}, ["seats", "0", "player"]),
        ({"metadata": ["not", "an", "object"]}, ["metadata"]),
    ],
)
def test_bad_metadata_or_player_is_a_422_naming_the_field(client, app_key, body, where) -> None:  # type: ignore[no-untyped-def]
    resp = client.post("/v1/games", json={"variant": "draw", "seats": TWO_HUMANS, **body}, headers=bearer(app_key))
    assert resp.status_code == 422, resp.get_json()
    node = resp.get_json()["errors"]["json"]
    for part in where:
        node = node[part]
    assert node, resp.get_json()
    assert owned(client, app_key) == [], "nothing was created"


def test_metadata_of_exactly_1_kb_is_accepted(client, app_key) -> None:  # type: ignore[no-untyped-def]
    meta = {"b": "x" * (1024 - len('{"b":""}'))}
    assert create(client, app_key, metadata=meta)["game"]["metadata"] == meta


def test_owner_listing_pages_newest_first_and_filters_by_status_and_player(client, app_key) -> None:  # type: ignore[no-untyped-def]
    ids = []
    for i in range(5):
        seats = [{"name": "Ana", "player": "user:1" if i % 2 == 0 else "user:2"}, {"name": "Bo"}]
        ids.append(create(client, app_key, seats=seats)["game"]["id"])
    waiting = create(client, app_key, seats=[{"name": "Ana"}, {"open": True}])["game"]["id"]
    ids.append(waiting)
    newest_first = ids[::-1]
    seen, url = [], "/v1/games?owner=me&limit=2"
    while url:
        page = client.get(url, headers=bearer(app_key)).get_json()
        assert len(page["games"]) <= 2
        seen += [g["id"] for g in page["games"]]
        url = page["next"]
    assert seen == newest_first
    # one more, finished: its first seat resigns
    game = create(client, app_key, seats=[{"name": "Cy", "player": "user:3"}, {"name": "Di"}])
    finished = game["game"]["id"]
    resign = client.post(f"/v1/games/{finished}/resign", headers=bearer(game["tokens"][0]["token"]))
    assert resign.status_code == 200 and resign.get_json()["status"] == "finished"
    assert owned(client, app_key, "&status=finished") == [finished]
    assert owned(client, app_key, "&status=waiting") == [waiting]
    assert set(owned(client, app_key, "&status=playing")) == set(ids) - {waiting}
    assert owned(client, app_key, "&player=user:1") == [ids[4], ids[2], ids[0]]
    assert owned(client, app_key, "&player=user:3&status=finished") == [finished]
    entry = client.get("/v1/games?owner=me&status=finished", headers=bearer(app_key)).get_json()["games"][0]
    assert entry["winners"] == [1] and entry["seats"][0]["player"] == "user:3" and entry["metadata"] is None


def test_the_lobby_is_unchanged_without_owner(client, app_key) -> None:  # type: ignore[no-untyped-def]
    listed = create(client, app_key, seats=[{"name": "Ana"}, {"open": True}])["game"]["id"]
    lobby = client.get("/v1/games?status=waiting").get_json()
    assert [g["id"] for g in lobby["games"]] == [listed]
    assert client.get("/v1/games").get_json()["games"] == lobby["games"]
    assert client.get("/v1/games?status=finished").status_code == 422, "only owner=me lists other statuses"
    assert client.get("/v1/games?player=user:1").status_code == 422, "players are an app's"


def test_an_app_has_its_own_rate_limit(client, make_app) -> None:  # type: ignore[no-untyped-def]
    slow, other = make_app(rate_limit="3/60"), make_app()
    for left in (2, 1, 0):
        resp = client.get("/v1/app", headers=bearer(slow.key))
        assert resp.status_code == 200 and resp.headers["RateLimit"].startswith(f'"app";r={left};')
    limited = client.get("/v1/games?owner=me", headers=bearer(slow.key))
    assert limited.status_code == 429 and limited.get_json()["type"] == "/problems/rate-limited"
    assert limited.headers["RateLimit-Policy"] == '"app";q=3;w=60' and int(limited.headers["Retry-After"]) > 0
    assert "this app" in limited.get_json()["detail"]
    assert client.get("/v1/app", headers=bearer(other.key)).status_code == 200, "another app counts apart"
    anonymous = client.get("/v1/variants")
    assert anonymous.status_code == 200 and anonymous.headers["RateLimit-Policy"].startswith('"default"')


def test_an_apps_limits_hold_across_api_processes(settings, make_app) -> None:  # type: ignore[no-untyped-def]
    """Two API processes (two apps on one Redis) count one app's requests and games together."""
    issued = make_app(rate_limit="4/60", max_games=1)
    first, second = (create_app({"DOMINO": settings, "TESTING": True}).test_client() for _ in range(2))
    assert create(first, issued.key)
    refused = second.post("/v1/games", json={"variant": "draw", "seats": TWO_HUMANS}, headers=bearer(issued.key))
    assert refused.status_code == 429 and refused.get_json()["type"] == "/problems/too-many-app-games"
    assert first.get("/v1/app", headers=bearer(issued.key)).status_code == 200
    assert second.get("/v1/app", headers=bearer(issued.key)).status_code == 200
    limited = first.get("/v1/app", headers=bearer(issued.key))
    assert limited.status_code == 429 and limited.get_json()["type"] == "/problems/rate-limited"


def test_an_app_has_its_own_cap_of_unfinished_games(client, make_app) -> None:  # type: ignore[no-untyped-def]
    capped = make_app(max_games=2)
    first = create(client, capped.key)
    create(client, capped.key)
    refused = client.post("/v1/games", json={"variant": "draw", "seats": TWO_HUMANS}, headers=bearer(capped.key))
    assert refused.status_code == 429, refused.get_json()
    assert refused.get_json()["type"] == "/problems/too-many-app-games" and int(refused.headers["Retry-After"]) > 0
    assert client.post("/v1/games", json={"variant": "draw", "seats": TWO_HUMANS}).status_code == 201, "anonymous: its own cap"
    assert create(client, make_app(max_games=1).key), "another app: its own cap"
    game_id, token = first["game"]["id"], first["tokens"][0]["token"]
    assert client.post(f"/v1/games/{game_id}/resign", headers=bearer(token)).status_code == 200
    assert create(client, capped.key), "a finished game frees its slot"


def test_app_keys_never_reach_the_access_log() -> None:
    from workers.accesslog import redact

    key = "dsk_app_" + "Q" * 43
    line = redact(f"GET /v1/games?owner=me&key={key} HTTP/1.1")
    assert key not in line and "Q" * 10 not in line and "dsk_app_..." in line


def _admin(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workers.admin", *args], capture_output=True, text=True, env=dict(os.environ), cwd=ROOT, timeout=60
    )


def _admin_here(*args: str) -> subprocess.CompletedProcess[str]:
    """``domino-admin`` run in this process, as its console script calls it (``workers.admin.main``), for the
    quick tier: a process each costs more than the test (the slow test above runs the command itself)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = admin.main(list(args))
        except SystemExit as exit:  # argparse refusing the arguments
            code = int(exit.code or 0)
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


@pytest.mark.slow
def test_domino_admin_makes_lists_rotates_and_revokes_apps(client) -> None:  # type: ignore[no-untyped-def]
    made = _admin("apps", "create", "cli-app", "--webhook", "https://hooks.example.com/d", "--rate-limit", "100/10", "--max-games", "5")
    assert made.returncode == 0, made.stderr
    key = re.search(r"^key: (dsk_app_\S+)$", made.stdout, re.M).group(1)  # type: ignore[union-attr]
    assert re.search(r"^webhook secret: whsec_\S+$", made.stdout, re.M)
    app = client.get("/v1/app", headers=bearer(key)).get_json()
    assert (app["name"], app["rate_limit"], app["max_games"]) == ("cli-app", "100/10", 5)
    assert _admin("apps", "create", "cli-app").returncode == 2, "names are unique"
    listed = _admin("apps", "list")
    assert listed.returncode == 0 and "cli-app" in listed.stdout and "active" in listed.stdout
    assert key not in listed.stdout and "whsec_" not in listed.stdout
    assert _admin("apps", "rotate", "cli-app", "--grace", "soon").returncode == 2
    rotated = _admin("apps", "rotate", "cli-app", "--grace", "2h")
    new_key = re.search(r"^key: (dsk_app_\S+)$", rotated.stdout, re.M).group(1)  # type: ignore[union-attr]
    assert "keeps working until" in rotated.stdout and "whsec_" not in rotated.stdout
    assert client.get("/v1/app", headers=bearer(key)).status_code == 200, "in its grace"
    secret = _admin("apps", "rotate-secret", "cli-app", "--grace", "0")
    assert re.search(r"^webhook secret: whsec_\S+$", secret.stdout, re.M) and "no longer works" in secret.stdout
    assert _admin("apps", "rotate", "cli-app", "--grace", "0").returncode == 0
    assert client.get("/v1/app", headers=bearer(key)).status_code == 401
    assert client.get("/v1/app", headers=bearer(new_key)).status_code == 401
    assert _admin("apps", "revoke", app["id"]).returncode == 0
    assert "revoked" in _admin("apps", "list").stdout
    assert _admin("apps", "revoke", "no-such-app").returncode == 2


def test_a_status_filter_pages_on_past_the_games_it_skips(client, app_key) -> None:  # type: ignore[no-untyped-def]
    """A page reads at most five times `limit` games: one full of skipped games is empty, with `next`."""
    done = create(client, app_key)
    token = done["tokens"][0]["token"]
    assert client.post(f"/v1/games/{done['game']['id']}/resign", headers=bearer(token)).status_code == 200
    for _ in range(6):
        create(client, app_key)
    first = client.get("/v1/games?owner=me&status=finished&limit=1", headers=bearer(app_key)).get_json()
    assert first["games"] == [] and first["next"] is not None
    second = client.get(first["next"], headers=bearer(app_key)).get_json()
    assert [g["id"] for g in second["games"]] == [done["game"]["id"]] and second["next"] is None


def test_domino_admin_subscribes_an_app_to_turn_events(client) -> None:  # type: ignore[no-untyped-def]
    refused = _admin_here("apps", "create", "turns-app", "--webhook", "https://hooks.example.com/d", "--events", "game.started,turn.begun")
    assert refused.returncode == 2 and "'turn.begun'" in refused.stderr and "turn.reminder" in refused.stderr
    assert "turns-app" not in _admin_here("apps", "list").stdout, "nothing made"
    made = _admin_here("apps", "create", "turns-app", "--webhook", "https://hooks.example.com/d", "--events", "turn.started,game.ended")
    assert made.returncode == 0, made.stderr
    key = re.search(r"key: (\S+)", made.stdout).group(1)  # type: ignore[union-attr]
    assert client.get("/v1/app", headers=bearer(key)).get_json()["events"] == ["game.ended", "turn.started"]
    assert _admin_here("apps", "update", "turns-app", "--events", "nope").returncode == 2
    assert client.get("/v1/app", headers=bearer(key)).get_json()["events"] == ["game.ended", "turn.started"], "unchanged"
    updated = _admin_here("apps", "update", "turns-app", "--events", "turn.started,turn.reminder")
    assert updated.returncode == 0 and "turn.started,turn.reminder" in updated.stdout
    assert client.get("/v1/app", headers=bearer(key)).get_json()["events"] == ["turn.started", "turn.reminder"]
    default = _admin_here("apps", "create", "plain-app")
    plain = re.search(r"key: (\S+)", default.stdout).group(1)  # type: ignore[union-attr]
    assert client.get("/v1/app", headers=bearer(plain)).get_json()["events"] == ["game.started", "round.ended", "game.ended"]

"""GET /v1/fairplay and GET /v1/bots/{name}/fairplay (docs/analysis.md#fair-play-screen): an app's player or its
registered bot screened on request by one job on the analysis queue; the answer the pure screen gives; only the
owner's key; idempotent per set of games; games read once; capped per client; bad input."""

from __future__ import annotations

import contextlib
import io
import json
import threading
from dataclasses import replace
from typing import Any

import pytest
from support import (
    assert_problem,
    blocked_clients,
    eventually,
    play_out,
    screened_tally,
    work_burst,
)

import api.service.fairplay as screens
from api.app import create_app
from api.queues import ARCHIVE, BOT_GAMES, BOTS, Queues
from domino.analysis import positions
from domino.analysis.fairplay import Tally, screen
from workers import admin

NODES = 300


@pytest.fixture
def settings(settings, monkeypatch):  # type: ignore[no-untyped-def]
    """Small budgets: a few hundred simulator moves a position (``domino-admin``'s too)."""
    monkeypatch.setenv("DOMINO_ANALYSIS_NODES", str(NODES))
    return replace(settings, analysis_nodes=NODES)


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _archived(service, run_archive) -> None:  # type: ignore[no-untyped-def]
    service.archiving.enqueue()
    assert run_archive()


def _queued(service) -> int:  # type: ignore[no-untyped-def]
    return Queues(service.store).analysis.count  # type: ignore[no-any-return]


def _expected(client, game_ids: list[str], seat: int = 0) -> Tally:
    return screened_tally({g: client.get(f"/v1/games/{g}/record").get_json() for g in game_ids}, seat, NODES)


def _operator(*args: str) -> tuple[int, Any]:
    """``domino-admin`` run in this process (as its console script calls it): (exit code, the JSON it printed)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = admin.main(list(args))
    return code, json.loads(out.getvalue()) if code == 0 else None


def test_an_apps_player_is_screened_once_and_the_answer_is_the_pure_screens(  # type: ignore[no-untyped-def]
    client, service, make_app, run_bots, run_archive, run_analyses
):
    app = make_app()
    games = [play_out(client, app.key, {"name": "Ana", "player": "u-ana"}, run_bots) for _ in range(2)]
    play_out(client, app.key, {"name": "Bo", "player": "u-bo"}, run_bots)  # another player's
    _archived(service, run_archive)
    url = "/v1/fairplay?player=u-ana&games=5"

    first = client.get(url, headers=_auth(app.key))
    assert first.status_code == 202, first.get_json()
    queued = first.get_json()
    assert queued["status"] == "queued" and queued["progress"] == 0.0 and queued["nodes"] == NODES
    assert queued["subject"] == {"player": "u-ana"} and queued["games_asked"] == 5
    assert [g["game_id"] for g in queued["games"]] == games[::-1], "newest first, only Ana's"
    assert all(g["seats"] == [0] and g["partners"] == [] for g in queued["games"])
    again = client.get(url, headers=_auth(app.key))
    assert again.status_code == 202 and again.get_json() == queued, "the same screen"
    assert _queued(service) == 1, "one job"

    assert run_analyses()
    done = client.get(url, headers=_auth(app.key))
    assert done.status_code == 200
    answer = done.get_json()
    assert answer["status"] == "done" and answer["progress"] == 1.0 and answer["team"] is None
    expected = screen(_expected(client, games))
    seat = answer["seat"]
    assert {k: seat[k] for k in expected.to_dict()} == expected.to_dict(), "the pure screen's figures"
    assert seat["games"] == 2 and seat["positions"] == answer["positions_total"] > 0
    assert seat["flag"] is False and "expert" in seat["explains"]
    assert client.get(url, headers=_auth(app.key)).get_json() == answer
    assert _queued(service) == 0, "done: nothing queued again"
    assert service.archive.screen(answer["id"]) == answer, "kept in the archive"


def test_a_new_game_makes_a_new_screen_that_reads_only_that_game(  # type: ignore[no-untyped-def]
    client, service, make_app, run_bots, run_archive, run_analyses
):
    app = make_app()
    first_game = play_out(client, app.key, {"name": "Ana", "player": "u-ana"}, run_bots)
    _archived(service, run_archive)
    url = "/v1/fairplay?player=u-ana"
    client.get(url, headers=_auth(app.key))
    run_analyses()
    before = client.get(url, headers=_auth(app.key)).get_json()
    assert before["status"] == "done" and before["games_asked"] == 20 and len(before["games"]) == 1

    second_game = play_out(client, app.key, {"name": "Ana", "player": "u-ana"}, run_bots)
    _archived(service, run_archive)
    after = client.get(url, headers=_auth(app.key)).get_json()
    assert after["id"] != before["id"] and after["status"] == "queued"
    run_analyses()
    after = client.get(url, headers=_auth(app.key)).get_json()
    new_positions = sum(1 for p in positions(client.get(f"/v1/games/{second_game}/record").get_json()) if p.seat == 0)
    assert after["seat"]["positions"] == before["seat"]["positions"] + new_positions
    assert [g["game_id"] for g in after["games"]] == [second_game, first_game]
    kept = service.archive.readings([first_game, second_game], NODES)
    assert set(kept) == {(first_game, 0), (second_game, 0)}, "each game's seat read once, and kept"

    erased = client.delete("/v1/app/players/u-ana", headers=_auth(app.key))
    assert erased.status_code == 200
    assert service.archive.screen(after["id"]) is None and service.archive.screen(before["id"]) is None, "its screens go"
    assert_problem(client.get(url, headers=_auth(app.key)), 404, "not-found")


def test_in_a_team_game_the_side_is_screened_too(client, service, app_key, run_bots, run_archive, run_analyses):  # type: ignore[no-untyped-def]
    rules = {"teams": "partners_opposite", "match_end": "fixed_rounds", "rounds": 1}
    team_game = play_out(client, app_key, {"name": "Ana", "player": "u-ana"}, run_bots, rules=rules, variant="block", players=4)
    alone = play_out(client, app_key, {"name": "Ana", "player": "u-ana"}, run_bots)
    _archived(service, run_archive)
    url = "/v1/fairplay?player=u-ana&games=2"
    queued = client.get(url, headers=_auth(app_key)).get_json()
    assert queued["games"] == [{"game_id": alone, "seats": [0], "partners": []},
                               {"game_id": team_game, "seats": [0], "partners": [2]}]  # fmt: skip
    run_analyses()
    done = client.get(url, headers=_auth(app_key)).get_json()
    own = _expected(client, [alone, team_game])
    side = _expected(client, [team_game]) + _expected(client, [team_game], seat=2)
    assert done["seat"]["positions"] == own.positions and done["seat"]["games"] == 2
    assert done["team"]["positions"] == side.positions and done["team"]["games"] == 1
    assert {k: done["team"][k] for k in screen(side).to_dict()} == screen(side).to_dict()


def test_a_mexican_train_player_is_screened_as_in_line_games(client, service, app_key, run_bots, run_archive, run_analyses):  # type: ignore[no-untyped-def]
    game_id = play_out(client, app_key, {"name": "Ana", "player": "u-ana"}, run_bots, variant="mexican_train", players=3)
    _archived(service, run_archive)
    client.get("/v1/fairplay?player=u-ana", headers=_auth(app_key))
    run_analyses()
    done = client.get("/v1/fairplay?player=u-ana", headers=_auth(app_key)).get_json()
    expected = screen(_expected(client, [game_id])).to_dict()
    assert done["status"] == "done" and {k: done["seat"][k] for k in expected} == expected
    assert done["seat"]["explains"].startswith(f"Over {expected['positions']} moves with a choice in 1 game, player u-ana ")


def test_a_bots_owner_screens_its_bot_and_nobody_else_sees_a_screen(  # type: ignore[no-untyped-def]
    client, service, make_app, register_bot, app_key, run_bots, run_archive, run_analyses
):
    bot = register_bot("peeky")
    game_id = play_out(client, app_key, {"bot": "peeky"}, run_bots, token=bot["token"])
    play_out(client, app_key, {"name": "Ana", "player": "u-ana"}, run_bots)
    _archived(service, run_archive)
    url = "/v1/bots/peeky/fairplay?games=3"
    queued = client.get(url, headers=_auth(app_key))
    assert queued.status_code == 202 and queued.get_json()["subject"] == {"bot": "peeky"}
    assert [g["game_id"] for g in queued.get_json()["games"]] == [game_id]
    run_analyses()
    done = client.get(url, headers=_auth(app_key)).get_json()
    assert done["status"] == "done" and done["seat"]["positions"] == _expected(client, [game_id]).positions

    assert _operator("fairplay", "bot", "peeky", "--games", "3") == (0, done), "the operator reads it too"
    player = client.get("/v1/fairplay?player=u-ana", headers=_auth(app_key)).get_json()
    assert _operator("fairplay", "player", service.authenticate_app(app_key).name, "u-ana") == (0, player)
    assert _operator("fairplay", "bot", "nobody-here")[0] == 1
    assert _operator("fairplay", "player", "no-such-app", "u-ana")[0] == 2

    other = make_app()
    assert_problem(client.get(url, headers=_auth(other.key)), 403, "forbidden")
    assert_problem(client.get("/v1/fairplay?player=u-ana", headers=_auth(other.key)), 404, "not-found")
    assert_problem(client.get(url), 401, "unauthorized")
    assert_problem(client.get("/v1/fairplay?player=u-ana"), 401, "unauthorized")
    assert_problem(client.get(url, headers=_auth(bot["token"])), 401, "unauthorized")
    assert_problem(client.get("/v1/fairplay?player=u-ana", headers=_auth("dsk_app_" + "x" * 43)), 401, "unauthorized")
    assert_problem(client.get("/v1/bots/nobody-here/fairplay", headers=_auth(app_key)), 404, "not-found")
    assert_problem(client.get("/v1/bots/greedy/fairplay", headers=_auth(app_key)), 404, "not-found")


def test_bad_input_is_refused_and_nothing_is_queued(client, service, app_key):  # type: ignore[no-untyped-def]
    auth = _auth(app_key)
    assert_problem(client.get("/v1/fairplay?player=nobody", headers=auth), 404, "not-found")
    for bad in ("games=0", "games=101", "games=x", "player=u-ana&games=0", "player=u-ana&games=101",
                "player=" + "x" * 65, "player=a%20b", "player=u-ana&wait=31", "player=u-ana&nodes=5"):  # fmt: skip
        assert_problem(client.get(f"/v1/fairplay?{bad}", headers=auth), 422, "invalid-request")
    assert_problem(client.get("/v1/bots/x/fairplay?games=101", headers=auth), 422, "invalid-request")
    assert _queued(service) == 0


def test_too_many_screens_queued_by_one_client_is_a_429_with_retry_after(  # type: ignore[no-untyped-def]
    settings, make_app, run_bots
):
    app = create_app({"DOMINO": replace(settings, analyses_per_client=1, capacity_retry_after=7), "TESTING": True})
    client = app.test_client()
    service = app.extensions["domino.service"]
    owner = service.create_app("fp-app", None, None, None)
    for player in ("u-ana", "u-bo"):
        play_out(client, owner.key, {"name": "X", "player": player}, lambda: _run_bots(service))
    service.archiving.enqueue()
    assert work_burst(service, (ARCHIVE,))
    alice = {"REMOTE_ADDR": "10.0.0.1"}
    assert client.get("/v1/fairplay?player=u-ana", headers=_auth(owner.key), environ_base=alice).status_code == 202
    refused = client.get("/v1/fairplay?player=u-bo", headers=_auth(owner.key), environ_base=alice)
    assert_problem(refused, 429, "too-many-analyses")
    assert refused.headers["Retry-After"] == "7"
    again = client.get("/v1/fairplay?player=u-ana", headers=_auth(owner.key), environ_base=alice)
    assert again.status_code == 202, "its own: the same one"
    other = client.get("/v1/fairplay?player=u-bo", headers=_auth(owner.key), environ_base={"REMOTE_ADDR": "10.0.0.2"})
    assert other.status_code == 202, "another client"


def _run_bots(service) -> bool:  # type: ignore[no-untyped-def]
    return work_burst(service, (BOTS, BOT_GAMES))


def test_a_long_poll_answers_when_the_screen_is_done(  # type: ignore[no-untyped-def]
    client, service, app_key, run_bots, run_archive, run_analyses
):
    play_out(client, app_key, {"name": "Ana", "player": "u-ana"}, run_bots)
    _archived(service, run_archive)
    url = "/v1/fairplay?player=u-ana&games=1"
    assert client.get(url, headers=_auth(app_key)).status_code == 202
    conn = service.store.queue_redis
    waiting = blocked_clients(conn, "xread")
    answer: dict[str, Any] = {}
    poll = threading.Thread(target=lambda: answer.update(client.get(f"{url}&wait=30", headers=_auth(app_key)).get_json()))
    poll.start()
    eventually(lambda: blocked_clients(conn, "xread") > waiting, "the long poll waits")
    run_analyses()
    poll.join(60)
    assert answer["status"] == "done" and answer["seat"]["games"] == 1


def test_a_games_kept_analysis_gives_the_screen_its_values(  # type: ignore[no-untyped-def]
    client, service, app_key, run_bots, run_archive, run_analyses, monkeypatch
):
    game_id = play_out(client, app_key, {"name": "Ana", "player": "u-ana"}, run_bots)
    _archived(service, run_archive)
    assert client.post(f"/v1/games/{game_id}/analysis").status_code == 202
    run_analyses()

    def not_again(*args: Any) -> None:
        raise AssertionError("the mover's values were analysed again")

    monkeypatch.setattr(screens, "analyse_position", not_again)
    url = "/v1/fairplay?player=u-ana"
    client.get(url, headers=_auth(app_key))
    run_analyses()
    done = client.get(url, headers=_auth(app_key)).get_json()
    expected = screen(_expected(client, [game_id])).to_dict()
    assert done["status"] == "done" and {k: done["seat"][k] for k in expected} == expected

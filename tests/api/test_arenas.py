"""Arenas over HTTP with real RQ workers: real rated games between bots (built-in and registered), duplicate
deals, a cap on an arena's games at once (never waiting for another arena), standings, and the caps on an
arena's size. (Who may create, list, cancel and enter what: test_arena_owners.py.)"""

from __future__ import annotations

import re
import threading
from dataclasses import replace as replace_settings
from typing import Any

import pytest

from support import eventually

FAST = {"target_score": 30}


@pytest.fixture
def bot_turn_timeout() -> float:
    """A registered bot's turn deadline (``Settings.bot_turn_timeout``): the default, unless a test names its own."""
    return 30.0


@pytest.fixture
def settings(settings, bot_turn_timeout):  # type: ignore[no-untyped-def]
    """One game in play per arena at once, so that the cap shows."""
    return replace_settings(settings, arena_games_per_bot=1, bot_turn_timeout=bot_turn_timeout)


@pytest.fixture
def client(client, app_key):  # type: ignore[no-untyped-def]
    """Every request with this test's app key: an arena has an owner."""
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {app_key}"
    return client


def _arena(client, **body: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    resp = client.post("/v1/arenas", json={"variant": "draw", "rules": FAST, **body})
    assert resp.status_code == 202, resp.get_json()
    assert resp.headers["Location"] == f"/v1/arenas/{resp.get_json()['id']}"
    return resp.get_json()  # type: ignore[no-any-return]


def _get(client, arena_id: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    resp = client.get(f"/v1/arenas/{arena_id}")
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()  # type: ignore[no-any-return]


@pytest.mark.slow
def test_an_arena_plays_every_seating_of_every_deal_one_game_per_bot_at_a_time(client, run_bots):
    arena = _arena(client, bots=["greedy", "random"], deals=2)
    assert arena["status"] == "running" and arena["games_total"] == 4 and arena["seatings"] == 2
    assert arena["games_started"] == 1 and arena["games_playing"] == 1, "one game per bot at once"
    most_at_once = 0
    for _ in range(2000):  # one job at a time: a bot turn, or the end of a game (rated, counted, the next started)
        if not run_bots(max_jobs=1):
            break
        now = _get(client, arena["id"])
        most_at_once = max(most_at_once, now["games_playing"])
    done = _get(client, arena["id"])
    assert done["status"] == "finished" and done["games_done"] == 4 and done["finished_at"]
    assert most_at_once == 1

    games = done["games"]
    assert [g["seats"] for g in games] == [["greedy", "random"], ["random", "greedy"]] * 2
    assert [g["deal"] for g in games] == [0, 0, 1, 1]
    views = [client.get(f"/v1/games/{g['id']}").get_json() for g in games]
    assert all(v["rated"] and v["status"] == "finished" and not v["client_seeded"] for v in views)
    assert [[s["name"] for s in v["seats"]] for v in views] == [g["seats"] for g in games]
    deals = [client.get(f"/v1/games/{g['id']}/history").get_json()["deals"][0]["hands"] for g in games]
    assert deals[0] == deals[1] and deals[2] == deals[3] and deals[0] != deals[2], "a deal is dealt the same in its seatings"
    # The seed a finished game reveals tells nothing of the other deals: no shared part to complete.
    histories = [client.get(f"/v1/games/{g['id']}/history").get_json() for g in games]
    seeds = [h["seed"] for h in histories]
    assert seeds[0] == seeds[1] and seeds[2] == seeds[3] and seeds[0] != seeds[2]
    assert {h["deal_version"] for h in histories} == {2}, "an arena deals every game by one version, today's"
    assert all(re.fullmatch(r"[0-9a-f]{64}", seed) for seed in seeds), seeds

    standings = {s["bot"]: s for s in done["standings"]}
    assert set(standings) == {"greedy", "random"}
    assert all(s["games"] == 4 for s in standings.values())
    assert sum(s["wins"] for s in standings.values()) == sum(len(g["winners"]) for g in games)
    for s in standings.values():
        low, high = s["win_rate_ci95"]
        assert low <= s["win_rate"] <= high
        assert s["by_deal"]["deals"] == 2 and s["rating"]["games"] == 4
    ranked = [s["bot"] for s in done["standings"]]
    assert standings[ranked[0]]["win_rate"] >= standings[ranked[1]]["win_rate"]
    board = {r["name"]: r for r in client.get("/v1/ratings/draw").get_json()["ratings"]}
    assert board["greedy"]["games"] == board["random"]["games"] == 4


@pytest.mark.slow
def test_an_arena_game_ended_twice_counts_once(client, service, run_bots):
    arena = _arena(client, bots=["greedy", "random"], deals=1)
    run_bots()
    done = _get(client, arena["id"])
    assert done["status"] == "finished"
    for game in done["games"]:
        assert service.rate_game(game["id"]).startswith("already rated; counted before")
    again = _get(client, arena["id"])
    assert again["games_done"] == 2 and again["standings"] == done["standings"]


def test_the_sweep_starts_the_games_a_lost_step_did_not(client, service, run_bots):
    arena = _arena(client, bots=["greedy", "random"], deals=1, duplicate=False)
    assert arena["games_total"] == 1 and arena["games_started"] == 1
    # Forget that the game was started (a worker died between creating it and writing it down).
    service.store.arenas.conn.hdel(service.store.arenas.key(arena["id"]), "g:0")
    assert service.sweep().arenas == [arena["id"]]
    assert _get(client, arena["id"])["games"][0]["id"] == arena["games"][0]["id"], "the same game, not a second one"
    run_bots()
    assert _get(client, arena["id"])["status"] == "finished"


@pytest.mark.parametrize(
    "body, where",
    [
        ({"bots": ["greedy", "random"], "deals": 0}, "deals"),
        ({"bots": ["greedy", "random"], "deals": 101}, "deals"),  # DOMINO_ARENA_MAX_DEALS
        ({"bots": ["greedy", "random", "club", "expert"], "deals": 42}, "deals"),  # 24 seatings: 1008 games
        ({"bots": ["greedy", "greedy"], "deals": 1}, "bots"),
        ({"bots": ["greedy", "nobody"], "deals": 1}, "bots"),
        ({"bots": ["greedy", "random", "club", "expert", "greedy2"], "deals": 1}, "bots"),  # five seats in a line game
        ({"bots": ["greedy", "random"], "deals": 1, "rules": {"target_score": 1000}}, "rules"),
    ],
    ids=["no-deals", "too-many-deals", "too-many-games", "same-bot", "unknown-bot", "too-many-players", "too-long"],
)
def test_an_arena_over_its_caps_or_with_bad_bots_is_refused(client, service, body, where):
    resp = client.post("/v1/arenas", json={"variant": "draw", **body})
    assert resp.status_code == 422, resp.get_json()
    assert list(resp.get_json()["errors"]["json"]) == [where], resp.get_json()
    assert service.store.arenas.running() == []


def test_a_bot_the_arena_cannot_seat_is_named_by_its_place_in_bots(client):
    resp = client.post("/v1/arenas", json={"variant": "draw", "bots": ["greedy", "nobody"], "deals": 1})
    assert resp.status_code == 422 and "'nobody'" in resp.get_json()["detail"]
    assert list(resp.get_json()["errors"]["json"]["bots"]) == ["1"], resp.get_json()


def test_an_unknown_arena_is_a_404(client):
    assert client.get("/v1/arenas/aaaaaaaaaaaaaaaa").status_code == 404
    assert client.get("/v1/arenas/not-an-id").status_code == 404


def _drive_from_stream(app, token: str, stop: threading.Event, moves: list[str]) -> None:  # type: ignore[no-untyped-def]
    """A registered bot: read its stream, play the first legal move of each turn."""
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    after = None
    while not stop.is_set():
        query = {"wait": 0.05, **({"after": after} if after else {})}
        page = client.get("/v1/bot/events", query_string=query, headers=headers).get_json()
        after = page.get("last_id") or after
        for notice in page.get("events", []):
            if notice["type"] == "turn":
                move = {**notice["legal_moves"][0], "expected_version": notice["version"]}
                resp = client.post(notice["move_url"], json=move, headers=headers)
                moves.append(notice["game_id"]) if resp.status_code == 200 else None


@pytest.mark.slow
def test_an_arena_with_a_registered_bot_driven_by_its_stream(app, client, register_bot, run_bots):
    bot = register_bot("streamer", variants=("draw",))
    stop = threading.Event()
    moves: list[str] = []
    thread = threading.Thread(target=_drive_from_stream, args=(app, bot["token"], stop, moves), daemon=True)
    thread.start()
    try:
        arena = _arena(client, bots=["greedy", "random", "streamer"], deals=1)
        assert arena["games_total"] == 6

        def finished() -> bool:
            run_bots()
            return bool(_get(client, arena["id"])["status"] == "finished")

        eventually(finished, "the arena finished", 120)
    finally:
        stop.set()
        thread.join(10)
    done = _get(client, arena["id"])
    assert done["status"] == "finished", done["games_done"]
    assert set(moves) == {g["id"] for g in done["games"]}, "the registered bot moved in every game"
    standings = {s["bot"]: s for s in done["standings"]}
    assert standings["streamer"]["games"] == 6 and standings["streamer"]["rating"]["kind"] == "registered"
    board = {r["name"]: r for r in client.get("/v1/ratings/draw").get_json()["ratings"]}
    assert board["streamer"]["kind"] == "registered" and board["streamer"]["games"] == 6
    listed = {b["id"]: b for b in client.get("/v1/bots").get_json()}
    assert listed["streamer"]["ratings"]["draw"]["games"] == 6 and listed["greedy"]["ratings"]["draw"]["games"] == 6


@pytest.mark.slow
def test_a_step_that_runs_late_takes_no_slot_of_a_game_that_has_ended(client, service, run_bots):
    arena = _arena(client, bots=["greedy", "random"], deals=2, duplicate=False)
    while _get(client, arena["id"])["games_done"] < 1:
        assert run_bots(max_jobs=1)
    now = _get(client, arena["id"])
    first, second = now["games"]
    assert first["status"] == "finished" and second["status"] == "playing"
    arenas = service.store.arenas
    # The step that created game 0 writes it down only now, after it ended, was counted and gave its slots back.
    arenas.conn.hdel(arenas.key(arena["id"]), "g:0")
    assert service.arenas.advance(arena["id"]) == 0
    held = {m.decode() for m in arenas.conn.zrange(arenas.playing_key(arena["id"]), 0, -1)}
    assert held == {f"{arena['id']}:1"}, "game 0's slot stays free"
    assert _get(client, arena["id"])["games"][0]["id"] == first["id"]


@pytest.mark.parametrize("bot_turn_timeout", [0.05])  # its turn begun before it retired ends at its deadline
def test_an_arena_stops_when_a_registered_bot_can_no_longer_be_seated(client, service, register_bot, app_key, run_bots):
    bot = register_bot("leaver", variants=("draw",))
    arena = _arena(client, bots=["greedy", "leaver"], deals=2, duplicate=False)
    game_id = arena["games"][0]["id"]
    assert client.delete("/v1/bots/leaver", headers={"Authorization": f"Bearer {app_key}"}).status_code in (200, 204)
    resign = client.post(f"/v1/games/{game_id}/resign", headers={"Authorization": f"Bearer {bot['token']}"})
    assert resign.status_code == 401, "a retired bot's token stops at once"

    def played_out() -> bool:  # the server moves for the retired bot until the game ends (a turn begun before it
        # retired at that turn's deadline, its later turns at once)
        while service.sweep().timeouts or run_bots():
            pass  # each of its turns is due once the last is played: no wait between them
        return client.get(f"/v1/games/{game_id}").get_json()["status"] == "finished"

    eventually(played_out, "the server played the retired bot's seat to the end", 180, 0.2)
    failed = _get(client, arena["id"])
    assert failed["status"] == "failed" and "retired" in failed["error"], failed["error"]
    assert failed["games_done"] == 1 and failed["games"][1]["status"] == "pending"
    assert service.store.arenas.running() == []
    assert service.sweep().arenas == []


@pytest.mark.slow
def test_each_arena_has_its_own_cap_and_none_waits_for_another_with_the_same_bots(client, service, run_bots):
    first = _arena(client, bots=["greedy", "random"], deals=1)
    second = _arena(client, bots=["random", "greedy"], deals=1)
    assert first["games_started"] == 1 and second["games_started"] == 1, "the bots' seats count per arena"
    most_at_once = {first["id"]: 0, second["id"]: 0}
    while run_bots(max_jobs=1):
        for arena_id in most_at_once:
            most_at_once[arena_id] = max(most_at_once[arena_id], _get(client, arena_id)["games_playing"])
    assert [_get(client, a["id"])["status"] for a in (first, second)] == ["finished", "finished"]
    assert set(most_at_once.values()) == {1}


def test_a_duplicate_deal_is_revealed_only_when_the_whole_arena_is_over(client, run_bots):
    arena = _arena(client, bots=["greedy", "random"], deals=1)
    while _get(client, arena["id"])["games_done"] < 1:  # one game in play at once: the first ends, its twin waits
        assert run_bots(max_jobs=1)
    first, twin = _get(client, arena["id"])["games"]
    assert first["status"] == "finished" and twin["status"] == "playing"
    history = client.get(f"/v1/games/{first['id']}/history").get_json()
    assert history["status"] == "finished"
    assert not {"seed", "salt", "deals"} & set(history), "the seed would tell every hand of the twin in play"
    assert all("lead" not in e for e in history["events"]), "nor the private part of its events"
    record = client.get(f"/v1/games/{first['id']}/record")
    assert record.status_code == 409 and "arena" in record.get_json()["detail"]
    run_bots()
    assert _get(client, arena["id"])["status"] == "finished"
    revealed = client.get(f"/v1/games/{first['id']}/history").get_json()
    assert revealed["seed"] == client.get(f"/v1/games/{twin['id']}/history").get_json()["seed"]
    assert client.get(f"/v1/games/{first['id']}/record").status_code == 200

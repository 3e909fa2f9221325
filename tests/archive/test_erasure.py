"""`DELETE /v1/app/players/{player}`: an app's player erased from its live and archived games, on SQLite and on
the suite's private PostgreSQL; the moves and scores stay."""

from __future__ import annotations

import orjson

from api.service.erasure import TOMBSTONE
from conftest import Player
from support import assert_problem
from test_archive import archive_url, bearer, finished_game  # noqa: F401  (archive_url: a fixture, both dialects)

GONE = "user:gone"


def every_read(client, game_id: str, players: dict[int, Player]) -> bytes:  # type: ignore[no-untyped-def]
    """Every read of a game by each seat and the spectator, and its record once it is over, as one text."""
    out = []
    for reader in [*players.values(), Player(client, game_id, None)]:
        out += [reader.view().data, reader.history().data]
        out.append(client.get(f"/v1/games/{game_id}/events?after=-1", headers=reader.headers).data)
    for accept in ("application/json", "text/x-domino-record"):
        out.append(client.get(f"/v1/games/{game_id}/record", headers={"Accept": accept}).data)
    return b"\n".join(out)


def erase(client, key: str, player: str = GONE):  # type: ignore[no-untyped-def]
    return client.delete(f"/v1/app/players/{player}", headers=bearer(key))


def played(history: dict) -> list:  # type: ignore[type-arg]
    """What erasing must leave as it was: every move and score."""
    moves = [{k: e.get(k) for k in ("type", "seat", "tile", "end", "version")} for e in history["events"] if e["type"] != "seat_claimed"]
    return [moves, [r["points"] for r in history["rounds"]], (history.get("outcome") or {}).get("winners")]


def test_a_player_is_erased_from_live_and_archived_games_and_the_play_stays(client, service, app_key, make_app) -> None:  # type: ignore[no-untyped-def]
    store = service.store
    archived, archived_players, _ = finished_game(client, app_key, player=GONE, rounds=1)
    graced, graced_players, _ = finished_game(client, app_key, player=GONE, rounds=1)
    kept, kept_players, _ = finished_game(client, app_key, player="user:stays", rounds=1)
    service.archive_games()
    assert service.archive.holds([archived, graced, kept]) == {archived, graced, kept}
    store.games.delete(archived)  # its grace has passed; the other keeps its Redis copy
    # A game in play whose open seat, named for the player, was claimed.
    created = client.post("/v1/games", headers=bearer(app_key), json={
        "variant": "draw", "seats": [{"open": True, "player": GONE, "metadata": {"rank": 3}}, {"name": "Bo"}],
    }).get_json()  # fmt: skip
    live = created["game"]["id"]
    claim = client.post(f"/v1/games/{live}/seats/0", json={"name": "Ana"}, headers=bearer(app_key))  # the app claims it
    assert claim.status_code == 201, claim.get_json()
    live_players = {0: Player(client, live, claim.get_json()["token"]), 1: Player(client, live, created["tokens"][0]["token"])}
    other_key = make_app().key
    other, other_players, _ = finished_game(client, other_key, player=GONE, rounds=1)
    before = {g: orjson.loads(Player(client, g, None).history().data) for g in (archived, graced, live)}
    version = live_players[0].view().get_json()["version"]
    untouched = {g: every_read(client, g, p) for g, p in ((kept, kept_players), (other, other_players))}
    assert b"Ana" in every_read(client, live, live_players) and GONE.encode() in every_read(client, archived, archived_players)

    resp = erase(client, app_key)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json() == {"games": 3}

    for game_id, players in ((archived, archived_players), (graced, graced_players), (live, live_players)):
        reads = every_read(client, game_id, players)
        assert b"Ana" not in reads and GONE.encode() not in reads and b"rank" not in reads, game_id
        history = orjson.loads(Player(client, game_id, None).history().data)
        seat = history["seats"][0]
        assert (seat["player"], seat["name"], "metadata" in seat) == (TOMBSTONE, TOMBSTONE, False)
        assert history["seats"][1]["name"] == "Bo" and played(history) == played(before[game_id]), "the play stays"
    claimed = [e for e in orjson.loads(Player(client, live, None).history().data)["events"] if e["type"] == "seat_claimed"]
    assert [e["name"] for e in claimed] == [TOMBSTONE]
    store.games.delete(graced)  # the archive's copy was erased too
    assert GONE.encode() not in every_read(client, graced, graced_players)
    for game_id, players in ((kept, kept_players), (other, other_players)):
        assert every_read(client, game_id, players) == untouched[game_id], "another player's, another app's game"

    # The game in play goes on at a new version; no listing finds the id, or the tombstone.
    view = live_players[0].view().get_json()
    assert view["version"] == version + 1 and view["status"] == "playing"
    mover = live_players[view["turn"]]
    move = mover.view().get_json()["legal_moves"][0]
    assert mover.move({**move, "expected_version": version + 1}).status_code == 200
    for player in (GONE, TOMBSTONE):
        listed = client.get(f"/v1/games?owner=me&player={player}", headers=bearer(app_key)).get_json()
        assert listed["games"] == [], player
    assert store.redis.exists(store.apps.player_key(service.apps.authenticate(app_key).id, GONE)) == 0
    assert erase(client, app_key).get_json() == {"games": 0}, "again: nothing is left to erase"


def test_erasing_takes_an_app_key_and_a_player_id(client, app_key) -> None:  # type: ignore[no-untyped-def]
    assert_problem(client.delete(f"/v1/app/players/{GONE}"), 401, "unauthorized")
    assert_problem(erase(client, app_key, "not%20an%20id"), 422, "invalid-request")
    assert_problem(erase(client, app_key, "x" * 65), 422, "invalid-request")
    assert erase(client, app_key, "nobody").get_json() == {"games": 0}

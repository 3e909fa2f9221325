"""Finished games move to the archive and read the same from either store: every test here runs on SQLite and
on the suite's private PostgreSQL."""

from __future__ import annotations

import time

import orjson
import pytest

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from api.archive import Archive, metadata
from api.service.archiving import entry
from archive_helpers import archive_url, bearer, finished_game
from conftest import Player

__all__ = ["archive_url"]  # a fixture: every test here runs on both dialects


def reads(client, game_id: str, players: dict[int, Player], spectator: Player) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    """Every read of a finished game, as bytes: each seat's and the spectator's view and history, the events by
    long poll and by SSE."""
    out: dict[str, bytes] = {}
    for who, reader in [*((str(s), p) for s, p in players.items()), ("spectator", spectator)]:
        for what, resp in (("view", reader.view()), ("history", reader.history())):
            assert resp.status_code == 200, (who, what, resp.get_json())
            out[f"{who} {what}"] = resp.data
        poll = client.get(f"/v1/games/{game_id}/events?after=-1", headers=reader.headers)
        out[f"{who} events"] = poll.data
        sse = client.get(f"/v1/games/{game_id}/events?after=3", headers={**reader.headers, "Accept": "text/event-stream"})
        out[f"{who} sse"] = sse.data
    return out


def without_archived(body: bytes) -> bytes:
    if not body.startswith(b"{"):
        return body
    doc = orjson.loads(body)
    assert doc.get("archived") in (True, False, None)
    doc.pop("archived", None)
    return orjson.dumps(doc)


def test_a_finished_game_moves_to_the_archive_and_reads_the_same(client, service, app_key, run_archive) -> None:  # type: ignore[no-untyped-def]
    game_id, players, spectator = finished_game(client, app_key)
    store = service.store
    assert store.archive_due.due_at(game_id) is not None, "marked before the ending commit"
    assert store.redis.ttl(store.games.state_key(game_id)) == -1, "kept without expiry until archived"
    before = reads(client, game_id, players, spectator)
    assert orjson.loads(before["0 view"])["archived"] is False
    assert spectator.view().headers["ETag"] == f'"{orjson.loads(before["0 view"])["version"]}"'

    service.archiving.enqueue()
    assert run_archive()
    assert service.archive.holds([game_id]) == {game_id}
    assert store.archive_due.due_at(game_id) is None
    ttl = store.redis.ttl(store.games.state_key(game_id))
    assert 0 < ttl <= service.settings.archived_ttl, "the grace expiry"
    in_grace = reads(client, game_id, players, spectator)
    version = orjson.loads(in_grace["0 view"])["version"]
    assert orjson.loads(in_grace["0 view"])["archived"] is True
    assert orjson.loads(in_grace["spectator history"])["archived"] is True
    assert {k: without_archived(v) for k, v in in_grace.items()} == {k: without_archived(v) for k, v in before.items()}

    store.games.delete(game_id)  # the grace has passed: only the archive has it
    archived = reads(client, game_id, players, spectator)
    assert archived == in_grace, "the same bytes from the archive as from Redis"
    resp = players[0].view()
    assert resp.headers["ETag"] == f'"{version}.a"' and "hand" in resp.get_json(), "a seat still reads its own view"
    assert players[0].view(**{"If-None-Match": f'"{version}.a"'}).status_code == 304
    assert players[0].view(**{"If-None-Match": f'"{version}"'}).status_code == 200, "no cache serves the old body"
    assert client.get(f"/v1/games/{game_id}", headers=bearer("not-a-token")).status_code == 401
    record = client.get(f"/v1/games/{game_id}/record", headers={"Accept": "text/x-domino-record"})
    assert record.status_code == 200 and f"[id \"{game_id}\"]" in record.get_data(as_text=True)
    assert players[0].move({"type": "draw"}).status_code == 409, "over is over"


def test_a_batch_written_twice_writes_each_game_once(client, service, app_key) -> None:  # type: ignore[no-untyped-def]
    ids = [finished_game(client, app_key, rounds=1)[0] for _ in range(3)]
    whole = service.store.whole_games.load(ids)
    entries = [entry(game_id, whole[game_id], time.time()) for game_id in ids]
    archive = service.archive
    counted = archive.count()
    archive.write([e for e in entries if e is not None][:2])  # a job that died after writing, before clearing
    assert "archived 3" in service.archive_games()
    service.store.archive_due.mark_many(ids, 0.0)  # a duplicated job, or the sweep after a lost lease
    assert "archived 3" in service.archive_games()
    assert archive.count() == counted + 3 and archive.holds(ids) == set(ids)


def test_a_redis_that_lost_the_scripts_still_gets_its_archived_games_flagged(client, service, app_key) -> None:  # type: ignore[no-untyped-def]
    game_id, _players, _spectator = finished_game(client, app_key)
    store = service.store
    store.redis.script_flush()  # as a restarted Redis: the job's EVALSHA finds no script
    assert service.archive_games().startswith("archived 1,")
    state = store.games.state_key(game_id)
    assert store.redis.hget(state, "a") == b"1", "flagged archived"
    assert 0 < store.redis.ttl(state) <= service.settings.archived_ttl, "with its grace expiry"


def test_a_game_not_over_is_dropped_and_a_rated_one_waits_for_its_ratings(client, service, app_key) -> None:  # type: ignore[no-untyped-def]
    live = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "A"}, {"name": "B"}]}, headers=bearer(app_key))
    live_id = live.get_json()["game"]["id"]
    service.store.archive_due.mark(live_id, 0.0)  # a commit that marked it, then lost its race
    game_id = finished_game(client, app_key, rounds=1)[0]
    service.store.ratings_due.mark(game_id, time.time() + 3600)  # as a rated game's end marks it
    assert "dropped 1, waiting for ratings 1" in service.archive_games()
    assert service.archive.holds([live_id, game_id]) == set()
    assert service.store.archive_due.due_at(live_id) is None and service.store.archive_due.due_at(game_id) is not None
    service.store.ratings_due.clear(game_id)
    service.store.archive_due.mark(game_id, 0.0)  # its lease, passed
    assert "archived 1" in service.archive_games()


def test_the_owner_list_pages_through_live_and_archived_games_by_cursor(client, service, app_key) -> None:  # type: ignore[no-untyped-def]
    finished = [finished_game(client, app_key, player=f"user:{i % 2}", rounds=1)[0] for i in range(4)]
    live = [client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "A", "player": "user:0"}, {"name": "B"}]},
                        headers=bearer(app_key)).get_json()["game"]["id"] for _ in range(2)]  # fmt: skip
    service.archive_games()
    assert service.archive.holds(finished) == set(finished)
    newest_first = [*live[::-1], *finished[::-1]]

    def listed(query: str, limit: int) -> list[str]:
        seen, url = [], f"/v1/games?owner=me&limit={limit}{query}"
        while url:
            page = client.get(url, headers=bearer(app_key)).get_json()
            assert len(page["games"]) <= limit
            seen += [g["id"] for g in page["games"]]
            url = page["next"]
            assert (url is None) == (page["next_cursor"] is None)
        return seen

    for limit in (1, 2, 3, 100):
        assert listed("", limit) == newest_first
    assert listed("&status=finished", 2) == finished[::-1]
    assert listed("&status=playing", 2) == live[::-1]
    assert listed("&player=user:0", 2) == [*live[::-1], finished[2], finished[0]]
    assert listed("&player=user:1&status=finished", 1) == [finished[3], finished[1]]
    summary = client.get("/v1/games?owner=me&status=finished&limit=1", headers=bearer(app_key)).get_json()["games"][0]
    assert summary["id"] == finished[3] and summary["status"] == "finished" and summary["seats"][1]["metadata"] == {"table": 7}
    old_style = client.get("/v1/games?owner=me&limit=2", headers=bearer(app_key)).get_json()
    after = client.get(f"/v1/games?owner=me&limit=10&before={old_style['next_before']!r}", headers=bearer(app_key)).get_json()
    assert [g["id"] for g in after["games"]] == newest_first[2:], "`before` keeps working"
    both = client.get("/v1/games?owner=me&before=1&cursor=1_aaaaaaaaaaaaaaaa", headers=bearer(app_key))
    assert both.status_code == 422


def test_the_schema_the_migrations_make_is_the_one_the_code_uses(archive_url: str) -> None:
    archive = Archive(archive_url)
    try:
        with archive.engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), metadata) == []
        assert archive.ping()["migrated"] is True
    finally:
        archive.dispose()


def test_domino_serve_s_archive_is_made_and_migrated_where_it_is_named(tmp_path) -> None:  # type: ignore[no-untyped-def]
    archive = Archive(f"sqlite:///{tmp_path / 'var' / 'archive.sqlite3'}")
    try:
        assert archive.migrate() == archive.head() and archive.migrate() == archive.head(), "idempotent"
        assert (tmp_path / "var" / "archive.sqlite3").exists() and archive.count() == 0
    finally:
        archive.dispose()


@pytest.mark.slow
def test_postgresql_stopped_while_archiving_loses_nothing_and_writes_nothing_twice(client, service, app_key, postgres_cluster):  # type: ignore[no-untyped-def]
    if service.archive.dialect != "postgresql":
        pytest.skip("stops the PostgreSQL server")
    ids = [finished_game(client, app_key, rounds=1)[0] for _ in range(3)]
    counted = service.archive.count()
    postgres_cluster.stop()
    try:
        assert service.archive_games().startswith("archive down")
        ready = client.get("/readyz").get_json()
        assert ready["checks"]["archive"]["ok"] is False, "/readyz says the archive is down in its body"
        for game_id in ids:  # still whole in Redis, without expiry
            assert client.get(f"/v1/games/{game_id}/history").get_json()["archived"] is False
            assert service.store.redis.ttl(service.store.games.state_key(game_id)) == -1
        assert client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "A"}, {"name": "B"}]}).status_code == 201
    finally:
        postgres_cluster.start()
    service.store.archive_due.mark_many(ids, 0.0)  # its retry time, passed
    assert "archived 3" in service.archive_games()
    assert service.archive.count() == counted + 3 and service.archive.holds(ids) == set(ids)


def test_a_registered_bot_reads_its_own_seat_of_an_archived_game_with_its_token(client, service, app_key, register_bot, run_bots) -> None:  # type: ignore[no-untyped-def]
    name = f"arch{time.time_ns() % 10**9}"
    token = register_bot(name)["token"]
    body = {"variant": "draw", "rules": {"match_end": "fixed_rounds", "rounds": 1}, "seats": [{"bot": name}, {"bot": "greedy"}]}
    game_id = client.post("/v1/games", json=body, headers=bearer(app_key)).get_json()["game"]["id"]
    bot = Player(client, game_id, token)
    for _ in range(500):
        run_bots()
        view = bot.view().get_json()
        if view["status"] != "playing":
            break
        if view["turn"] == 0:
            assert bot.move({**view["legal_moves"][0], "expected_version": view["version"]}).status_code == 200
    assert "archived 1" in service.archive_games()
    service.store.games.delete(game_id)  # only the archive has it
    resp = bot.view()
    assert resp.status_code == 200 and resp.headers["ETag"].endswith('.a"')
    assert resp.get_json()["seat"] == 0 and "hand" in resp.get_json(), "the bot's own seat, from the archive"
    assert bot.history().get_json()["seat"] == 0
    other = register_bot(f"x{name}")["token"]
    assert client.get(f"/v1/games/{game_id}", headers=bearer(other)).status_code == 401, "another bot's token"


def test_a_rematch_linked_after_the_archive_took_the_game_is_archived_again(client, service) -> None:  # type: ignore[no-untyped-def]
    seats = [{"name": "Ana"}, {"bot": "random"}]
    created = client.post("/v1/games", json={"variant": "draw", "seats": seats}).get_json()
    game_id, auth = created["game"]["id"], {"Authorization": f"Bearer {created['tokens'][0]['token']}"}
    assert client.post(f"/v1/games/{game_id}/resign", headers=auth).status_code == 200
    service.archive_games()
    assert service.archive.find(game_id) is not None
    made = client.post(f"/v1/games/{game_id}/rematch", headers=auth).get_json()
    service.archive_games()
    stored = service.archive.find(game_id)
    assert stored is not None and stored.version == client.get(f"/v1/games/{game_id}").get_json()["version"]
    assert stored.doc["next_game_id"] == made["game"]["id"]


def test_an_archived_game_is_read_with_only_the_parts_asked_for(client, service, app_key) -> None:  # type: ignore[no-untyped-def]
    game_id, _players, _spectator = finished_game(client, app_key)
    assert "archived 1" in service.archive_games()
    bare = service.archive.find(game_id)
    assert bare is not None and bare.doc["id"] == game_id
    assert (bare.raw_record, bare.raw_events) == (None, None), "a view reads neither its record nor its events"
    full = service.archive.find(game_id, ("record", "events"))
    assert full is not None and full.record["id"] == game_id and full.events
    only = service.archive.find(game_id, ("record",))
    assert only is not None and only.raw_record == full.raw_record and only.raw_events is None

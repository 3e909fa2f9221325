"""GET /v1/games/export: an app's (and its registered bots') or a bot's archived games, as NDJSON or text records,
in the archive's order, read page by page as the answer streams, resumable with `after`. On SQLite and on
PostgreSQL."""

from __future__ import annotations

import dataclasses
import threading
import time
import uuid

import orjson
import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

import domino
from api.archive import MIGRATIONS, Archive, Entry, Scope, Since
from api.service import export as export_module
from api.service.archiving import entry
from archive_helpers import archive_url, bearer, finished_game

__all__ = ["archive_url"]  # a fixture: every test here runs on both dialects

TEXT = "text/x-domino-record"


def exported(client, credential: str, query: str = "", **headers: str) -> list[dict]:  # type: ignore[no-untyped-def]
    resp = client.get(f"/v1/games/export{query}", headers={**bearer(credential), **headers})
    assert resp.status_code == 200, resp.get_json()
    assert resp.mimetype == "application/x-ndjson" and resp.headers["Vary"] == "Authorization, Accept"
    assert resp.data == b"" or resp.data.endswith(b"\n")
    return [orjson.loads(line) for line in resp.data.splitlines()]


def ids(records: list[dict]) -> list[str]:
    return [r["id"] for r in records]


def bot_game_of_another_app(client, service, make_app, bot: str) -> str:  # type: ignore[no-untyped-def]
    """A game of another app in which ``bot`` sits (as a challenge or an arena would seat it), archived."""
    game_id = finished_game(client, make_app().key, rounds=1)[0]
    made = entry(game_id, service.store.whole_games.load([game_id])[game_id], time.time())
    assert made is not None
    seats = [made.seats[0], {**made.seats[1], "kind": "registered", "bot": bot, "name": bot}]
    service.archive.write([dataclasses.replace(made, seats=seats)])
    return game_id


def test_an_app_exports_its_games_and_its_bots_games_in_archive_order_and_resumes_after_any(  # type: ignore[no-untyped-def]
    client, service, make_app, register_bot
) -> None:
    owner = make_app()
    first = [finished_game(client, owner.key, player=f"user:{i % 2}", rounds=1)[0] for i in range(2)]
    service.archive_games()
    bot = register_bot(f"exp{uuid.uuid4().hex[:8]}", key=owner.key)
    elsewhere = bot_game_of_another_app(client, service, make_app, bot["id"])
    last = finished_game(client, owner.key, player="user:0", rounds=1)[0]
    finished_game(client, make_app().key, rounds=1)  # another app's, without the bot: never exported here
    service.archive_games()
    in_order = [*first, elsewhere, last]

    records = exported(client, owner.key)
    assert ids(records) == in_order
    lines = client.get("/v1/games/export", headers=bearer(owner.key)).data.splitlines()
    for line, record in zip(lines, records):  # each line is the game's record, as /record answers it, and replays
        assert line == client.get(f"/v1/games/{record['id']}/record").data
        assert domino.replay(record).finished
    assert ids(exported(client, bot["token"])) == [elsewhere], "a bot token: the games the bot sits in"

    for limit in (1, 2, 3):  # resumed after each last record received, the same games once each
        seen: list[str] = []
        while True:
            page = ids(exported(client, owner.key, f"?limit={limit}" + (f"&after={seen[-1]}" if seen else "")))
            assert len(page) <= limit
            seen += page
            if len(page) < limit:
                break
        assert seen == in_order
    assert ids(exported(client, owner.key, f"?after={elsewhere}")) == [last]

    assert ids(exported(client, owner.key, "?player=user:0")) == [first[0], last], "the app's own games of a player"
    assert ids(exported(client, owner.key, "?variant=draw&rated=false")) == in_order
    assert exported(client, owner.key, "?variant=block") == exported(client, owner.key, "?rated=true") == []
    assert exported(client, owner.key, f"?since={time.time() + 3600}") == exported(client, owner.key, "?until=1") == []
    assert ids(exported(client, owner.key, f"?since=1&until={time.time() + 3600}")) == in_order

    text = client.get("/v1/games/export", headers={**bearer(owner.key), "Accept": TEXT})
    assert text.status_code == 200 and text.mimetype == TEXT and text.mimetype_params == {"charset": "utf-8"}
    assert [domino.notation.parse_text(t) for t in domino.notation.split_texts(text.get_data(as_text=True))] == records
    assert text.get_data(as_text=True) == "".join(domino.notation.write_text(r) + "\n" for r in records)


def test_who_may_export_and_what_a_bad_query_gets(client, service, app_key, register_bot) -> None:  # type: ignore[no-untyped-def]
    bot = register_bot(f"exp{uuid.uuid4().hex[:8]}", key=app_key)
    finished_game(client, app_key, rounds=1)
    service.archive_games()
    assert client.get("/v1/games/export").status_code == 401
    assert client.get("/v1/games/export", headers=bearer("dsk_bot_forged")).status_code == 401
    assert client.get("/v1/games/export", headers=bearer("dsk_app_forged")).status_code == 401
    for credential, query, field in (
        (bot["token"], "?player=user:1", "player"),
        (app_key, "?after=aaaaaaaaaaaaaaaa", "after"),
        (app_key, "?after=nope", "after"),
        (app_key, "?variant=chess", "variant"),
        (app_key, "?limit=0", "limit"),
    ):
        resp = client.get(f"/v1/games/export{query}", headers=bearer(credential))
        assert resp.status_code == 422 and field in resp.get_json()["errors"]["query"], (query, resp.get_json())
    json_only = client.get("/v1/games/export", headers={**bearer(app_key), "Accept": "text/html"})
    assert json_only.status_code == 406 and "application/x-ndjson" in json_only.get_json()["detail"]


def test_an_export_reads_short_pages_as_it_streams(client, service, app_key, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    made = [finished_game(client, app_key, rounds=1)[0] for _ in range(5)]
    service.archive_games()
    monkeypatch.setattr(export_module, "PAGE", 2)
    asked: list[int] = []
    read = service.archive.export
    monkeypatch.setattr(service.archive, "export", lambda *a: asked.append(a[-1]) or read(*a))
    resp = client.get("/v1/games/export", headers=bearer(app_key), buffered=False)
    chunks = iter(resp.response)
    assert [r["id"] for r in map(orjson.loads, next(chunks).splitlines())] == made[:2]
    assert asked == [2], "the first page only, before the client reads on"
    rest = b"".join(chunks)
    assert [r["id"] for r in map(orjson.loads, rest.splitlines())] == made[2:]
    assert asked == [2, 2, 2] and all(n <= 2 for n in asked)
    resp.close()


def test_the_migration_numbers_the_games_already_archived_in_the_order_they_were_archived(archive_url, tmp_path) -> None:  # type: ignore[no-untyped-def]
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    schema = f"m{uuid.uuid4().hex[:8]}"
    archive = Archive(archive_url if archive_url.startswith("postgresql") else f"sqlite:///{tmp_path / 'old.sqlite3'}")
    try:
        with archive.engine.connect() as conn:  # an empty database (PostgreSQL: a schema of its own) at 0001
            if archive.dialect == "postgresql":
                conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
                conn.exec_driver_sql(f"SET search_path TO {schema}")
            config.attributes["connection"] = conn
            command.upgrade(config, "0001")
            for game_id, at in (("b" * 16, 2.0), ("a" * 16, 2.0), ("c" * 16, 1.0)):
                conn.exec_driver_sql(
                    "INSERT INTO games (id, variant, status, rated, created_at, ended_at, archived_at, version, doc, "
                    f"record, events, summary) VALUES ('{game_id}', 'draw', 'finished', false, 0, 0, {at}, 1, '{{}}', "
                    """'{"id":"x","archived":false}', '[]', '{}')"""
                )
            conn.exec_driver_sql(f"INSERT INTO seats (game_id, seat, kind, created_at) VALUES ('{'c' * 16}', 0, 'bot', 0)")
            command.upgrade(config, "head")
            numbered = conn.exec_driver_sql("SELECT id, seq FROM games ORDER BY seq").all()
            assert [tuple(r) for r in numbered] == [("c" * 16, 1), ("a" * 16, 2), ("b" * 16, 3)]
            assert conn.exec_driver_sql("SELECT seq FROM seats").scalar() == 1
            assert conn.exec_driver_sql("SELECT last FROM archive_order").scalar() == 3
            records = conn.exec_driver_sql("SELECT record FROM games").scalars().all()
            assert records == ['{"id":"x"}'] * 3, "kept without `archived`, which the reads add"
            if archive.dialect == "postgresql":
                conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
            conn.commit()
    finally:
        archive.dispose()


def test_an_export_s_sources_are_read_at_one_moment_so_a_batch_committed_meanwhile_is_not_half_skipped(archive_url) -> None:  # type: ignore[no-untyped-def]
    archive, meanwhile = Archive(archive_url), Archive(archive_url)
    archive.migrate()
    tag = uuid.uuid4().hex[:8]
    app, bot = f"app-{tag}", f"bot-{tag}"

    def game(n: int, owner: str, sitting: str | None = None) -> Entry:
        seats = [{"seat": 0, "name": "Ana", "kind": "human", "player": None, "bot": None},
                 {"seat": 1, "name": sitting, "kind": "registered" if sitting else "human", "player": None, "bot": sitting}]  # fmt: skip
        game_id = f"{tag}{n:08d}"
        return Entry(id=game_id, app=owner, variant="draw", status="finished", rated=False, created_at=1.0, ended_at=2.0,
                     version=1, doc=b"{}", record=f'{{"id":"{game_id}"}}'.encode(), events=b"[]", summary=b"{}", seats=seats)  # fmt: skip

    made = [game(0, app), game(1, app), game(2, f"other-{tag}", bot)]
    archive.write(made[:1])
    written: list[bool] = []

    exporting = threading.current_thread()

    @sa.event.listens_for(archive.engine, "after_cursor_execute")
    def a_batch_commits(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        # After the export's statement, before any other: not the checkpoint that the first write started on
        # its own thread (a batch written there, in the middle of a checkpoint, raced the export)
        if not written and threading.current_thread() is exporting and statement.lstrip().upper().startswith("SELECT"):
            written.append(True)
            meanwhile.write(made[1:])  # one batch: a game of the app, and one of another app where its bot sits

    try:
        scope = Scope(app=app, bots=(bot,))
        first = archive.export(scope, Since(), 0, 10)
        assert written and [r[1] for r in first] in ([made[0].id], [m.id for m in made]), "the batch wholly, or not at all"
        rest = archive.export(scope, Since(), first[-1][0], 10)
        assert [r[1] for r in first + rest] == [m.id for m in made], "resumed after the last game: nothing skipped"
    finally:
        archive.dispose()
        meanwhile.dispose()

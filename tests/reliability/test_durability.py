"""Durability on one machine: ``domino-serve``'s own Redis (``workers.redis_server.RedisServer``, persistent,
as the launcher runs it) is SIGKILLed while clients play, then started again on its data folder: every move
that was answered 2xx is in its game's history.

Which ``appendfsync`` makes that so: ``everysec``, the launcher's. Redis ``write(2)``s each event loop's
changes to the append-only file before it sends their replies, and a killed process leaves what it wrote
with the kernel, so the file has every acknowledged move whatever the fsync policy. The policy matters when
the machine goes down: ``everysec`` may then lose up to about a second of moves (two, on a disk so busy
that an fsync takes longer than a second, when Redis postpones its writes), and only ``always`` (an fsync
before every reply, at a large cost in moves per second) closes that. Without the append-only file at all,
the snapshot rule (``save 300 1``) would lose every move of this test.
"""

from __future__ import annotations

import signal
from dataclasses import replace

import pytest
import redis

from api.app import create_app
from support import wait_until
from tables import Players
from workers.redis_server import RedisServer

pytestmark = pytest.mark.slow


def test_redis_killed_mid_game_keeps_every_acknowledged_move(settings, tmp_path):
    server = RedisServer(tmp_path / "redis", persistent=True)
    url = server.start()
    try:
        assert redis.Redis.from_url(url).config_get("appendfsync") == {"appendfsync": "everysec"}
        app = create_app({"DOMINO": replace(settings, redis_url=url, rate_limit=""), "TESTING": True})
        players = Players(app.test_client(), count=4)
        try:
            assert players.wait_acked(150, timeout=120), "the clients did not get going"
            assert server.process is not None
            server.process.send_signal(signal.SIGKILL)  # mid-game: the clients are playing as it dies
            server.process.wait(10)
            killed_at = players.acked
            # Some requests meet the dead Redis before the clients stop.
            assert wait_until(lambda: players.statuses[503] > 0, 60), "no request met the dead Redis"
        finally:
            players.stop()
        server.process = None
        assert players.errors == []
        assert set(players.statuses) <= {200, 201, 503}, players.statuses
        assert players.statuses[503] > 0  # some requests did meet the dead Redis
        url = server.start()  # the same data folder (a new port)
        after = create_app({"DOMINO": replace(settings, redis_url=url, rate_limit=""), "TESTING": True}).test_client()
        assert players.missing(after) == {}
        print(f"\ndurability: Redis SIGKILLed after {killed_at} acknowledged moves in {len(players.tables)} games; "
              f"after a restart all are in their histories (appendfsync everysec); answers {dict(players.statuses)}")  # fmt: skip
    finally:
        server.stop()

"""Faults on a Redis Cluster while clients play (issue 18): a master SIGKILLed (its replica takes over) and a
resharding of the slots of live games. Real redis-server processes on 127.0.0.1; every wait is on the event
itself, with a generous ceiling. Timings are printed (`pytest -s`), never asserted. Slow: clusters of six."""

from __future__ import annotations

import collections
import time
from dataclasses import replace

import pytest

from api.app import create_app
from support import wait_until
from tables import Players, Table
from workers.redis_cluster import LocalCluster

pytestmark = pytest.mark.slow


def _app(settings, cluster: LocalCluster):  # type: ignore[no-untyped-def]
    """The games on ``cluster``, the queues on the suite's Redis (the settings' own)."""
    s = replace(settings, redis_url=cluster.url, queue_url=settings.redis_url, rate_limit="")
    return create_app({"DOMINO": s, "TESTING": True})


def _owner(store, game_id: str) -> int:  # type: ignore[no-untyped-def]
    """The port of the master that holds the game now."""
    return int(store.redis.get_node_from_key(store.games.state_key(game_id)).port)


def test_a_master_killed_mid_game_play_goes_on_after_failover_with_503s_between_and_no_answered_move_lost(
    settings, tmp_path
):
    cluster = LocalCluster(tmp_path / "cluster")
    cluster.start()
    try:
        app = _app(settings, cluster)
        store = app.extensions["domino.service"].store
        players = Players(app.test_client(), count=6)
        try:
            assert players.wait_acked(60, timeout=60), "the clients did not get going"
            by_master = collections.Counter(_owner(store, t.game_id) for t in players.tables if not t.finished)
            port = by_master.most_common(1)[0][0]
            (victim,) = [node for node in cluster.nodes if node.port == port]
            on_victim = [t for t in players.tables if not t.finished and _owner(store, t.game_id) == port]
            acked_before = {t.game_id: len(t.acked) for t in on_victim}
            cluster.kill(victim)
            killed_at = time.monotonic()

            def resumed() -> bool:  # every game of the dead master has an answered move since
                return all(len(t.acked) > acked_before[t.game_id] or t.finished for t in on_victim)

            wait_until(resumed, 90, 0.02)
            resumed_after = time.monotonic() - killed_at
            assert resumed(), f"play did not go on after the failover (waited {resumed_after:.1f} s)"
            assert players.wait_acked(30, timeout=60)
        finally:
            players.stop()
        assert players.errors == []
        assert set(players.statuses) <= {200, 201, 503}, players.statuses
        assert players.statuses[503] > 0  # the dead master's games did meet it
        cluster.wait_ok(60)
        assert port not in {node.port for node in cluster.masters()}
        after = _app(settings, cluster).test_client()
        assert players.missing(after) == {}
        print(f"\ncluster: master :{port} SIGKILLed with {len(on_victim)} games on it; they moved again after "
              f"{resumed_after:.2f} s; answers {dict(players.statuses)}; slowest step {players.slowest:.2f} s; "
              f"{players.acked} answered moves, none missing")  # fmt: skip
    finally:
        cluster.stop()


def test_resharding_the_slots_of_live_games_loses_nothing_and_answers_no_503(settings, redis_cluster):
    app = _app(settings, redis_cluster)
    store = app.extensions["domino.service"].store
    client = app.test_client()
    # Four games low in one master's slot range, so that moving that range's first slots moves them all.
    opened = [table for table, _ in (Table.open(client) for _ in range(200)) if table is not None]
    masters = {n["id"]: n for n in redis_cluster.cluster_nodes() if "master" in n["flags"]}
    first_slot = {m_id: min(int(r.split("-")[0]) for r in m["slots"].split() if not r.startswith("[")) for m_id, m in masters.items()}
    by_address = {m["address"]: m_id for m_id, m in masters.items()}

    def place(table: Table) -> tuple[str, int]:  # (master id, slot's offset in the master's first range)
        key = store.games.state_key(table.game_id)
        node = store.redis.get_node_from_key(key)
        m_id = by_address[f"{node.host}:{node.port}"]
        return m_id, store.redis.keyslot(key) - first_slot[m_id]

    source = collections.Counter(place(t)[0] for t in opened).most_common(1)[0][0]
    moving = sorted((t for t in opened if place(t)[0] == source), key=lambda t: place(t)[1])[:4]
    slots = max(place(t)[1] for t in moving) + 1
    target = next(m_id for m_id in masters if m_id != source)
    players = Players(client, count=4, first=moving)
    try:
        assert players.wait_acked(20, timeout=60)
        t0 = time.monotonic()
        redis_cluster.run(
            "--cluster", "reshard", masters[source]["address"], "--cluster-from", source, "--cluster-to", target,
            "--cluster-slots", str(slots), "--cluster-yes", "--cluster-pipeline", "1", port=None,
        )  # fmt: skip
        took = time.monotonic() - t0
        assert players.wait_acked(20, timeout=60)
    finally:
        players.stop()
    assert players.errors == []
    assert set(players.statuses) <= {200, 201}, players.statuses  # MOVED and ASK were followed
    store.redis.nodes_manager.initialize()  # learn the slots anew: a game no longer played met no MOVED
    assert {place(t)[0] for t in moving} == {target}
    assert players.missing(client) == {}
    print(f"\ncluster: {slots} slots with 4 live games resharded in {took:.2f} s while played; "
          f"answers {dict(players.statuses)}; {players.acked} answered moves, none missing")  # fmt: skip


def test_after_a_failover_long_polls_read_the_games_of_the_masters_still_up(settings, tmp_path):
    """redis-py asks its cluster client's default node which keys an XREAD names (COMMAND GETKEYS): when that
    node is the master that died, reads of games on other masters must still work."""
    cluster = LocalCluster(tmp_path / "cluster")
    cluster.start()
    try:
        app = _app(settings, cluster)
        store = app.extensions["domino.service"].store
        client = app.test_client()
        games = []
        for i in range(12):  # some on each master
            resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"name": "Bo"}], "seed": f"f{i}"})
            games.append(resp.get_json()["game"]["id"])
        blocking = store.connections.blocking()
        default = int(blocking.get_default_node().port)
        (victim,) = [node for node in cluster.nodes if node.port == default]
        elsewhere = [g for g in games if _owner(store, g) != default]
        assert elsewhere
        cluster.kill(victim)
        cluster.wait_ok(60)
        for game_id in elsewhere:
            resp = client.get(f"/v1/games/{game_id}/events?after=0&wait=0.05")
            assert resp.status_code == 200, resp.get_json()
    finally:
        cluster.stop()

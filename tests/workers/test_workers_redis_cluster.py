"""The local Redis Cluster the suite's cluster runs use: three masters, a replica of each, every slot served."""

from __future__ import annotations

import pytest
import redis
from redis.cluster import RedisCluster

pytestmark = pytest.mark.slow  # it starts the local cluster: six redis-servers

def test_the_local_cluster_has_three_masters_with_a_replica_each_and_serves_every_slot(redis_cluster):
    nodes = redis_cluster.cluster_nodes()
    masters = [n for n in nodes if "master" in n["flags"]]
    replicas = [n for n in nodes if "slave" in n["flags"]]
    assert len(masters) == 3 and len(replicas) == 3
    assert sorted(r["master"] for r in replicas) == sorted(m["id"] for m in masters)
    assert all(m["slots"] for m in masters)
    client = RedisCluster.from_url(redis_cluster.url)
    try:
        assert client.cluster_info()["cluster_slots_ok"] == "16384"
        client.set("{local-cluster}:k", "v")
        master = client.get_node_from_key("{local-cluster}:k")
        (master_id,) = [n["id"] for n in nodes if n["address"] == f"127.0.0.1:{master.port}"]
        (replica,) = [n for n in replicas if n["master"] == master_id]
        assert redis.Redis(port=master.port).wait(1, 5000) == 1  # the write reached the replica
        reader = redis.Redis(port=int(replica["address"].rsplit(":", 1)[1]))
        reader.execute_command("READONLY")
        assert reader.get("{local-cluster}:k") == b"v"
    finally:
        client.close()

"""The game state on a Redis Cluster, found out at the first use from the node's ``INFO cluster``.

``DOMINO_REDIS_URL`` names a plain Redis or any node of a cluster; on a cluster the game keys go through
redis-py's :class:`~redis.cluster.RedisCluster`, which follows ``MOVED`` and ``ASK`` (a resharding) and
learns the new master after a failover. Every key of one game carries the game's hash tag, so each script,
transaction and pipeline of a game touches one slot, on one node. The queues stay on a plain Redis
(``DOMINO_QUEUE_URL``): RQ does not run on a cluster.

Replication in a cluster is asynchronous: a master killed just after answering can take the last writes
with it. So a commit waits (``WAIT 1``, at most ``DOMINO_REPLICA_WAIT_MS``) until the game's replica has it
before the move is answered; a master whose replica does not answer in time is not waited for again for a
while (it may have none left after a failover), and its moves are as durable as that master alone.
"""

from __future__ import annotations

import threading
import time

import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from api.config import Settings

# What a cluster raises, besides ConnectionError and TimeoutError, when a slot has no master for a moment
# (a failover: CLUSTERDOWN, MASTERDOWN), when no node could be reached to learn the slots, or when a key kept
# moving (TTL exhausted): all of them mean "Redis is not there for this game now", a 503.
UNAVAILABLE = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.ClusterError,
    redis.exceptions.RedisClusterException,
)

# A master whose replica did not acknowledge a write in time is not waited for during this long.
_NO_REPLICA_PAUSE = 10.0


def is_cluster(url: str, timeout: float) -> bool:
    """Whether the Redis at ``url`` is a node of a cluster (``INFO cluster``: ``cluster_enabled:1``)."""
    probe = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
    try:
        return bool(probe.info("cluster").get("cluster_enabled") == 1)
    finally:
        probe.close()


def connect_cluster(url: str, settings: Settings, socket_timeout: float) -> RedisCluster:
    """A cluster client whose every node connection has ``socket_timeout``. A command that meets a dead or
    moving node is sent once more after the slots were learnt again (``redis_retries``), at once."""
    return RedisCluster.from_url(
        url,
        socket_timeout=socket_timeout,
        socket_connect_timeout=settings.socket_connect_timeout,
        retry=Retry(NoBackoff(), settings.redis_retries),
        health_check_interval=30,
        max_connections=settings.redis_max_connections,  # per node
    )


class ReplicaWait:
    """``WAIT 1`` after a game's commit, on the master that owns the game."""

    def __init__(self, wait_ms: int) -> None:
        self.wait_ms = wait_ms
        self.pause_until: dict[str, float] = {}
        self.lock = threading.Lock()

    def __call__(self, cluster: RedisCluster, key: str) -> None:
        if self.wait_ms <= 0:
            return
        node = cluster.get_node_from_key(key)  # type: ignore[no-untyped-call]
        with self.lock:
            if self.pause_until.get(node.name, 0.0) > time.monotonic():
                return
        acked = cluster.execute_command("WAIT", 1, self.wait_ms, target_nodes=node)  # type: ignore[no-untyped-call]
        if int(acked) < 1:
            with self.lock:
                self.pause_until[node.name] = time.monotonic() + _NO_REPLICA_PAUSE

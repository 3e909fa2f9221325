"""docker-compose.yml, checked without containers (no Docker engine runs here or in CI): the compose tool
resolves the file for both profiles (the single Redis, and ``cluster``), and what it resolves has the
topology the suite's own local cluster has (six nodes: three masters, a replica each) and sends the games
and the queues where the README says.

CI installs Debian's ``docker-compose`` (.ci/run); elsewhere the test skips when no compose tool is found."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
APP_SERVICES = {
    "api", "streams", "worker", "bot-games", "simulations", "webhooks", "archive", "archive-migrate", "analysis",
    "hints",
}  # fmt: skip
ARCHIVE = "postgresql+psycopg://domino:domino@postgres:5432/domino"
NODES = {f"redis-node-{n}" for n in range(1, 7)}


def _compose() -> list[str] | None:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker"):
        plugin = subprocess.run(["docker", "compose", "version"], capture_output=True)
        if plugin.returncode == 0:
            return ["docker", "compose"]
    return None


@pytest.fixture(scope="module")
def compose() -> list[str]:
    found = _compose()
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("no compose tool: .ci/run installs docker-compose")
        pytest.skip("no docker-compose nor docker compose here")
    return found


def _config(compose: list[str], *profiles: str, **env: str) -> dict[str, Any]:
    args = [*compose, "--project-directory", str(ROOT), "-f", str(ROOT / "docker-compose.yml")]
    for profile in profiles:
        args += ["--profile", profile]
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("DOMINO_", "COMPOSE_"))}
    done = subprocess.run([*args, "config"], capture_output=True, text=True, env={**environ, **env}, timeout=60)
    assert done.returncode == 0, done.stderr
    config: dict[str, Any] = yaml.safe_load(done.stdout)
    # Debian's docker-compose (1.29) prints the services of every profile, with their profiles; keep the
    # ones that start with these profiles, as `docker compose config` does by itself.
    config["services"] = {
        name: service
        for name, service in config["services"].items()
        if not service.get("profiles") or set(service["profiles"]) & set(profiles)
    }
    return config


def _command(service: dict[str, Any]) -> str:
    command = service.get("command", "")
    return command if isinstance(command, str) else " ".join(command)


def test_the_default_profile_is_one_redis_for_games_and_queues(compose):
    services = _config(compose)["services"]
    assert set(services) == APP_SERVICES | {"redis", "proxy", "postgres"}
    assert "--appendonly yes" in _command(services["redis"])
    for name in APP_SERVICES:
        env = services[name]["environment"]
        assert env["DOMINO_REDIS_URL"] == env["DOMINO_QUEUE_URL"] == "redis://redis:6379/0", name
        assert env["DOMINO_ARCHIVE_URL"] == ARCHIVE, name
    assert _command(services["archive-migrate"]) == "domino-admin archive migrate"
    for name in ("archive", "analysis"):  # both write to the archive
        assert services[name]["depends_on"]["archive-migrate"]["condition"] == "service_completed_successfully"
    assert _command(services["analysis"]) == "domino-worker analysis"


def test_the_cluster_profile_is_six_nodes_joined_by_an_init_job_and_the_queues_stay_on_redis(compose):
    services = _config(compose, "cluster", DOMINO_REDIS_URL="redis://redis-node-1:6379/0")["services"]
    assert set(services) == APP_SERVICES | {"redis", "proxy", "postgres", "cluster-init"} | NODES
    for name in NODES:
        command = _command(services[name])
        assert "--cluster-enabled yes" in command and "--appendonly yes" in command, name
        assert services[name]["hostname"] == name
    init = services["cluster-init"]
    assert set(init["depends_on"]) == NODES
    assert all(dep["condition"] == "service_healthy" for dep in init["depends_on"].values())
    script = _command(init)
    assert "--cluster create" in script and "--cluster-replicas 1" in script and "for n in 1 2 3 4 5 6" in script
    for name in APP_SERVICES:
        env = services[name]["environment"]
        assert env["DOMINO_REDIS_URL"] == "redis://redis-node-1:6379/0", name
        assert env["DOMINO_QUEUE_URL"] == "redis://redis:6379/0", name

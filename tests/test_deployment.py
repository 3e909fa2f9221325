"""The shipped deployment files: docker-compose publishes only the proxy when the API trusts
X-Forwarded-For, and its Redis refuses writes when full instead of evicting."""

from __future__ import annotations

from pathlib import Path

import yaml

COMPOSE = Path(__file__).resolve().parents[1] / "docker-compose.yml"


def services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


def test_no_service_that_trusts_x_forwarded_for_is_reachable_directly():
    trusting = {name for name, svc in services().items() if int((svc.get("environment") or {}).get("DOMINO_PROXY_HOPS", 0)) > 0}
    assert trusting, "the API behind the proxy trusts one hop"
    for name in trusting:
        assert "ports" not in services()[name], f"{name} trusts X-Forwarded-For: publish only the proxy"
    published = {name for name, svc in services().items() if svc.get("ports")}
    assert published == {"proxy"}


def test_compose_redis_has_a_maxmemory_with_noeviction():
    command = services()["redis"]["command"]
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    assert command[command.index("--maxmemory") + 1]

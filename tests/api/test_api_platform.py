"""OpenAPI document, Swagger UI offline, health and readiness, and Redis outages (503, fast, nothing changed)."""

from __future__ import annotations

import contextlib
import json
import pathlib

from api.app import create_app
from support import returns_within

ROOT = pathlib.Path(__file__).resolve().parents[2]
REGENERATE = "python -m api.openapi openapi/openapi.json"


def test_exported_openapi_matches_what_the_app_serves(client):
    served = client.get("/openapi.json").get_json()
    exported = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    assert exported == served, f"openapi/openapi.json is stale: regenerate it with `{REGENERATE}`"


def test_every_operation_is_documented(client):
    spec = client.get("/openapi.json").get_json()
    assert spec["openapi"].startswith("3.1")
    methods = {"get", "put", "post", "delete", "patch", "head", "options"}
    ops = [(path, m, op) for path, item in spec["paths"].items() for m, op in item.items() if m in methods]
    expected = {
        ("/v1/variants", "get"), ("/v1/bots", "get"), ("/v1/games", "post"), ("/v1/games/{game_id}", "get"),
        ("/v1/games/{game_id}/moves", "post"), ("/v1/games/{game_id}/history", "get"), ("/healthz", "get"),
        ("/readyz", "get"),
    }  # fmt: skip
    assert expected <= {(p, m) for p, m, _ in ops}
    ids = [op["operationId"] for _, _, op in ops]
    assert len(ids) == len(set(ids))
    for path, method, op in ops:
        assert op.get("summary"), (path, method)
        responses = op["responses"]
        success = [code for code in responses if code.startswith("2")]
        assert success, (path, method)
        content = responses[success[0]].get("content", {})
        assert content or success[0] == "204", (path, method)
        assert success[0] == "204" or any("example" in c or "examples" in c for c in content.values()), (path, method)
        errors = [code for code in responses if code[0] in "45"]
        assert errors, (path, method)
        for code in errors:
            assert "application/problem+json" in responses[code]["content"], (path, method, code)


def test_swagger_ui_is_served_locally(client):
    page = client.get("/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "/docs/assets/swagger-ui-bundle.js" in html and "/openapi.json" in html
    assert "https://" not in html and "http://" not in html
    assert "standalone-preset" not in html, "the page loads no script its configuration does not use"
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        assert client.get(f"/docs/assets/{asset}").status_code == 200


def test_healthz_and_readyz(client, run_bots):
    assert client.get("/healthz").get_json() == {"status": "ok"}
    resp = client.get("/readyz")  # no worker listens on this test's queues: reported, and still ready
    assert resp.status_code == 200, resp.get_json()
    checks = resp.get_json()["checks"]
    assert checks["redis"]["ok"] is True
    assert (checks["bots_workers"], checks["simulations_workers"], checks["webhooks_workers"]) == (0, 0, 0)


@contextlib.contextmanager
def _listening(service, *queues: str):  # type: ignore[no-untyped-def]
    """A registered (not working) RQ worker on each of this test's ``queues`` (bots, simulations, webhooks)."""
    from rq import SimpleWorker

    from api.queues import SERIALIZER, Queues

    store = service.store
    names = Queues(store).by_purpose()
    workers = [
        SimpleWorker([names[queue].name], connection=store.worker_connection(), serializer=SERIALIZER)
        for queue in queues
    ]
    for worker in workers:
        worker.register_birth()
    try:
        yield
    finally:
        for worker in workers:
            worker.register_death()


def test_readyz_with_a_worker(client, service):
    with _listening(service, "bots"):
        resp = client.get("/readyz")
        assert resp.status_code == 200, resp.get_json()
        checks = resp.get_json()["checks"]
        # No simulation or webhook worker: reported, and still ready.
        assert (checks["bots_workers"], checks["simulations_workers"], checks["webhooks_workers"]) == (1, 0, 0)


def test_readyz_counts_the_workers_of_each_queue(client, service):
    with _listening(service, "simulations", "simulations", "webhooks"):
        resp = client.get("/readyz")
        assert resp.status_code == 200, resp.get_json()
        checks = resp.get_json()["checks"]
        assert (checks["bots_workers"], checks["simulations_workers"], checks["webhooks_workers"]) == (0, 2, 1)


def test_redis_unreachable_is_a_503_at_once(settings, create_game):
    """Nothing listens where Redis should be: each request that needs it is a 503 problem, not a hang (a
    ceiling, not a timing: the connection is refused and not retried)."""
    from dataclasses import replace

    from workers.redis_server import free_port

    down = create_app({"DOMINO": replace(settings, redis_url=f"redis://127.0.0.1:{free_port()}/0"), "TESTING": True})
    client = down.test_client()
    calls = [
        lambda: client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "A"}, {"bot": "greedy"}]}),
        lambda: client.get("/v1/games/abcdefghijklmnop"),
        lambda: client.post("/v1/games/abcdefghijklmnop/moves", json={"type": "draw"}, headers={"Authorization": "Bearer x"}),
        lambda: client.get("/v1/games/abcdefghijklmnop/history"),
        lambda: client.get("/readyz"),
    ]
    for call in calls:
        resp = returns_within(30, call)
        assert resp.status_code == 503, resp.get_data(as_text=True)
        assert resp.get_json()["type"] == "/problems/unavailable"
    # The rest of the API (no Redis needed) still answers.
    assert client.get("/v1/variants").status_code == 200
    assert client.get("/healthz").status_code == 200


def test_create_app_connects_to_nothing(settings):
    from dataclasses import replace

    from workers.redis_server import free_port

    app = create_app({"DOMINO": replace(settings, redis_url=f"redis://127.0.0.1:{free_port()}/0")})
    assert app.test_client().get("/openapi.json").status_code == 200

"""Simulations are owned: only the creator's token cancels one, a client lists only its own, and a client
may have only so many queued or running at once."""

from __future__ import annotations

from dataclasses import replace

from api.app import create_app

BODY = {"variant": "draw", "strategies": ["greedy", "random"], "games": 50}
ALICE = {"REMOTE_ADDR": "10.0.0.1"}
MALLORY = {"REMOTE_ADDR": "10.0.0.66"}


def _create(client, who):  # type: ignore[no-untyped-def]
    resp = client.post("/v1/simulations", json=BODY, environ_base=who)
    assert resp.status_code == 202, resp.get_json()
    return resp.get_json()


def _problem(resp, status: int, slug: str) -> dict:
    assert resp.status_code == status, resp.get_json()
    assert resp.mimetype == "application/problem+json" and resp.get_json()["type"] == f"/problems/{slug}"
    return resp.get_json()


def test_only_the_creators_token_cancels_a_simulation(client):
    sim = _create(client, ALICE)
    other = _create(client, MALLORY)
    token = sim.pop("token")
    assert len(token) >= 43
    url = f"/v1/simulations/{sim['id']}"
    assert "token" not in client.get(url).get_json() and token not in client.get(url).get_data(as_text=True)

    wrong = {"Authorization": f"Bearer {other['token']}"}
    for method, path in (("POST", f"{url}/cancel"), ("DELETE", url)):
        _problem(client.open(path, method=method, environ_base=MALLORY), 401, "unauthorized")
        _problem(client.open(path, method=method, headers=wrong, environ_base=MALLORY), 401, "unauthorized")
    assert client.get(url).get_json()["status"] == "queued"  # untouched

    owner = {"Authorization": f"Bearer {token}"}
    done = client.post(f"{url}/cancel", headers=owner, environ_base=MALLORY)
    assert done.status_code == 200 and done.get_json()["status"] == "cancelled"  # the token, from anywhere
    assert client.delete(url, headers=owner).status_code == 204
    assert client.get(url).status_code == 404


def test_a_client_lists_only_its_own_simulations(client):
    mine = [_create(client, ALICE)["id"] for _ in range(2)]
    theirs = _create(client, MALLORY)["id"]
    listed = lambda who: [s["id"] for s in client.get("/v1/simulations", environ_base=who).get_json()["simulations"]]  # noqa: E731
    assert listed(ALICE) == mine[::-1]
    assert listed(MALLORY) == [theirs]
    assert listed({"REMOTE_ADDR": "10.0.0.7"}) == []


def test_simulations_queued_or_running_are_capped_per_client(settings):
    app = create_app({"DOMINO": replace(settings, simulations_per_client=2, capacity_retry_after=9), "TESTING": True})
    client = app.test_client()
    first, _second = _create(client, ALICE), _create(client, ALICE)
    refused = client.post("/v1/simulations", json=BODY, environ_base=ALICE)
    assert _problem(refused, 429, "too-many-simulations")
    assert refused.headers["Retry-After"] == "9"
    _create(client, MALLORY)  # another client is not held back
    # A simulation that ends (here: cancelled) frees its slot.
    client.post(f"/v1/simulations/{first['id']}/cancel", headers={"Authorization": f"Bearer {first['token']}"})
    _create(client, ALICE)

"""50 clients racing on one game (issue 8): each version once, none lost, and the history replays to the state.
Real gunicorn workers on 127.0.0.1; slow."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

import domino
from gunicorn_server import env_for, gunicorn_factory  # noqa: F401  (gunicorn_factory: a fixture)
from support import whole_game_state

pytestmark = pytest.mark.slow


def _replay(history: dict) -> domino.State:  # type: ignore[name-defined]
    """Play the game again from its revealed seed with the moves its events record, checking each."""
    rules = domino.Rules.from_dict(history["rules"])
    state = domino.new_game(rules, seed=history["seed"])
    versions = []
    for event in history["events"]:
        kind = event["type"]
        if kind == "tile_played":
            move = {"type": "play", "tile": event["tile"], "end": event.get("end")}
        elif kind == "tile_drawn":
            move = {"type": "draw"}
        elif kind == "passed":
            move = {"type": "pass"}
        else:
            continue
        assert event["version"] not in versions, "a version produced twice"
        versions.append(event["version"])
        assert event["version"] == len(versions), "versions out of order or missing"
        state, _ = domino.step(state, domino.parse_move(move), seat=event["seat"])  # raises if it was not legal
    return state


def test_50_clients_racing_on_one_game(settings, create_game, service, gunicorn_factory):
    import random

    data, players, _ = create_game(
        [{"name": "Ana"}, {"name": "Bo"}], rules={"match_end": "fixed_rounds", "rounds": 1}, seed="race-50"
    )
    game_id = data["game"]["id"]
    server = gunicorn_factory(env_for(settings, DOMINO_RATE_LIMIT="0"), workers=4)
    landed: list[tuple[int, int | None, int]] = []  # (client, expected version or None, new version)
    statuses: dict[int, int] = {}
    errors: list[str] = []
    lock = threading.Lock()
    deadline = time.monotonic() + 120  # a ceiling: the game ends long before

    def client_loop(i: int) -> None:
        rng = random.Random(i)
        seat = i % 2
        headers = players[seat].headers
        with httpx.Client(base_url=server.base, timeout=30) as http:
            while time.monotonic() < deadline:
                view = http.get(f"/v1/games/{game_id}", headers=headers).json()
                if view["status"] != "playing":
                    return
                if not view["legal_moves"]:
                    time.sleep(0.002)
                    continue
                move = dict(rng.choice(view["legal_moves"]))
                named = i % 3 != 0  # two clients in three name the version they saw
                if named:
                    move["expected_version"] = view["version"]
                resp = http.post(f"/v1/games/{game_id}/moves", json=move, headers=headers)
                with lock:
                    statuses[resp.status_code] = statuses.get(resp.status_code, 0) + 1
                    if resp.status_code == 200:
                        landed.append((i, view["version"] if named else None, resp.json()["version"]))
                    elif resp.status_code >= 500 or resp.status_code in (400, 401, 415, 422):
                        errors.append(f"{resp.status_code} {resp.text[:200]}")

    t0 = time.monotonic()
    threads = [threading.Thread(target=client_loop, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(150)
    elapsed = time.monotonic() - t0
    print(f"\nrace: 50 clients, {len(landed)} moves landed in {elapsed:.1f} s; answers {dict(sorted(statuses.items()))}")
    assert not errors, errors[:5]

    final_version, final_state = whole_game_state(service, game_id)
    assert final_state.finished
    versions = sorted(v for _, _, v in landed)
    assert versions == list(range(1, final_version + 1)), "each version once, none lost"
    assert all(new == expected + 1 for _, expected, new in landed if expected is not None)
    history = httpx.get(f"{server.base}/v1/games/{game_id}/history", timeout=30).json()
    replayed = _replay(history)
    assert domino.to_dict(replayed) == domino.to_dict(final_state)

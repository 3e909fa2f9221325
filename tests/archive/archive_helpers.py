"""What the archive's tests share: each runs on SQLite and on the suite's private PostgreSQL (``archive_url``),
with an app's games played to their end by first legal moves."""

from __future__ import annotations

import pytest

from conftest import Player


@pytest.fixture(params=["sqlite", "postgresql"])
def archive_url(request: pytest.FixtureRequest, sqlite_archive_url: str) -> str:
    if request.param == "sqlite":
        return sqlite_archive_url
    return str(request.getfixturevalue("postgres_cluster").url)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def finished_game(client, key: str, player: str = "user:1", rounds: int = 2):  # type: ignore[no-untyped-def]
    """An app's two-player draw game played to its end by first legal moves (``rounds`` fixed rounds): (its id,
    its two players, a spectator)."""
    body = {
        "variant": "draw", "rules": {"match_end": "fixed_rounds", "rounds": rounds},
        "seats": [{"name": "Ana", "player": player}, {"name": "Bo", "metadata": {"table": 7}}],
    }  # fmt: skip
    created = client.post("/v1/games", json=body, headers=bearer(key))
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["game"]["id"]
    players = {t["seat"]: Player(client, game_id, t["token"]) for t in created.get_json()["tokens"]}
    spectator = Player(client, game_id, None)
    for _ in range(2000):
        view = spectator.view().get_json()
        if view["status"] != "playing":
            return game_id, players, spectator
        mover = players[view["turn"]]
        assert mover.move(mover.view().get_json()["legal_moves"][0]).status_code == 200
    raise AssertionError("the game did not end")

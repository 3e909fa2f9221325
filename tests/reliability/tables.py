"""Clients that play through HTTP while a test breaks Redis under them, and remember what they were told.

A :class:`Table` is one game of two human seats, played one first legal move at a time; every move answered
2xx is remembered by the version it made, so that the test can ask the history for each of them afterwards.
"""

from __future__ import annotations

import collections
import threading
import time
from typing import Any

from support import wait_until

SEATS = [{"name": "Ana"}, {"name": "Bo"}]


class Table:
    def __init__(self, client: Any, game_id: str, tokens: dict[int, str]) -> None:
        self.client = client
        self.game_id = game_id
        self.tokens = tokens
        self.acked: list[int] = []  # versions made by moves answered 2xx
        self.finished = False

    @classmethod
    def open(cls, client: Any) -> tuple[Table | None, int]:
        """A new game (None if not created) and the status of its creation."""
        resp = client.post("/v1/games", json={"variant": "draw", "seats": SEATS})
        if resp.status_code != 201:
            return None, int(resp.status_code)
        data = resp.get_json()
        return cls(client, data["game"]["id"], {t["seat"]: t["token"] for t in data["tokens"]}), 201

    def step(self) -> int:
        """Read the view of the seat to move and play its first legal move: the first status that is not 200
        (reading), else the move's."""
        view = self.client.get(f"/v1/games/{self.game_id}")
        if view.status_code != 200:
            return int(view.status_code)
        seen = view.get_json()
        if seen["status"] == "finished":
            self.finished = True
            return 200
        auth = {"Authorization": f"Bearer {self.tokens[seen['turn']]}"}
        mine = self.client.get(f"/v1/games/{self.game_id}", headers=auth)
        if mine.status_code != 200:
            return int(mine.status_code)
        move = mine.get_json()["legal_moves"][0]
        resp = self.client.post(f"/v1/games/{self.game_id}/moves", json=move, headers={**auth, "Prefer": "return=minimal"})
        if resp.status_code == 200:
            self.acked.append(resp.get_json()["version"])
        return int(resp.status_code)

    def missing(self, client: Any) -> list[int]:
        """The acknowledged versions that the game's history (read through ``client``) does not have."""
        resp = client.get(f"/v1/games/{self.game_id}/history")
        assert resp.status_code == 200, resp.get_data(as_text=True)
        versions = {event["version"] for event in resp.get_json()["events"]}
        return [v for v in self.acked if v not in versions]


class Players:
    """``count`` threads, each playing tables one after another through ``client`` until :meth:`stop`.
    Every status is counted, with the longest any step took (a step is up to three requests)."""

    def __init__(self, client: Any, count: int, pause: float = 0.0, first: list[Table] | None = None) -> None:
        self.client = client
        self.pause = pause
        self.tables: list[Table] = list(first or [])  # thread i plays first[i] before opening tables of its own
        self.statuses: collections.Counter[int] = collections.Counter()
        self.slowest = 0.0
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.halt = threading.Event()
        starts = [*(first or []), *[None] * count][:count]
        self.threads = [threading.Thread(target=self.play, args=(table,), daemon=True) for table in starts]
        for thread in self.threads:
            thread.start()

    def play(self, table: Table | None) -> None:
        while not self.halt.is_set():
            t0 = time.monotonic()
            try:
                if table is None or table.finished:
                    table, status = Table.open(self.client)
                    if table is not None:
                        with self.lock:
                            self.tables.append(table)
                else:
                    status = table.step()
            except Exception as exc:  # an exception the app let through (TESTING propagates them): a 500
                with self.lock:
                    self.errors.append(repr(exc))
                status = 500
            with self.lock:
                self.statuses[status] += 1
                self.slowest = max(self.slowest, time.monotonic() - t0)
            if self.pause:
                time.sleep(self.pause)

    @property
    def acked(self) -> int:
        with self.lock:
            return sum(len(t.acked) for t in self.tables)

    def wait_acked(self, more: int, timeout: float) -> bool:
        """Wait until ``more`` moves more than now were answered 2xx."""
        target = self.acked + more
        return bool(wait_until(lambda: self.acked >= target, timeout, 0.02))

    def stop(self) -> None:
        self.halt.set()
        for thread in self.threads:
            thread.join(30)
            assert not thread.is_alive(), "a client hangs"

    def missing(self, client: Any) -> dict[str, list[int]]:
        return {t.game_id: lost for t in self.tables if (lost := t.missing(client))}

"""Game records and their decoded engine states, kept per process by (game id, version).

A version's record never changes (every commit makes a new version), so a record read or committed once, and
its state decoded once, serve every later request for that version in this process: the next move on the
same game (which then needs no read at all: the commit's compare-and-set checks that the version is still
current), its seats' views, a computer player's turn played by the worker that committed the move before it.
Nothing may change a kept record in place: a change is a new record.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import domino
from api.service.records import GameRecord, state_of


class States:
    """A bounded LRU of (record, state) by game and version (``Settings.state_cache_size`` entries; 0 keeps
    none)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._by_version: OrderedDict[tuple[str, int], tuple[GameRecord, domino.State]] = OrderedDict()
        self._lock = threading.Lock()  # gthread workers share one cache across threads

    def _get(self, key: tuple[str, int]) -> tuple[GameRecord, domino.State] | None:
        with self._lock:
            kept = self._by_version.get(key)
            if kept is not None:
                self._by_version.move_to_end(key)
            return kept

    def of(self, game_id: str, version: int, doc: GameRecord) -> domino.State:
        """The state of ``doc``, the record of ``game_id`` at ``version``: decoded once per process."""
        kept = self._get((game_id, version))
        if kept is not None:
            return kept[1]
        state = state_of(doc)
        self.keep(game_id, version, doc, state)
        return state

    def kept(self, game_id: str, version: int) -> tuple[GameRecord, domino.State] | None:
        """The record of ``game_id`` at ``version`` and its state, if this process has them (it need not be
        current)."""
        return self._get((game_id, version))

    def keep(self, game_id: str, version: int, doc: GameRecord, state: domino.State) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._by_version[(game_id, version)] = (doc, state)
            self._by_version.move_to_end((game_id, version))
            while len(self._by_version) > self.size:
                self._by_version.popitem(last=False)

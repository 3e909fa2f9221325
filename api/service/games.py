"""The one way to read a game: :meth:`Games.find` (None when it is gone) and :meth:`Games.read` (404 when it
is gone) give a :class:`Game`, its version and record, whose engine state is decoded only when asked for, and
then once per process and version (:class:`api.service.states.States`).

Every use case reads a game through here, so where a game lives is decided in one place: Redis first (live
games, and finished ones until their grace expiry after archiving), then the archive. A game read from the
archive carries what was read of it there (``stored``: its record or its events, when the caller asked for
them), and ``archived`` says that the archive holds it, wherever it was read.
"""

from __future__ import annotations

from typing import Any

import domino
from api.archive import Archive, Archived, Part
from api.config import Settings
from api.service.errors import GameNotFound
from api.service.records import GameRecord, game_record
from api.service.states import States
from api.store import Store


class Game:
    """A game as read: its version and record (never changed in place: a change is a new record), whether the
    archive holds it, what was read of it there (``stored``), and its engine state, decoded on first use (a long
    poll or a lobby entry that only reads the record never pays for it). A class with slots, not a frozen
    dataclass: one is made on every move, and a frozen dataclass sets each field through ``object.__setattr__``."""

    __slots__ = ("id", "version", "doc", "states", "archived", "stored", "_state")

    def __init__(
        self, id: str, version: int, doc: GameRecord, states: States, archived: bool = False,
        stored: Archived | None = None, state: domino.State | None = None,
    ) -> None:  # fmt: skip
        self.id, self.version, self.doc, self.states = id, version, doc, states
        self.archived, self.stored = archived, stored
        self._state = state  # given when the process holds it already

    def __repr__(self) -> str:
        return f"Game(id={self.id!r}, version={self.version!r}, archived={self.archived!r})"

    @property
    def state(self) -> domino.State:
        """The engine's state of this version (:class:`States` decodes it once per process and version)."""
        state = self._state
        if state is None:
            state = self._state = self.states.of(self.id, self.version, self.doc)
        return state


def gone(game_id: str) -> GameNotFound:
    return GameNotFound(f"No game {game_id!r} (it may have expired).")


class Games:
    def __init__(self, store: Store, settings: Settings, archive: Archive) -> None:
        self.store = store
        self.archive = archive
        self.states = States(settings.state_cache_size)

    def find(self, game_id: str, parts: tuple[Part, ...] = ()) -> Game | None:
        """The game; read from the archive, with those ``parts`` of what it keeps (its record, its events)."""
        found = self.store.games.load(game_id)
        if found is None:
            return self._archived(game_id, parts)
        return Game(game_id, found.version, game_record(found.doc), self.states, found.archived)

    def find_live(self, game_ids: list[str]) -> dict[str, Game]:
        """Those of ``game_ids`` still in Redis, read together (the archive is not asked: what it holds is over)."""
        stored = self.store.games.load_many(game_ids)
        return {i: Game(i, g.version, game_record(g.doc), self.states, g.archived) for i, g in stored.items()}

    def _archived(self, game_id: str, parts: tuple[Part, ...]) -> Game | None:
        stored = self.archive.find(game_id, parts)
        if stored is None:
            return None
        return Game(game_id, stored.version, game_record(stored.doc), self.states, True, stored)

    def read(self, game_id: str, parts: tuple[Part, ...] = ()) -> Game:
        """The game (as :meth:`find`), or GameNotFound (404) when it is gone."""
        game = self.find(game_id, parts)
        if game is None:
            raise gone(game_id)
        return game

    def read_with_rounds(self, game_id: str) -> tuple[Game, list[dict[str, Any]]]:
        """The game and its finished rounds' records but the latest (which its live state holds), oldest first:
        what the history needs."""
        found = self.store.games.load_with_rounds(game_id)
        if found is None:
            return self.read(game_id, ("record",)), []  # from the archive, which keeps the whole record
        stored, rounds = found
        return Game(game_id, stored.version, game_record(stored.doc), self.states, stored.archived), rounds

    def version(self, game_id: str) -> int:
        """The current version only (no document read), or GameNotFound."""
        version = self.store.games.version(game_id)
        if version is None:
            raise gone(game_id)
        return version

    def kept(self, game_id: str, version: int) -> Game | None:
        """The game at ``version`` if this process holds its record (it need not be current): no read."""
        kept = self.states.kept(game_id, version)
        return None if kept is None else Game(game_id, version, kept[0], self.states, state=kept[1])

    def keep(self, game_id: str, version: int, doc: GameRecord, state: domino.State) -> None:
        """A record this process has just committed, with its state, for the next request on it."""
        self.states.keep(game_id, version, doc, state)

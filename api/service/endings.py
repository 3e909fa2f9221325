"""Games ended by the server rather than by play: a game left idle (``expired``, or ``aborted`` if it never
started), an owning app's abort, and an owning app's resignation for one of its seats.

Each is a ``decide`` function for the one commit loop (:class:`api.service.commits.Commits`), so an ended game
goes the way every ending goes: its webhooks, its creator's slot, its archive and rating entries.
"""

from __future__ import annotations

from typing import Any

import domino
from api.config import Settings
from api.service.errors import Forbidden, GameEnded, GameNotFound, InvalidRequest, NotStarted, Unauthorized, VersionMismatch
from api.service.apps import App
from api.service.commits import Change, Commits
from api.service.games import Game
from api.service.records import GameRecord, leaving_rounds, stored_event, waiting
from api.service.views import game_status, render_view
from api.store import Store

EXPIRED, ABORTED = "expired", "aborted"


class Endings:
    def __init__(self, store: Store, settings: Settings, commits: Commits) -> None:
        self.store = store
        self.settings = settings
        self.commits = commits

    def _ended(self, game: Game, reason: str) -> Change:
        """The change that ends ``game`` as loaded with ``reason`` (nobody wins)."""
        not_over(game)
        return self._change(game, *domino.end(game.state, reason))

    def _change(self, game: Game, new_state: domino.State, events: tuple[domino.Event, ...]) -> Change:
        live = domino.to_live(new_state)
        new_doc: GameRecord = {**game.doc, "state": live}
        stored = [stored_event(e) for e in events]
        rounds = leaving_rounds(game.doc["state"], live)
        return Change(new_doc, new_state, stored, None, rounds=rounds)

    def expire(self, game: Game) -> bool:
        """End ``game``, left idle as read (``aborted`` if it never started): False when a commit came first
        (it touched the game)."""

        def decide(current: Game) -> Change:
            return self._ended(current, ABORTED if waiting(current.doc) else EXPIRED)

        def moved_on(change: Change) -> VersionMismatch:
            return VersionMismatch("The game has moved on.", current_version=game.version)

        game_id = game.id
        try:
            self.commits.run(game_id, decide, moved_on, retry=False, loaded=game)
        except (VersionMismatch, GameNotFound):  # moved on, or gone: the next sweep looks again
            return False
        self.store.lobby.remove(game_id)
        return True

    def abort(self, app: App | None, game_id: str, expected: int | None = None) -> tuple[dict[str, Any], int]:
        """The owning ``app`` calls its game off (status ``aborted``), on version ``expected`` only if given:
        (the spectator's view, version)."""

        def decide(game: Game) -> Change:
            owned_by(app, game, expected)
            return self._ended(game, ABORTED)

        return self._commit(game_id, decide)

    def resign_seat(
        self, app: App, game_id: str, seat: int | None, expected: int | None = None
    ) -> tuple[dict[str, Any], int]:
        """The owning ``app`` resigns ``seat`` of its game (its side loses), on version ``expected`` only if
        given: (the spectator's view, version)."""

        def decide(game: Game) -> Change:
            owned_by(app, game, expected)
            seats = len(game.doc["seats"])
            if seat is None or not 0 <= seat < seats:
                why = f"the seat to resign, one of 0 to {seats - 1}"
                raise InvalidRequest(f"An app names {why}: `{{\"seat\": n}}`.", errors={"json": {"seat": [why]}})
            not_over(game)
            if waiting(game.doc):
                raise NotStarted("The game has not started: its app calls it off with `POST .../abort`.")
            change = self._change(game, *domino.resign(game.state, seat))
            change.doc["resigned"] = seat
            return change

        return self._commit(game_id, decide)

    def _commit(self, game_id: str, decide: Any) -> tuple[dict[str, Any], int]:
        def conflict(change: Change) -> VersionMismatch:
            return VersionMismatch("The game kept changing; retry.", current_version=self.commits.games.version(game_id))

        committed = self.commits.run(game_id, decide, conflict)
        self.store.lobby.remove(game_id)
        change = committed.change
        return render_view(change.doc, committed.version, change.state, None), committed.version


def owned_by(app: App | None, game: Game, expected: int | None) -> None:
    """Only the app that created a game runs it (no key: 401, another app's: 403), on ``expected`` if given."""
    if app is None:
        raise Unauthorized("An app key is needed: `Authorization: Bearer dsk_app_...`.")
    if game.doc.get("app") != app.id:
        raise Forbidden("This game belongs to another app (or to none).")
    if expected is not None and expected != game.version:
        raise VersionMismatch(f"The game is at version {game.version}.", current_version=game.version)


def not_over(game: Game) -> None:
    if game.state.finished:
        status = game_status(game.state, game.doc)
        raise GameEnded(f"The game is already over: it is {status}.", game_status=status)

"""Changes to a game's play: a move (by a seat token, or for a seat by the server), a resignation, a seat
claim. Each is a ``decide`` function for the one commit loop (:class:`api.service.commits.Commits`).

A computer player's turn and a timed-out seat's turn are one routine, :meth:`Moves.play_for_seat`: read the
game once, let a strategy choose, commit on exactly that version (a stale job does nothing).
"""

from __future__ import annotations

import hashlib
import logging
import random
from collections.abc import Callable
from typing import Any

import orjson

import domino
import domino.bots
from api.config import Settings
from api.service.errors import (
    Forbidden, IdempotencyKeyReused, InvalidRequest, NotStarted, SeatLimit, SeatNotFound, SeatTaken, Unauthorized,
    VersionMismatch,
)  # fmt: skip
from api.service import metrics
from api.service.bot_games import away_after
from api.service.commits import Answer, Change, Commits, Committed
from api.service.games import Game
from api.service.records import (
    HUMAN, OPEN, REGISTERED, SEAT_EXTRAS, GameRecord, LastMove, SeatRecord, count_turn, leaving_rounds, listed, stored_event,
    waiting,
)  # fmt: skip
from api.service.security import authenticate, fingerprint, new_token, token_bot, token_hash
from api.service.views import MINIMAL_VIEW, minimal_view, render_view
from api.store import Store, StoreUnavailable

log = logging.getLogger("api.service.moves")

# What a seat's strategy is asked: the game as read, and its state; it answers (seat, move) or why not.
Choose = Callable[[GameRecord, domino.State], "tuple[int, domino.Move] | str"]


def mismatch(doc: GameRecord, current: int, seat: int | None) -> VersionMismatch:
    """412: the game is at ``current``; ``seat``'s last accepted move tells a client whether its retry landed."""
    last = (doc.get("last_moves") or {}).get(str(seat))
    return VersionMismatch(f"The game is at version {current}.", current_version=current, last_move=last)


def moved_by(doc: GameRecord, seat: int, auto: bool) -> str:
    """The ``by`` label of a move: ``auto``, or the kind of the seat (``human``, ``hosted``, ``registered``,
    ``bot``)."""
    return "auto" if auto else doc["seats"][seat]["kind"]


class Moves:
    def __init__(self, store: Store, settings: Settings, commits: Commits) -> None:
        self.store = store
        self.settings = settings
        self.commits = commits

    def _change(
        self, doc: GameRecord, state: domino.State, version: int, seat: int, move: domino.Move, auto: bool
    ) -> Change:
        """``move`` for ``seat`` on the game as loaded at ``version`` (raises on an illegal move)."""
        if waiting(doc):
            raise NotStarted("The game is waiting for its open seats to be taken.")
        new_state, events = domino.step(state, move, seat=seat)  # raises: nothing written
        last: LastMove = {"version": version + 1, "move": move.to_dict()}
        last_moves = {**(doc.get("last_moves") or {}), str(seat): last}
        live = domino.to_live(new_state)
        new_doc: GameRecord = {**doc, "state": live, "last_moves": last_moves}
        new_doc["away"] = away_after(self.settings, doc, seat, auto)
        count_turn(new_doc, seat, auto)
        stored = list(map(stored_event, events))
        return Change(new_doc, new_state, stored, seat, auto=auto, rounds=leaving_rounds(doc["state"], live))

    def _played(self, committed: Committed) -> None:
        change = committed.change
        assert change.seat is not None
        metrics.move_played(change.doc["variant"], moved_by(change.doc, change.seat, change.auto))
        record = change.doc["seats"][change.seat]
        if record["kind"] == REGISTERED:  # its availability: deadlines missed in a row
            bots, name = self.store.bots, record.get("bot", "")
            try:
                if change.auto:
                    bots.missed(name)
                else:
                    bots.answered(name)
            except StoreUnavailable:  # the move has landed: answer it; the count catches up at the next one
                log.warning("could not count %s's turn in %s", name, change.doc["id"], exc_info=True)

    def play(
        self,
        game_id: str,
        move_data: dict[str, Any],
        token: str | None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        minimal: bool = False,
    ) -> tuple[dict[str, Any], int]:
        """Play, draw or pass for the token's seat: (its view, or the minimal one; the new version)."""
        move = domino.parse_move(move_data)  # InvalidMoveError -> 422, before any I/O
        bot = token_bot(self.store, token)

        def decide(game: Game) -> Change:
            version, doc = game.version, game.doc
            if token is None:
                raise Unauthorized("A seat token is needed to move: `Authorization: Bearer <token>`.")
            seat = authenticate(doc, token, bot)
            assert seat is not None
            answer = None
            if idempotency_key:
                answer = Answer(
                    hashlib.sha256(f"{seat}:{idempotency_key}".encode()).hexdigest(),
                    fingerprint("move", move.to_dict(), expected_version),
                )
                stored = self.store.games.move_answer(game_id, answer.field)
                if stored is not None:
                    first = orjson.loads(stored)
                    if first["fp"] != answer.fingerprint:
                        raise IdempotencyKeyReused("This Idempotency-Key was used with a different move.")
                    raise Replayed(first["view"], first["version"])
            if expected_version is not None and expected_version != version:
                raise mismatch(doc, version, seat)
            change = self._change(doc, game.state, version, seat, move, auto=False)
            change.answer = answer
            return change

        try:
            committed = self.commits.run(
                game_id, decide, self._mismatch_now(game_id), retry=expected_version is None, expected=expected_version
            )
        except Replayed as first:
            return ({k: first.view[k] for k in MINIMAL_VIEW} if minimal else first.view), first.version
        self._played(committed)
        change, version = committed.change, committed.version
        if minimal:
            return minimal_view(change.doc, version, change.state, change.seat), version
        if change.answer is not None and change.answer.view is not None:
            return change.answer.view, version
        return render_view(change.doc, version, change.state, change.seat), version

    def _mismatch_now(self, game_id: str) -> Callable[[Change], VersionMismatch]:
        def conflict(change: Change) -> VersionMismatch:
            game = self.commits.games.read(game_id)
            return mismatch(game.doc, game.version, change.seat)

        return conflict

    def play_for_seat(self, game_id: str, version: int, choose: Choose, auto: bool) -> str:
        """The server's move for a seat (a computer player's, or a timed-out seat's when ``auto``) if the game
        is still at ``version``: reads the game once. Returns what happened (RQ keeps it as the job's result)."""
        found = self.commits.games.find(game_id)  # a stale job must stop before its strategy thinks
        if found is None:
            return "gone"
        if found.version != version:
            return "stale"
        chosen = choose(found.doc, found.state)
        if isinstance(chosen, str):
            return chosen
        seat, move = chosen

        def decide(game: Game) -> Change:
            return self._change(game.doc, game.state, game.version, seat, move, auto)

        def stale(change: Change) -> VersionMismatch:
            return VersionMismatch("The game has moved on.", current_version=version)

        try:
            committed = self.commits.run(game_id, decide, stale, retry=False, loaded=found)
        except VersionMismatch:
            return "stale"
        self._played(committed)
        return "played"

    def play_for_seats(
        self, turns: list[tuple[str, int]], choose: Callable[[str, int], Choose], auto: bool
    ) -> list[str]:
        """:meth:`play_for_seat` for each (game id, version) of a batch, ``choose(game id, version)`` choosing,
        in a few round trips for the batch: the games read together, the moves committed together
        (:meth:`Commits.apply_many`: each on exactly the version read). What happened to each, in order. If a
        strategy fails, the other moves are made and then the error is raised."""
        found = self.commits.games.find_live([game_id for game_id, _ in turns])
        done: dict[int, str] = {}
        changes: list[tuple[str, int, Change]] = []
        at: list[int] = []  # the index in ``turns`` of each change
        failed: Exception | None = None
        for i, (game_id, version) in enumerate(turns):
            game = found.get(game_id)
            if game is None or game.version != version:
                done[i] = "gone" if game is None else "stale"
                continue
            try:
                chosen = choose(game_id, version)(game.doc, game.state)
                if isinstance(chosen, str):
                    done[i] = chosen
                    continue
                changes.append((game_id, version, self._change(game.doc, game.state, version, *chosen, auto)))
                at.append(i)
            except Exception as exc:  # the others are still played
                log.exception("no move for the seat of %s@%s", game_id, version)
                done[i], failed = "failed", exc
        for i, committed in zip(at, self.commits.apply_many(changes)):
            if isinstance(committed, str):
                done[i] = committed
            else:
                self._played(committed)
                done[i] = "played"
        if failed is not None:
            raise failed
        return [done[i] for i in range(len(turns))]

    def resign(
        self, game_id: str, token: str | None, expected_version: int | None = None, named: int | None = None
    ) -> tuple[dict[str, Any], int]:
        """The token's seat resigns (on ``expected_version`` only, when given): the game ends and the other side
        wins. (view, version). A seat ``named`` in the body is the owning app's to send: a 422, once the token
        is known to be one of the game's (credentials are judged first)."""
        if token is None:
            raise Unauthorized("A seat token is needed to resign: `Authorization: Bearer <token>`.")
        bot = token_bot(self.store, token)

        def decide(game: Game) -> Change:
            doc = game.doc
            seat = authenticate(doc, token, bot)
            assert seat is not None
            if named is not None:
                why = "a seat token resigns its own seat (send no body); `seat` is for the owning app's key"
                raise InvalidRequest(f"No `seat` here: {why}.", errors={"json": {"seat": [why]}})
            if expected_version is not None and expected_version != game.version:
                raise mismatch(doc, game.version, seat)
            new_state, events = domino.resign(game.state, seat)  # GameOverError -> 409 game-over
            live = domino.to_live(new_state)
            new_doc: GameRecord = {**doc, "state": live, "resigned": seat}
            stored = list(map(stored_event, events))
            return Change(new_doc, new_state, stored, seat, rounds=leaving_rounds(doc["state"], live))

        committed = self.commits.run(game_id, decide, self._kept_changing(game_id))
        self.store.lobby.remove(game_id)
        change = committed.change
        return render_view(change.doc, committed.version, change.state, change.seat), committed.version

    def claim_seat(
        self, game_id: str, seat: int, name: str, client: str, expected_version: int | None = None, app_id: str | None = None
    ) -> tuple[dict[str, Any], str, int]:
        """Claim open ``seat`` for ``name`` (on ``expected_version`` only, when given): (that seat's view, its
        token, version). A seat that names an app's ``player`` is claimed only with that app's key (``app_id``:
        the caller's app): it is the app's user, rated as such. Of many concurrent claims
        of one seat exactly one commits; the others find it taken when they load again. In a listed game
        ``client`` (the caller's address) may hold at most ``seats_per_client`` claimed seats, so that one
        client cannot take every open seat; the count is checked in the same commit, so it holds under races."""
        token = new_token()
        cap = self.settings.seats_per_client

        def decide(game: Game) -> Change:
            doc = game.doc
            if not 0 <= seat < len(doc["seats"]):
                raise SeatNotFound(f"This game has seats 0 to {len(doc['seats']) - 1}.")
            if expected_version is not None and expected_version != game.version:
                raise mismatch(doc, game.version, None)
            if doc["seats"][seat]["kind"] != OPEN:
                raise SeatTaken(f"Seat {seat} is taken.")
            if "player" in doc["seats"][seat] and app_id != doc.get("app"):
                raise Forbidden(f"Seat {seat} is the app's player's: only the app that created the game claims it, with its key.")
            state = game.state
            if state.finished:
                raise domino.GameOverError("the game is over")
            held = sum(1 for x in doc["seats"] if x.get("client") == client)
            if listed(doc) and cap > 0 and held >= cap:
                raise SeatLimit(f"This client already holds {held} of this game's seats, as many as one client may.")
            seats: list[SeatRecord] = [{**x} for x in doc["seats"]]
            claimed: SeatRecord = {
                "seat": seat, "name": name, "kind": HUMAN, "token_hash": token_hash(game_id, token), "client": client,
            }  # fmt: skip
            for extra in SEAT_EXTRAS:  # the open seat's player and metadata stay with it
                if extra in doc["seats"][seat]:
                    claimed[extra] = doc["seats"][seat][extra]  # type: ignore[literal-required]
            seats[seat] = claimed
            new_doc: GameRecord = {**doc, "seats": seats}
            events: list[Any] = [{"public": {"type": "seat_claimed", "seat": seat, "name": name}}]
            if not waiting(new_doc):
                events.append({"public": {"type": "game_started", "seat": None, "turn": state.to_move}})
            return Change(new_doc, state, events, seat)

        committed = self.commits.run(game_id, decide, self._kept_changing(game_id))
        change = committed.change
        if not waiting(change.doc):
            self.store.lobby.remove(game_id)
        return render_view(change.doc, committed.version, change.state, seat), token, committed.version

    def _kept_changing(self, game_id: str) -> Callable[[Change], VersionMismatch]:
        def conflict(change: Change) -> VersionMismatch:
            return VersionMismatch("The game kept changing; retry.", current_version=self.commits.games.version(game_id))

        return conflict


class Replayed(Exception):
    """A retried move (same Idempotency-Key) found its first answer: nothing to commit, answer as then. An
    exception because it ends the commit loop from inside ``decide`` (on a reload too: a concurrent twin of
    the request may have committed first)."""

    def __init__(self, view: dict[str, Any], version: int) -> None:
        super().__init__(version)
        self.view = view
        self.version = version

"""Hints in practice games: a ``hints: true`` game's seat to move asks for its legal moves, valued and ranked.

The API never searches: :meth:`Hints.ask` checks the request, enqueues one job on the ``hints`` queue
(``workers.jobs.hint_moves``) and waits for its answer (at most ``Settings.hint_wait`` seconds); the worker
values the moves (:meth:`Hints.values`: reads the game, writes nothing). The hint is then a commit: the event
``hint_used`` and one more in the seat's ``hints_used``, so everyone watching sees it. That commit keeps the
turn as it is (same deadline, the clock still running): asking for a hint buys no time.

A move's value is an analysis's (:func:`domino.analysis.move_values`: the expected final point margin of the
current round for the mover's side, from the mover's information), searched with ``Settings.hint_nodes``
nodes and a seed from the game's secret salt and the position: the same position gets the same hint.
"""

from __future__ import annotations

import random
import time
from typing import Any

import domino
from domino.analysis import move_values
from api.config import Settings
from api.queues import HINT, Queues
from api.service.commits import Change, Commits
from api.service.errors import HintsOff, HintUnavailable, NotStarted, Unauthorized, VersionMismatch
from api.service.games import Game, Games
from api.service.records import GameRecord, StoredEvent, waiting
from api.service.security import authenticate, fingerprint, private_rng_seed, token_bot
from api.store import Store

def hints_used(doc: GameRecord, seat: int) -> int:
    return int((doc.get("hints_used") or {}).get(str(seat), 0))


def check_turn(doc: GameRecord, state: domino.State, seat: int) -> None:
    """A hint is for the seat to move of a started game that has hints on."""
    if not doc.get("hints"):
        raise HintsOff("This game has no hints: a game created with `\"hints\": true` has them (never a rated one).")
    if waiting(doc):
        raise NotStarted("The game is waiting for its open seats to be taken.")
    if state.finished:
        raise domino.GameOverError("the game is over")
    if state.to_move != seat:
        raise domino.NotYourTurnError(f"seat {state.to_move} is to move, not seat {seat}")


def round_points(state: domino.State) -> tuple[int, ...]:
    """Each side's points so far in this round (All Fives scores in play), as the evaluator counts them."""
    if not state.round_points:
        return ()
    return tuple(state.round_points[side] for side in range(state.rules.sides))


def ranked(state: domino.State, seat: int, rng: random.Random, nodes: int) -> list[dict[str, Any]]:
    """``seat``'s legal moves with their values (as an analysis values them), best first (ties in the order of
    ``legal_moves``)."""
    valued = move_values(domino.view(state, seat), rng, nodes, round_points(state))
    return sorted(({"move": v.move.to_dict(), "value": v.value} for v in valued), key=lambda m: -float(m["value"]))


class Hints:
    def __init__(self, store: Store, settings: Settings, games: Games, commits: Commits, queues: Queues) -> None:
        self.store = store
        self.settings = settings
        self.games = games
        self.commits = commits
        self.queues = queues

    def ask(self, game_id: str, token: str | None) -> dict[str, Any]:
        """The token's seat's hint: ``{"version", "seat", "hints_used", "moves": [{"move", "value"}]}``, best
        first; ``version`` is the hint's commit (post the next move with it as ``expected_version``)."""
        if token is None:
            raise Unauthorized("A seat token is needed to ask for a hint: `Authorization: Bearer <token>`.")
        bot = token_bot(self.store, token)
        game = self.games.read(game_id)
        seat = authenticate(game.doc, token, bot)
        assert seat is not None
        check_turn(game.doc, game.state, seat)
        job = self.queues.enqueue(HINT, game_id, game.version, seat, attempt=time.time_ns())
        answer = self.queues.answer(job, self.settings.hint_wait)
        if answer is None:
            raise HintUnavailable(
                f"No hint within {self.settings.hint_wait:g} s (are the hints workers running?); nothing was counted.",
                self.settings.capacity_retry_after,
            )
        if "moves" not in answer:  # the game moved on before the worker read it
            raise self._moved_on(game_id)
        position = game.doc["state"]

        def decide(now: Game) -> Change:
            doc = now.doc
            if authenticate(doc, token, bot) != seat:
                raise Unauthorized("This token is no longer this seat's.")
            check_turn(doc, now.state, seat)
            if doc["state"] != position:
                raise self._moved_on(game_id)
            used = hints_used(doc, seat) + 1
            new_doc: GameRecord = {**doc, "hints_used": {**(doc.get("hints_used") or {}), str(seat): used}}
            event: StoredEvent = {"public": {"type": "hint_used", "seat": seat, "hints_used": used}}
            return Change(new_doc, now.state, [event], seat, keeps_turn=True)

        committed = self.commits.run(game_id, decide, lambda change: self._moved_on(game_id))
        return {
            "version": committed.version,
            "seat": seat,
            "hints_used": hints_used(committed.change.doc, seat),
            "moves": answer["moves"],
        }

    def _moved_on(self, game_id: str) -> VersionMismatch:
        current = self.games.read(game_id).version
        return VersionMismatch("The game moved on while the hint was searched; ask again.", current_version=current)

    def values(self, game_id: str, version: int, seat: int) -> dict[str, Any]:
        """The job: ``seat``'s legal moves valued at ``version`` (``{"moves": [...]}``), or ``{"outcome":
        "stale"}`` when the game is no longer at that version (or gone)."""
        game = self.games.find(game_id)
        if game is None or game.version != version or game.state.to_move != seat:
            return {"outcome": "stale"}
        doc = game.doc
        rng = random.Random(private_rng_seed(doc, f"hint:{game_id}:{fingerprint(doc['state'])}"))
        return {"outcome": "valued", "moves": ranked(game.state, seat, rng, self.settings.hint_nodes)}

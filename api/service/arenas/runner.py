"""Arenas with their records: create, read, start the games that fit, count the games that end.

An arena's games are real games, created through :meth:`api.service.create.Creation.create_for_arena` (rated,
unlisted, their ids fixed by the arena's id and the game's index), played by the bots through the usual turn
jobs; each, when it ends, is rated and counted by ``workers.jobs.rate_game``
(:meth:`Arenas.game_ended`), which then starts the games that now fit (each arena has its own cap of games in
play, so no arena waits for another). The sweep moves every running arena on too
(:meth:`Arenas.advance_running`), so a lost job loses nothing.

An arena has an owner (the app key or bot token that created it; :class:`ArenaOwner`), who lists and cancels
its arenas and has a cap of arenas running at once. A registered bot enters only its owner's arenas, or every
arena once its owner opened it to arenas: that is the consent its seats in the arena's games rest on. Each step can run twice or concurrently: a game's id is fixed (a second creation finds it exists),
its slots are held per game, and its result is counted once.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson

import domino
import domino.bots
from api.config import Settings
from api.service.errors import ArenaNotFound, Forbidden, InvalidRequest, TooManyArenas
from api.service.arenas.spec import ArenaOwner, ArenaRequest, ArenaSpec, make_spec
from api.service.arenas.standings import render
from api.service.create import Creation
from api.service.games import Games
from api.service.ratings import Ratings, seat_ranks
from api.service.records import ArenaGame, GameRecord
from api.service.security import deal_seed, derived_id, is_id, new_id
from api.store import Store, StoreUnavailable
from api.store.arenas import FULL, TAKEN

log = logging.getLogger("api.service.arenas")


class Arenas:
    def __init__(self, store: Store, settings: Settings, games: Games, creation: Creation, ratings: Ratings) -> None:
        self.store = store
        self.records = store.arenas
        self.settings = settings
        self.games = games
        self.creation = creation
        self.ratings = ratings

    def create(self, request: ArenaRequest, owner: ArenaOwner) -> tuple[str, dict[str, Any]]:
        """Validate, write the record (``running``) and start the first games. Returns (id, the arena)."""
        self._check_entries(request.bots, owner)
        entered = frozenset(request.bots)
        spec = make_spec(self.settings, request, lambda game: self.creation.check(game, entered=entered))
        arena_id = new_id()
        cap = self.settings.arenas_per_owner
        if not self.records.create(arena_id, owner.key, cap, {"spec": spec.to_json(), "games": spec.games}):
            raise TooManyArenas(
                f"This caller has {cap} arenas running, as many as one owner may; wait for one to end or cancel one.",
                self.settings.capacity_retry_after,
            )
        self.advance(arena_id)
        return arena_id, self.get(arena_id)

    def _check_entries(self, bots: list[str], owner: ArenaOwner) -> None:
        """403 for a registered bot the owner may not enter: not its own, and not opened to arenas by its
        owner. (An unknown name is left to the game check: 422.)"""
        for i, name in enumerate(bots):
            found = None if name in domino.bots.ids() else self.store.bots.get(name)
            if found is not None and not owner.may_enter(found[0]):
                raise Forbidden(
                    f"`bots[{i}]`: {name!r} enters only its owner's arenas (its owner may open it to every arena "
                    "with PATCH /v1/bots/{name} {\"arenas\": \"open\"})."
                )

    def owned(self, owner: ArenaOwner, before: tuple[float, str] | None, limit: int) -> tuple[list[dict[str, Any]], tuple[float, str] | None]:
        """A page of the owner's arenas, newest first, and the cursor of the next page (None: the last)."""
        rows = self.records.owned(owner.key, before, limit + 1)
        arenas = []
        for arena_id, _ in rows[:limit]:
            try:
                arenas.append(self.get(arena_id))
            except ArenaNotFound:  # expired since it was listed
                continue
        more = len(rows) > limit
        return arenas, (rows[limit - 1][1], rows[limit - 1][0]) if more else None

    def cancel(self, arena_id: str, owner: ArenaOwner) -> dict[str, Any]:
        """Start no more of the arena's games (those in play end and count): ``cancelled``. 403 for another
        caller's arena; an arena over already is answered as it is."""
        found = self.records.load(arena_id) if is_id(arena_id) else None
        if found is None:
            raise ArenaNotFound(f"No arena {arena_id[:40]!r} (or it expired).")
        if found[0].get("owner") != owner.key:
            raise Forbidden("Only the arena's creator cancels it (the key or token that created it).")
        self.records.cancel(arena_id, owner.key)
        return self.get(arena_id)

    def get(self, arena_id: str) -> dict[str, Any]:
        found = self.records.load(arena_id) if is_id(arena_id) else None
        if found is None:
            raise ArenaNotFound(f"No arena {arena_id[:40]!r} (or it expired).")
        fields, now = found
        spec = ArenaSpec.from_json(fields["spec"])
        return render(arena_id, spec, fields, now, self.ratings.of_bots(spec.variant, spec.bots))

    def sealed(self, doc: GameRecord) -> bool:
        """An arena's game whose arena is still running: its deals (the seed) are played in other games of the
        arena, so its history reveals them only when the whole arena is over (finished, failed or cancelled)."""
        return "arena" in doc and self.records.is_running(doc["arena"]["id"])

    def advance(self, arena_id: str) -> int:
        """Start the arena's next games, in order, while their bots have slots free. Returns how many. When a
        game cannot be created (a registered bot retired, or unavailable after missing its deadlines), the arena
        stops: ``failed``, with the reason; its games in play still end and count."""
        found = self.records.load(arena_id)
        if found is None:
            self.records.forget(arena_id)
            return 0
        fields = found[0]
        if fields.get("status") != "running":
            return 0
        spec = ArenaSpec.from_json(fields["spec"])
        owner = fields.get("owner", "")
        lease_ms = self.settings.game_ttl * 1000
        started = 0
        for index in range(spec.games):
            if f"g:{index}" in fields:
                continue
            taken = self.records.take_slot(arena_id, index, spec.per_bot, lease_ms)
            if taken == FULL:
                break  # as many of its games in play as it may have
            game_id = derived_id(arena_id, index)
            if taken == TAKEN:
                try:
                    self._create(spec, arena_id, index, game_id)
                except InvalidRequest as exc:  # a registered bot retired or unavailable since: the arena stops
                    self.records.fail(arena_id, owner, index, f"game {index}: {exc.detail}"[:500])
                    return started
                started += 1
            self.records.started(arena_id, index, game_id)
        return started

    def _create(self, spec: ArenaSpec, arena_id: str, index: int, game_id: str) -> None:
        seed = deal_seed(spec.seed, spec.deal(index))
        arena: ArenaGame = {"id": arena_id, "game": index}
        self.creation.create_for_arena(game_id, spec.game_request(index), seed, arena, spec.deal_version)

    def advance_running(self) -> list[str]:
        """The sweep's pass: move every running arena on. Returns the arenas that started games."""
        moved = []
        for arena_id in self.records.running():
            try:
                if self.advance(arena_id):
                    moved.append(arena_id)
            except StoreUnavailable:
                raise
            except Exception:  # a bug: one arena must not keep the sweep from the others
                log.exception("arena %s: could not start its games", arena_id)
        return moved

    def game_ended(self, game_id: str) -> str:
        """A rated game has ended: rate it, and if it is an arena's, count it and start the games that now
        fit. Returns what happened; idempotent."""
        found = self.games.find(game_id)
        if found is None:
            self.store.ratings_due.clear(game_id)
            return "gone"
        doc, state = found.doc, found.state
        if not state.finished:
            return "not over"
        outcome = self.ratings.rate(doc, state)
        if "arena" in doc:
            outcome += "; " + self._count(doc, state)
        self.store.ratings_due.clear(game_id)
        return outcome

    def _count(self, doc: GameRecord, state: domino.State) -> str:
        assert state.outcome is not None
        ref = doc["arena"]
        found = self.records.load(ref["id"])
        owner = found[0].get("owner", "") if found is not None else ""
        result = {
            "scores": list(state.scores),
            "winners": list(state.outcome.winners),
            "places": seat_ranks(state),
        }
        counted = self.records.ended(ref["id"], owner, ref["game"], orjson.dumps(result).decode())
        started = self.advance(ref["id"])
        return {1: "counted", 0: "counted before", -1: "arena gone"}[counted] + f", {started} games started"

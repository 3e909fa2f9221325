"""Rematch: after a game ends, the same table again, once every seat that decides has accepted.

Any seat of a finished game offers it (``POST /v1/games/{id}/rematch`` with its seat token, or a registered
bot's token for its seat); the other human seats and registered bots accept with the same call, or decline;
computer players and hosted seats accept at once. The first call makes the offer and reserves the new game's
id and its seats' tokens (so every accepter can be told its own), and the acceptance that completes it (one
script counts them: exactly one caller completes an offer) creates the game through the same checks and
first commit as any game (idempotent by the reserved id), then commits ``rematch_created`` (with
``next_game_id``) on the finished game: spectators follow the table. One new game per finished game.
"""

from __future__ import annotations

import time
from typing import Any

from api.config import Settings
from api.service.commits import Change, Commits
from api.service.create import Creation, GameRequest
from api.service.errors import GameNotOver, OfferClosed, Unauthorized
from api.service.games import Game, Games
from api.service.records import BOT, HOSTED, HUMAN, REGISTERED, SEAT_EXTRAS
from api.service.security import authenticate, new_id, new_token, token_bot
from api.service.views import game_status, render_view
from api.store import Store

DEFAULT_TIMEOUT_S = 60.0
DECIDES = (HUMAN, REGISTERED)  # seats that must accept; computer players and hosted seats accept at once


def _seat_request(seat: dict[str, Any]) -> dict[str, Any]:
    """A seat of the new game, as the finished game's seat was asked for."""
    if seat["kind"] in (BOT, REGISTERED):
        out: dict[str, Any] = {"bot": seat["bot"], **({"think_ms": seat["think_ms"]} if "think_ms" in seat else {})}
    else:
        out = {"name": seat["name"], **({"webhook": seat["webhook"]} if seat["kind"] == HOSTED else {})}
    return {**out, **{k: seat[k] for k in SEAT_EXTRAS if k in seat}}


def same_table(game: Game) -> GameRequest:
    """The finished game's table again: variant, rules, seats in the same places, timing, rated, hints; a new
    seed."""
    doc = game.doc
    rules = {k: v for k, v in game.state.rules.to_dict().items() if k not in ("variant", "players")}
    clock = doc.get("clock")
    return GameRequest(
        variant=doc["variant"],
        seats=[_seat_request(dict(s)) for s in doc["seats"]],
        rules=rules,
        unlisted=True,
        turn_timeout_s=doc.get("turn_timeout_s"),
        clock={"initial_s": clock["initial_s"], "increment_s": clock["increment_s"]} if clock else None,
        metadata=doc.get("metadata"),
        rated=bool(doc.get("rated")),
        hints=bool(doc.get("hints")),
    )


class Rematches:
    def __init__(self, store: Store, settings: Settings, games: Games, creation: Creation, commits: Commits) -> None:
        self.store = store
        self.settings = settings
        self.games = games
        self.creation = creation
        self.commits = commits

    def _seat(self, game_id: str, token: str | None) -> tuple[Game, int]:
        game = self.games.read(game_id)
        seat = authenticate(game.doc, token, token_bot(self.store, token))
        if seat is None:
            raise Unauthorized("A rematch is offered, accepted or declined with a seat token of the game.")
        if game_status(game.state, game.doc) != "finished":
            raise GameNotOver("A rematch is offered once the game has finished.")
        return game, seat

    def accept(self, game_id: str, token: str | None, timeout_s: float | None = None) -> tuple[int, dict[str, Any]]:
        """Offer or accept: (201, the new game's view for the caller and its token) when this acceptance
        completes the offer, else (202, the offer)."""
        game, seat = self._seat(game_id, token)
        seats = game.doc["seats"]
        needed = [s["seat"] for s in seats if s["kind"] in DECIDES]
        tokens = [new_token() if s["kind"] in (HUMAN, HOSTED) else None for s in seats]
        expires = time.time() + (timeout_s or DEFAULT_TIMEOUT_S)
        status, outcome = self.store.rematches.accept(game_id, seat, time.time(), expires, needed, new_id(), tokens)
        if outcome in ("closed", "again"):
            why = "you accepted it already" if outcome == "again" else f"it is {status}"
            raise OfferClosed(f"This rematch offer is not open to you: {why}.", rematch_status=status)
        offer = self.store.rematches.get(game_id)
        assert offer is not None
        if outcome == "waiting":
            if len(offer["accepted"]) == 1:
                self._tell_bots(game, offer)
            return 202, self._shown(game_id, offer, seat)
        next_id = self._create(game, offer)
        view, version = self._view(next_id, seat)
        return 201, {"game": view, "token": offer["tokens"][seat], "version": version}

    def _create(self, game: Game, offer: dict[str, Any]) -> str:
        """Make the reserved game (again, harmlessly, after a crash) and link it from the finished game."""
        next_id = str(offer["next"])
        self.creation.create_for_match(next_id, same_table(game), offer["tokens"], game.doc.get("app"))
        if game.doc.get("next_game_id") != next_id:
            try:
                self.commits.run(game.id, lambda g: self._link(g, next_id), lambda c: OfferClosed("linked meanwhile"))
            except OfferClosed:
                pass  # another call (a retry after a crash) linked it
        self.store.rematches.created(game.id)
        return next_id

    @staticmethod
    def _link(game: Game, next_id: str) -> Change:
        if game.doc.get("next_game_id"):
            raise OfferClosed("linked meanwhile")
        doc = {**game.doc, "next_game_id": next_id}
        event = {"public": {"type": "rematch_created", "seat": None, "next_game_id": next_id}}
        return Change(doc, game.state, [event], None)  # type: ignore[arg-type, list-item]

    def _view(self, game_id: str, seat: int) -> tuple[dict[str, Any], int]:
        new = self.games.read(game_id)
        return render_view(new.doc, new.version, new.state, seat), new.version

    def _tell_bots(self, game: Game, offer: dict[str, Any]) -> None:
        """Registered bots hear of the offer on their stream (they accept with their token)."""
        notices = [
            (s["bot"], {"type": "rematch", "game_id": game.id, "seat": s["seat"], "version": game.version,
                        "expires_at": offer["expires_at"]})
            for s in game.doc["seats"] if s["kind"] == REGISTERED
        ]  # fmt: skip
        self.store.bots.push(notices)

    def decline(self, game_id: str, token: str | None) -> dict[str, Any]:
        _, seat = self._seat(game_id, token)
        if not self.store.rematches.decline(game_id, time.time()):
            offer = self.store.rematches.get(game_id)
            status = offer["status"] if offer else "none"
            raise OfferClosed(f"There is no open rematch offer to decline (it is {status}).", rematch_status=status)
        offer = self.store.rematches.get(game_id)
        assert offer is not None
        return self._shown(game_id, offer, seat)

    def read(self, game_id: str, token: str | None) -> dict[str, Any]:
        """The offer as the seat sees it: once the game exists, its id and this seat's new token. A completed
        offer whose game a crash left unmade is made now."""
        game, seat = self._seat(game_id, token)
        offer = self.store.rematches.get(game_id)
        if offer is None:
            return {"status": "none", "next_game_id": None, "token": None, "accepted": [], "expires_at": None}
        if offer["status"] == "creating":
            self._create(game, offer)
            offer["status"] = "created"
        return self._shown(game_id, offer, seat)

    @staticmethod
    def _shown(game_id: str, offer: dict[str, Any], seat: int) -> dict[str, Any]:
        created = offer["status"] == "created"
        return {
            "status": offer["status"],
            "expires_at": offer["expires_at"],
            "accepted": offer["accepted"],
            "next_game_id": offer["next"] if created else None,
            "token": offer["tokens"][seat] if created else None,
        }

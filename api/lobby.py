"""Open seats and the lobby (issue 5).

A game created with ``{"open": true}`` seats is ``waiting`` (its first round is dealt at creation, nobody
can move) and, unless ``unlisted``, is in the lobby index (a sorted set by creation time on the queue
connection). ``claim_seat`` takes an open seat with one compare-and-set of the game document, so of many
concurrent claimants of one seat exactly one wins; the others get 409 ``seat-taken``. A claim is a commit
like a move: the version goes up by one and a ``seat_claimed`` event is appended (plus ``game_started`` when
the last seat is taken, which starts the clocks and the computer players).
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

import domino
from api import turns
from api.errors import GameNotFound, SeatNotFound, SeatTaken, VersionMismatch

if TYPE_CHECKING:
    from api.service import Service


def claim_seat(service: Service, game_id: str, seat: int, name: str) -> tuple[dict[str, Any], str, int]:
    """Claim open ``seat`` for ``name``: (that seat's view, its token, version)."""
    from api.service import token_hash

    store, s = service.store, service.settings
    for _ in range(s.conflict_retries + 1):
        version, doc = service._load(game_id)
        if not 0 <= seat < len(doc["seats"]):
            raise SeatNotFound(f"This game has seats 0 to {len(doc['seats']) - 1}.")
        if doc["seats"][seat]["kind"] != "open":
            raise SeatTaken(f"Seat {seat} is taken.")
        state = domino.from_dict(doc["state"])
        if state.finished:
            raise domino.GameOverError("the game is over")
        token = secrets.token_urlsafe(32)
        seats = [dict(x) for x in doc["seats"]]
        seats[seat] = {"seat": seat, "name": name, "kind": "human", "token_hash": token_hash(game_id, token)}
        new_doc = {**doc, "seats": seats}
        new_version = version + 1
        events: list[dict[str, Any]] = [{"public": {"type": "seat_claimed", "seat": seat, "name": name}}]
        full = not turns.waiting(new_doc)
        if full:
            events.append({"public": {"type": "game_started", "seat": None, "turn": state.to_move}})
        plan = turns.prepare(service, game_id, new_doc, state, new_version)
        events = turns.decorate(events, plan)
        result = store.commit(game_id, version, new_version, new_doc, events, s.game_ttl, turn=turns.notice(plan))
        if result.ok:
            if full:
                store.lobby_remove(game_id)
            turns.start(service, game_id, new_version, plan)
            return service.render_view(new_doc, new_version, state, seat), token, new_version
        if result.current_version is None:
            raise GameNotFound(f"No game {game_id!r} (it may have expired).")
        # Someone else committed first: reload; if it was a claim of this seat, the check above says so.
    raise VersionMismatch("The game kept changing; retry.", current_version=service.current_version(game_id))


def summary(doc: dict[str, Any], version: int, state: Any) -> dict[str, Any]:
    return {
        "id": doc["id"],
        "variant": doc["variant"],
        "rules": state.rules.to_dict(),
        "status": "waiting",
        "version": version,
        "created_at": doc["created_at"],
        "seats": [{"seat": x["seat"], "name": x["name"], "kind": x["kind"]} for x in doc["seats"]],
        "open_seats": [x["seat"] for x in doc["seats"] if x["kind"] == "open"],
        "turn_timeout_s": doc.get("turn_timeout_s"),
        "client_seeded": doc["client_seeded"],
    }


def list_waiting(service: Service, before: float | None, limit: int) -> tuple[list[dict[str, Any]], float | None]:
    """Listed games with an open seat, newest first: (games, the cursor of the next page or None).

    Entries of games that filled up, ended or expired are dropped from the index as they are met."""
    store = service.store
    games: list[dict[str, Any]] = []
    stale: list[str] = []
    cursor = before
    exhausted = False
    while len(games) < limit and not exhausted:
        rows = store.lobby_page(cursor, limit - len(games))
        exhausted = len(rows) < limit - len(games)
        for game_id, created_at in rows:
            cursor = created_at
            rec = store.load(game_id)
            if rec is None or not turns.waiting(rec.doc):
                stale.append(game_id)
                continue
            state = domino.from_dict(rec.doc["state"])
            if state.finished:
                stale.append(game_id)
                continue
            games.append(summary(rec.doc, rec.version, state))
    store.lobby_remove(*stale)
    more = len(games) == limit and bool(store.lobby_page(cursor, 1))
    return games, cursor if more else None

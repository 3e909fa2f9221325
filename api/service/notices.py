"""What registered bots hear of the games they sit in: a ``turn`` notice when one is to move, and
``game_started`` and ``game_ended``.

A turn notice (:func:`turn_notice`) is also the body of a webhook delivery (:mod:`api.service.webhooks`):
a bot with a webhook gets its turns there (due-marked before the commit, retried by the sweep, as a hosted
seat's); a bot without one, and every bot for ``game_started``/``game_ended``, gets them on its stream
(``GET /v1/bot/events``), appended right after the commit (:meth:`Notices.after_commit`). A notice lost to
a Redis failure between the commit and the append costs the bot that turn only: the turn's deadline moves
for it.
"""

from __future__ import annotations

import logging
from typing import Any

import domino
from api.service.records import GameRecord, StoredEvent, registered_seats, waiting
from api.service.views import render_view
from api.store import Store, StoreUnavailable

log = logging.getLogger("api.service.notices")


def turn_notice(doc: GameRecord, version: int, state: domino.State, seat: int) -> dict[str, Any]:
    """``seat`` is to move at ``version``: its legal moves and its whole view."""
    game_id = doc["id"]
    view = render_view(doc, version, state, seat)
    return {
        "type": "turn",
        "game_id": game_id,
        "seat": seat,
        "version": version,
        "deadline": doc.get("deadline"),
        "legal_moves": view.get("legal_moves", []),
        "move_url": f"/v1/games/{game_id}/moves",
        "view": view,
    }


class Notices:
    def __init__(self, store: Store) -> None:
        self.store = store

    def after_commit(
        self,
        game_id: str,
        version: int,
        doc: GameRecord,
        state: domino.State,
        events: list[StoredEvent],
        stream_turn: str | None,
    ) -> None:
        """Tell the registered bots of ``doc`` what the commit of ``version`` (with ``events``) means to them;
        ``stream_turn``: the bot to move, when its turn goes to its stream."""
        seats = registered_seats(doc)
        if not seats:
            return
        notices: list[tuple[str, dict[str, Any]]] = []
        base = {"game_id": game_id, "version": version, "variant": doc["variant"]}
        publics = [e["public"] for e in events]
        if any(p.get("type") == "game_started" for p in publics) or (version == 0 and not waiting(doc)):
            notices += [(name, {"type": "game_started", **base, "seat": seat}) for seat, name in seats.items()]
        ended = next((p for p in publics if p.get("type") == "game_ended"), None)
        if ended is not None:
            result = {"winners": ended.get("winners", []), "scores": ended.get("scores"), "reason": ended.get("reason")}
            notices += [(name, {"type": "game_ended", **base, "seat": seat, **result}) for seat, name in seats.items()]
        seat = state.to_move
        if stream_turn is not None and seat is not None:
            notices.append((stream_turn, turn_notice(doc, version, state, seat)))
        try:
            self.store.bots.push(notices)
        except StoreUnavailable:  # the commit has landed; the turn's deadline covers a lost turn notice
            log.warning("could not tell the bots of %s@%s", game_id, version, exc_info=True)

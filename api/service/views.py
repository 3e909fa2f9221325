"""What clients read, rendered from a game record: a seat's view, the history, a lobby entry, an event.

Pure: no Redis. A view is rendered from the record that was committed (after the commit, so a lost race
renders nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import domino
from api.service.records import GameRecord, public_seats, waiting

_VIEW_ORDER = (
    "id", "variant", "rules", "status", "version", "round", "turn", "seat", "seats", "scores", "team_scores",
    "boneyard_count", "out_of_play_count", "board", "log", "hand", "legal_moves", "last_round", "winners",
    "seed_commitment", "client_seeded", "rated", "hints", "turn_timeout_s", "clock", "deadline",
)  # fmt: skip
_VIEW_DROP = ("hand_counts", "finished")  # shown as seats[].hand_count and status
MINIMAL_VIEW = ("id", "variant", "version", "seat", "status")  # a move's answer with Prefer: return=minimal


def game_status(state: domino.State, doc: GameRecord | None = None) -> str:
    if not state.finished:
        return "waiting" if doc is not None and waiting(doc) else "playing"
    assert state.outcome is not None
    return "aborted" if state.outcome.reason == "aborted" else "finished"


def public_clock(doc: GameRecord) -> dict[str, Any] | None:
    """A Fischer clock as views and turn notices show it: the banks at the last commit, when this turn began."""
    clock = doc.get("clock")
    if clock is None:
        return None
    return {k: clock[k] for k in ("initial_s", "increment_s", "remaining", "turn_started_at")}


def minimal_view(doc: GameRecord, version: int, state: domino.State, seat: int | None) -> dict[str, Any]:
    return {"id": doc["id"], "variant": doc["variant"], "version": version, "seat": seat, "status": game_status(state, doc)}


def render_view(
    doc: GameRecord, version: int, state: domino.State, seat: int | None, archived: bool = False
) -> dict[str, Any]:
    """``seat``'s view (None: the spectator's): its hand and, on its turn, its legal moves; nobody else's.
    ``archived``: the archive holds the game (the one thing in a view that changes without a commit)."""
    v = domino.view(state, seat).to_dict()
    hand_counts = v.get("hand_counts") or [None] * len(doc["seats"])
    extra = {
        "id": doc["id"],
        "variant": doc["variant"],
        "status": game_status(state, doc),
        "version": version,
        "seat": seat,
        "seats": [{**s, "hand_count": hand_counts[s["seat"]]} for s in public_seats(doc)],
        "seed_commitment": doc["seed_commitment"],
        "client_seeded": doc["client_seeded"],
        "rated": doc.get("rated", False),
        "hints": doc.get("hints", False),
        "turn_timeout_s": doc.get("turn_timeout_s"),
        "clock": public_clock(doc),
        "deadline": doc.get("deadline"),
        **({"metadata": doc["metadata"]} if "metadata" in doc else {}),
        "next_game_id": doc.get("next_game_id"),
    }
    merged = {**v, **extra}
    if extra["status"] == "waiting":
        # Nobody moves, or sees a tile, before every seat is taken: a creator who saw its hand could keep only
        # the deals it likes for whoever joins.
        merged["legal_moves"] = []
        merged["hand"] = []
    if seat is None:
        merged.pop("hand", None)
        merged.pop("legal_moves", None)
    out = {k: merged[k] for k in _VIEW_ORDER if k in merged}
    for k, val in merged.items():
        if k not in out and k not in _VIEW_DROP:
            out[k] = val
    out["archived"] = archived
    return out


def render_event(stream_id: str, stored: Mapping[str, Any], seat: int | None, reveal: bool = False) -> dict[str, Any]:
    """One event as ``seat`` may see it (None: a spectator); everything when ``reveal`` (the game is over)."""
    full = stored.get("full")
    mine = seat is not None and seat == stored.get("private_to")
    data = full if full is not None and (reveal or mine) else stored["public"]
    return {"id": stream_id, "version": int(stream_id.split("-", 1)[0]), **data}


def render_history(
    doc: GameRecord,
    version: int,
    state: domino.State,
    seat: int | None,
    events: list[tuple[str, dict[str, Any]]],
    archived: bool = False,
    sealed: bool = False,
) -> dict[str, Any]:
    """Rounds, moves and results. Before the end: what ``seat`` may see (while the game waits for seats, what
    everyone sees: see :func:`render_view`); after: everything, the same for every seat but ``seat``, which is
    why the archive keeps it rendered (:func:`from_archive`). ``sealed``: over, but its deals stay hidden as
    before the end (an arena's game while the arena plays the same deals in other games)."""
    finished = bool(state.finished) and not sealed
    sees = None if waiting(doc) else seat
    out: dict[str, Any] = {
        "id": doc["id"],
        "variant": doc["variant"],
        "status": game_status(state, doc),
        "version": version,
        "seat": seat,
        "seats": public_seats(doc),
        "rules": state.rules.to_dict(),
        "rounds": [r.to_dict(reveal_deal=False) for r in state.rounds],
        "events": [render_event(sid, stored, sees, reveal=finished) for sid, stored in events],
        "outcome": state.outcome.to_dict() if state.outcome is not None else None,
        "seed_commitment": doc["seed_commitment"],
        "client_seeded": doc["client_seeded"],
        **({"metadata": doc["metadata"]} if "metadata" in doc else {}),
        "created_at": doc["created_at"],
        **({"arena": doc["arena"]} if "arena" in doc else {}),
    }
    if finished:
        deals = [{"round": r.round, **r.deal.to_dict()} for r in state.rounds]
        if not any(d["round"] == state.round for d in deals):
            deals.append({"round": state.round, **state.deal.to_dict()})
        out["deals"] = deals
        out["seed"] = state.seed
        out["salt"] = doc["salt"]
        out["deal_version"] = state.deal_version
    out["archived"] = archived
    return out


def from_archive(record: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """The history of an archived game as :func:`render_history` renders it from Redis, for ``seat``: the same
    document (keys in the same order) but ``archived``."""
    return {**record, "seat": seat, "archived": True}


def lobby_entry(doc: GameRecord, version: int, state: domino.State) -> dict[str, Any]:
    return {
        "id": doc["id"],
        "variant": doc["variant"],
        "rules": state.rules.to_dict(),
        "status": "waiting",
        "version": version,
        "created_at": doc["created_at"],
        "seats": public_seats(doc),
        "open_seats": [x["seat"] for x in doc["seats"] if x["kind"] == "open"],
        "turn_timeout_s": doc.get("turn_timeout_s"),
        "client_seeded": doc["client_seeded"],
    }


def game_summary(doc: GameRecord, version: int, state: domino.State) -> dict[str, Any]:
    """A game in its owner's listing: a lobby entry of any status, with scores, winners and metadata (as the
    spectator's view shows them, read from the state: the archiving job renders one a game)."""
    return {
        **lobby_entry(doc, version, state),
        "status": game_status(state, doc),
        "round": state.round,
        "scores": list(state.scores),
        "winners": list(state.outcome.winners) if state.outcome else [],
        "metadata": doc.get("metadata"),
        "turn": None if state.finished or waiting(doc) else state.to_move,
        "deadline": doc.get("deadline"),
    }

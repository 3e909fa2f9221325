"""The game record as the store keeps it (JSON in ``<prefix>:{<id>}:state``), typed.

The live document holds what a move needs: the engine's live state (``domino.to_live``: the current round,
scores, turn and the latest finished round, the same size in round 13 as in round 1), the seats, the seed
commitment, each seat's last accepted move and the current turn's deadline. The records of the finished
rounds before the latest are kept apart (``GameStore.load_with_rounds``), appended as rounds end, read only
by the history. Events are stored as :class:`StoredEvent`: the public
form, and for an event with a private detail (the tile a seat drew) the full form and the seat it is for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NotRequired, TypedDict, cast

import domino

HUMAN, HOSTED, BOT, OPEN = "human", "hosted", "bot", "open"  # who holds a seat
REGISTERED = "registered"  # a registered bot (``POST /v1/bots``): seated by name, moves with its own token
MOVING_KINDS = (HUMAN, HOSTED, REGISTERED)  # seats that get a deadline; a computer player is moved by the workers


class SeatRecord(TypedDict):
    seat: int
    name: str | None
    kind: str  # HUMAN, HOSTED, BOT, REGISTERED or OPEN
    bot: NotRequired[str]  # a computer player's strategy, or a registered bot's name
    bot_key: NotRequired[str]  # a registered bot's token, hashed (its record's ``token_hash``): it moves here
    think_ms: NotRequired[int]
    token_hash: NotRequired[str]  # a human or hosted seat's token, hashed (never the token)
    webhook: NotRequired[str]  # a hosted bot's URL and signing secret
    webhook_secret: NotRequired[str]
    client: NotRequired[str]  # the address that claimed an open seat (seats per client are capped)
    player: NotRequired[str]  # the owning app's own id of the seat's user
    metadata: NotRequired[dict[str, Any]]  # the app's, at most 1 KB, never interpreted


class LastMove(TypedDict):
    version: int
    move: dict[str, Any]


class ArenaGame(TypedDict):
    id: str  # the arena's
    game: int  # the game's index in the arena


class GameRecord(TypedDict):
    format: int
    id: str
    variant: str
    created_at: float
    unlisted: bool
    seats: list[SeatRecord]
    salt: str
    seed_commitment: str
    client_seeded: bool
    creator: NotRequired[str]  # the creating client's address: the game holds one of its slots until it ends
    rated: NotRequired[bool]  # its end updates its players' ratings (api/service/ratings.py)
    hints: NotRequired[bool]  # a practice game: the seat to move may ask for a hint (api/service/hints.py)
    hints_used: NotRequired[dict[str, int]]  # by seat (a string: JSON keys)
    arena: NotRequired[ArenaGame]  # one of an arena's games (api/service/arenas/)
    next_game_id: NotRequired[str]  # after it ended: the game its table plays next (a rematch)
    app: NotRequired[str]  # the owning app's id (created with its key): holds one of the app's slots until it ends
    metadata: NotRequired[dict[str, Any]]  # the creator's, at most 1 KB, never interpreted
    last_moves: dict[str, LastMove]  # by seat (a string: JSON keys)
    away: NotRequired[dict[str, int]]  # who attends the game (api/service/bot_games.py)
    turns: NotRequired[dict[str, list[int]]]  # a rated game's: by seat, [turns played, of them by the server]
    resigned: NotRequired[int]  # the seat that resigned
    turn_timeout_s: float | None
    deadline: float | None  # the current turn's, when it has one
    clock: NotRequired[Clock]  # a time bank per seat instead of a fixed `turn_timeout_s`
    touched_at: NotRequired[float]  # the last commit's time: idle for game_ttl with no deadline, the game ends
    state: dict[str, Any]  # domino.to_live of the engine's state


class Clock(TypedDict):
    """A Fischer clock: each seat's time bank at the last commit, and whose turn started when."""

    initial_s: float
    increment_s: float
    remaining: list[float]  # by seat, as of the last commit
    turn_started_at: float | None  # when the seat to move began its turn (None: no clock runs)
    seat: int | None  # whose clock runs


class StoredEvent(TypedDict):
    public: dict[str, Any]
    private_to: NotRequired[int]
    full: NotRequired[dict[str, Any]]


def game_record(doc: dict[str, Any]) -> GameRecord:
    """A document read from the store, as the record it was written as."""
    return cast(GameRecord, doc)


def stored_event(event: domino.Event) -> StoredEvent:
    """An engine event as stored: public, and in full for the seat its private detail belongs to."""
    stored: StoredEvent = {"public": event.to_dict()}
    if event.private_to is not None:
        stored["private_to"] = event.private_to
        stored["full"] = event.to_dict(for_seat=event.private_to)
    return stored


def count_turn(doc: GameRecord, seat: int, auto: bool) -> None:
    """One more turn of ``seat`` in a rated game's ``turns`` (``auto``: the server played it): who played a
    seat's turns decides how its end is rated (api/service/ratings.py)."""
    if doc.get("rated"):
        turns = {k: list(v) for k, v in (doc.get("turns") or {}).items()}
        played, by_server = turns.get(str(seat), [0, 0])
        turns[str(seat)] = [played + 1, by_server + int(auto)]
        doc["turns"] = turns


def waiting(doc: GameRecord) -> bool:
    """A game is waiting while a seat is open. (A loop: asked three times a move, and ``any`` over a generator
    costs a generator and a frame resumed per seat.)"""
    for seat in doc["seats"]:
        if seat["kind"] == OPEN:
            return True
    return False


def retired_seat(doc: GameRecord, seat: int | None, gone: Callable[[str], bool]) -> bool:
    """Whether ``seat`` is a registered bot's that no longer exists or was retired (``gone``: the bots store's
    check). Nobody holds a token that moves for it, so its turn is due at once, whatever deadline it was given
    when it began."""
    if seat is None:
        return False
    record = doc["seats"][seat]
    return record["kind"] == REGISTERED and gone(record.get("bot", ""))


def state_of(doc: GameRecord) -> domino.State:
    """The engine's state from the live document alone: it plays and views as the whole state does."""
    return domino.from_live(doc["state"])


def whole_state(doc: GameRecord, earlier_rounds: list[dict[str, Any]]) -> domino.State:
    """The whole state, every finished round's record included: the records kept apart, then the latest."""
    latest = doc["state"]["last_round"]
    return domino.from_live(doc["state"], [*earlier_rounds, *([latest] if latest is not None else [])])


def leaving_rounds(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """Round records to keep apart when the live state goes from ``before`` to ``after``: when a round ends,
    the record it replaces as the latest (so that no record is stored twice)."""
    old, new = before["last_round"], after["last_round"]
    if old is None or new is None or old["round"] == new["round"]:
        return []
    return [old]


def owner(doc: GameRecord) -> str | None:
    """Who a game counts against: its app (``app:<id>``), else the address that created it (None: the
    server's own, an arena's)."""
    if "app" in doc:
        return f"app:{doc['app']}"
    return doc.get("creator")


def listed(doc: GameRecord) -> bool:
    """Shown in the lobby while a seat is open: not ``unlisted``, not client-seeded (its creator can know
    every hand), and not rated (a rated open seat is its app's player's, claimed with the app's key)."""
    return not doc["unlisted"] and not doc["client_seeded"] and not doc.get("rated")


def registered_seats(doc: GameRecord) -> dict[int, str]:
    """The seats registered bots hold: seat -> bot name."""
    return {s["seat"]: s.get("bot", "") for s in doc["seats"] if s["kind"] == REGISTERED}
SEAT_EXTRAS = ("player", "metadata")  # shown only when a seat has them


def public_seats(doc: GameRecord) -> list[dict[str, Any]]:
    """The seats as everyone sees them; in a game with hints, each with the hints it used."""
    seats = [
        {"seat": s["seat"], "name": s["name"], "kind": s["kind"], **{k: s[k] for k in SEAT_EXTRAS if k in s}}  # type: ignore[literal-required]
        for s in doc["seats"]
    ]
    if doc.get("hints"):
        used = doc.get("hints_used") or {}
        for seat in seats:
            seat["hints_used"] = used.get(str(seat["seat"]), 0)
    return seats

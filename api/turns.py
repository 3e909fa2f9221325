"""Whose turn comes next, and who must act on it: computer players, hosted bots, turn deadlines (issue 5).

Every commit of a game (a move, a seat claim, a resignation, the creation) goes through the same steps:

- :func:`prepare` before the commit: writes the turn's ``deadline`` into the game document and marks the due
  entries (bot-due, turn deadline, webhook delivery) in Redis *before* the commit, so a crash in between
  leaves at most a harmless no-op job for the sweep, never a stuck game;
- :func:`decorate` and :func:`notice`: the commit's events get the next turn's ``deadline``, and the commit
  ends with a ``turn_started`` event naming the seat to move; that seat's copy carries its ``legal_moves``,
  so a client following the events can move without reading its view first (the store keeps only the
  latest one: an old turn is of no use to anyone);
- :func:`start` after a successful commit: enqueues the computer player's turn or the webhook delivery.

Turn timeouts: when a human or hosted-bot seat has not moved by its deadline, the sweep enqueues
``workers.jobs.timeout_turn``, which moves for it with ``Settings.timeout_strategy`` through
``Service.play_move`` (``auto=True``: its events are marked ``"auto": true``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import random
import time
from typing import TYPE_CHECKING, Any

import domino
import domino.bots
from api.bot_games import bot_only
from api.errors import GameNotFound, Unauthorized, VersionMismatch

if TYPE_CHECKING:
    from api.service import Service

log = logging.getLogger("api.turns")

MOVING_KINDS = ("human", "hosted")  # seats that get a deadline; a computer player is moved by the workers
TURN_STARTED = "turn_started"  # a notice to clients, not a fact of play: kept apart from the game's events


@dataclasses.dataclass(frozen=True)
class Plan:
    bot: bool = False  # a computer player is to move: enqueue its turn
    bot_only: bool = False  # ... in a game of computer players only: on their own queue
    hosted: bool = False  # a hosted bot is to move: deliver its webhook
    deadline: float | None = None
    seat: int | None = None  # the seat to move (None: nobody, the game is waiting or over)
    legal_moves: tuple[dict[str, Any], ...] = ()  # its legal moves, for a seat a client moves


def waiting(doc: dict[str, Any]) -> bool:
    """A game is waiting while a seat is open."""
    return any(s["kind"] == "open" for s in doc["seats"])


def prepare(service: Service, game_id: str, doc: dict[str, Any], state: Any, version: int) -> Plan:
    """Before committing ``doc`` (with ``state``) as ``version``: set its deadline, mark what is due."""
    store, s = service.store, service.settings
    seat = state.to_move
    if state.finished or seat is None or waiting(doc):
        doc["deadline"] = None
        return Plan()
    kind = doc["seats"][seat]["kind"]
    now = time.time()
    if kind == "bot":
        doc["deadline"] = None
        store.mark_bot_due(game_id, now + s.bot_due_delay)
        return Plan(bot=True, bot_only=bot_only(doc["seats"]), seat=seat)
    deadline = None
    timeout = doc.get("turn_timeout_s")
    if timeout:
        deadline = round(now + float(timeout), 3)
        store.mark_turn_due(game_id, deadline)
    doc["deadline"] = deadline
    hosted = kind == "hosted"
    if hosted:
        delays = s.webhook_delays or (s.bot_due_delay,)
        store.mark_hook_due(game_id, version, now + s.webhook_timeout + delays[0], attempt=1)
    legal_moves = tuple(m.to_dict() for m in domino.legal_moves(state))
    return Plan(hosted=hosted, deadline=deadline, seat=seat, legal_moves=legal_moves)


def decorate(stored_events: list[dict[str, Any]], plan: Plan, auto: bool = False) -> list[dict[str, Any]]:
    """Put the next turn's ``deadline`` (and ``auto`` for a move the server made) on a commit's events."""
    extra: dict[str, Any] = {}
    if plan.deadline is not None:
        extra["deadline"] = plan.deadline
    if auto:
        extra["auto"] = True
    if not extra:
        return stored_events
    out = []
    for stored in stored_events:
        stored = dict(stored)
        stored["public"] = {**stored["public"], **extra}
        if "full" in stored:
            stored["full"] = {**stored["full"], **extra}
        out.append(stored)
    return out


def notice(plan: Plan) -> dict[str, Any] | None:
    """The ``turn_started`` event that ends a commit leaving ``plan.seat`` to move (its legal moves private
    to it), or None when nobody is to move."""
    if plan.seat is None:
        return None
    public: dict[str, Any] = {"type": TURN_STARTED, "seat": plan.seat}
    if plan.deadline is not None:
        public["deadline"] = plan.deadline
    turn: dict[str, Any] = {"public": public}
    if plan.legal_moves:
        turn["private_to"] = plan.seat
        turn["full"] = {**public, "legal_moves": list(plan.legal_moves)}
    return turn


def start(service: Service, game_id: str, version: int, plan: Plan) -> None:
    """After the commit of ``version``: enqueue what ``plan`` says is due. A failed enqueue is logged; the
    due entry written by :func:`prepare` lets the sweep do it later."""
    if plan.bot:
        service._enqueue_bot(game_id, version, 0, plan.bot_only)
    if plan.hosted:
        from workers.queues import enqueue_webhook

        try:
            enqueue_webhook(service.store, game_id, version, 0)
        except Exception:
            log.warning("could not enqueue webhook %s@%s; the sweep will", game_id, version, exc_info=True)


# -- resign ----------------------------------------------------------------------------------------------


def resign(service: Service, game_id: str, token: str | None) -> tuple[dict[str, Any], int]:
    """The token's seat resigns: the game ends and the other side wins. (view, version)."""
    if token is None:
        raise Unauthorized("A seat token is needed to resign: `Authorization: Bearer <token>`.")
    store, s = service.store, service.settings
    for _ in range(s.conflict_retries + 1):
        version, doc = service._load(game_id)
        seat = service.authenticate(doc, token)
        assert seat is not None
        state = domino.from_dict(doc["state"])
        new_state, events = domino.resign(state, seat)  # GameOverError -> 409 game-over
        new_version = version + 1
        new_doc = {**doc, "state": domino.to_dict(new_state), "deadline": None}
        stored = [service._stored_event(e) for e in events]
        result = store.commit(game_id, version, new_version, new_doc, stored, s.finished_ttl)
        if result.ok:
            store.lobby_remove(game_id)
            return service.render_view(new_doc, new_version, new_state, seat), new_version
        if result.current_version is None:
            raise GameNotFound(f"No game {game_id!r} (it may have expired).")
    raise VersionMismatch("The game kept changing; retry.", current_version=service.current_version(game_id))


# -- turn timeouts ---------------------------------------------------------------------------------------


def sweep_timeouts(service: Service, now: float | None = None) -> list[tuple[str, int]]:
    """Enqueue a timeout move for every seat past its deadline; re-score or drop entries that moved on."""
    from workers.queues import enqueue_timeout_turn

    store = service.store
    now = time.time() if now is None else now
    enqueued = []
    for game_id, score in store.overdue_turns(now):
        rec = store.load(game_id)
        deadline = None if rec is None else rec.doc.get("deadline")
        if rec is None or deadline is None:
            store.clear_turn_due_if(game_id, score)
            continue
        if deadline > now:  # a later turn's deadline: wait for it
            if deadline != score:
                store.mark_turn_due(game_id, deadline)
            continue
        attempt = store.next_turn_attempt(game_id, rec.version)
        store.mark_turn_due(game_id, now + service.settings.bot_due_delay)  # a lost job is enqueued again
        enqueue_timeout_turn(store, game_id, rec.version, attempt)
        enqueued.append((game_id, rec.version))
    return enqueued


def play_timeout(service: Service, game_id: str, version: int) -> str:
    """Move for the seat whose deadline passed at ``version`` (fallback strategy, marked automatic)."""
    rec = service.store.load(game_id)
    if rec is None:
        return "gone"
    if rec.version != version:
        return "stale"
    deadline = rec.doc.get("deadline")
    state = domino.from_dict(rec.doc["state"])
    seat = state.to_move
    if deadline is None or seat is None or state.finished or rec.doc["seats"][seat]["kind"] not in MOVING_KINDS:
        return "no-deadline"
    if deadline > time.time():
        return "not-due"
    strategy = domino.bots.get(service.settings.timeout_strategy)
    rng = random.Random(hashlib.sha256(f"timeout:{game_id}:{version}".encode()).digest())
    move = strategy.choose(domino.view(state, seat), rng, domino.bots.Budget())
    try:
        service.play_move(game_id, move.to_dict(), seat=seat, expected_version=version, auto=True)
    except VersionMismatch:
        return "stale"
    return "played"

"""Whose turn comes next, and who must act on it: computer players, hosted and registered bots, turn deadlines.

Every commit of a game (a move, a seat claim, a resignation, the creation) goes through the same steps
(:class:`api.service.commits.Commits`):

- :meth:`Turns.prepare` before the commit: writes the turn's ``deadline`` and the time of this touch into the
  game record and marks the due entry (bot turn, turn deadline, webhook delivery; a new game's idle check)
  *before* the commit, so a crash in between leaves at
  most a harmless no-op job for the sweep, never a stuck game;
- :func:`decorate` and :func:`notice`: the commit's events get the next turn's ``deadline``, and the commit
  ends with a ``turn_started`` event naming the seat to move; that seat's copy carries its ``legal_moves``,
  so a client following the events can move without reading its view first;
- :meth:`Turns.start` after a successful commit: enqueues the computer player's turn or the webhook delivery,
  and tells the registered bots of the game (:mod:`api.service.notices`).

A registered bot's turn always has a deadline (the game's ``turn_timeout_s``, else
``Settings.bot_turn_timeout``), and goes to its webhook if it has one (as a hosted seat's), else to its stream;
a retired bot's turn is due at once, and the server moves for it.

The commit that ends a rated game is prepared the same way: its entry in the ratings due set is marked before
the commit, and the job that updates the ratings (:mod:`api.service.ratings`) is enqueued after it.
"""

from __future__ import annotations

import logging
import time
from typing import Any, NamedTuple

import domino
from api.config import Settings
from api.queues import BOT_GAME_TURN, BOT_TURN, RATING, WEBHOOK, Queues
from api.service.bot_games import attended
from api.service.notices import Notices
from api.service.records import BOT, HOSTED, REGISTERED, Clock, GameRecord, StoredEvent, waiting
from api.service.views import public_clock
from api.store import Batch, Store

log = logging.getLogger("api.service.turns")

TURN_STARTED = "turn_started"  # a notice to clients, not a fact of play: kept apart from the game's events


class Plan(NamedTuple):
    """What a commit leaves to do for the next turn. A named tuple: made on every move, and a frozen dataclass
    sets each of its fields through ``object.__setattr__``, three times the cost."""

    bot: bool = False  # a computer player is to move: enqueue its turn
    unattended: bool = False  # ... in a game nobody attends (api/service/bot_games.py): on the bot-games queue
    hosted: bool = False  # a hosted bot (or a registered bot with a webhook) is to move: deliver its webhook
    stream_turn: str | None = None  # a registered bot without a webhook is to move: tell its stream
    deadline: float | None = None
    seat: int | None = None  # the seat to move (None: nobody, the game is waiting or over)
    legal_moves: tuple[dict[str, Any], ...] = ()  # its legal moves, for a seat a client moves
    rate: bool = False  # a rated game has ended: enqueue the update of its ratings
    clock: dict[str, Any] | None = None  # a Fischer clock's banks as this commit leaves them


def clock_stopped(clock: Clock, now: float) -> Clock:
    """The clock after the turn that ran until ``now`` (a new dict: the older record may be kept): its seat's
    bank loses the time used (down to 0) and gains the increment; no clock runs until the next turn starts."""
    remaining = list(clock["remaining"])
    seat, started = clock["seat"], clock["turn_started_at"]
    if seat is not None and started is not None:
        remaining[seat] = round(max(0.0, remaining[seat] - (now - started)) + clock["increment_s"], 3)
    return {**clock, "remaining": remaining, "seat": None, "turn_started_at": None}


def webhook_member(game_id: str, version: int) -> str:
    """The webhook due set's member for the turn of ``version``."""
    return f"{game_id}:{version}"


class Turns:
    def __init__(self, store: Store, settings: Settings, queues: Queues) -> None:
        self.store = store
        self.settings = settings
        self.queues = queues
        self.notices = Notices(store)

    def prepare(
        self, game_id: str, doc: GameRecord, state: domino.State, version: int, batch: Batch | None = None
    ) -> Plan:
        """Before committing ``doc`` (with ``state``) as ``version``: set its deadline, mark what is due (with
        ``batch``: once the batch is written, which the caller does before the commit)."""
        seat = state.to_move
        now = time.time()
        doc["touched_at"] = round(now, 3)
        if version == 0 and not state.finished:  # looked at when idle; the sweep moves the mark on while it is not
            self.store.idle_due.mark(game_id, now + self.settings.game_ttl, batch=batch)
        if state.finished:  # to the archive, after its ratings are counted when it is rated
            self.store.archive_due.mark(game_id, now + self.settings.archive_delay, batch=batch)
        if "clock" in doc:
            doc["clock"] = clock_stopped(doc["clock"], now)
        if state.finished and doc.get("rated"):
            doc["deadline"] = None
            self.store.ratings_due.mark(game_id, time.time() + self.settings.bot_due_delay, batch=batch)
            return Plan(rate=True)
        if state.finished or seat is None or waiting(doc):
            doc["deadline"] = None
            return Plan()
        kind = doc["seats"][seat]["kind"]
        s = self.settings
        if kind == BOT:
            doc["deadline"] = None
            self.store.bots_due.mark(game_id, now + s.bot_due_delay, batch=batch)
            return Plan(bot=True, unattended=not attended(s, doc.get("away") or {}), seat=seat)
        deadline = None
        timeout = doc.get("turn_timeout_s") or (s.bot_turn_timeout if kind == REGISTERED else None)
        record = self._registered(doc["seats"][seat].get("bot", "")) if kind == REGISTERED else None
        if kind == REGISTERED and (record is None or record.get("retired")):
            # nobody moves for a retired bot (its tokens stopped): the server does, at once
            deadline = doc["deadline"] = round(now, 3)
            self.store.turns_due.mark(game_id, deadline, batch=batch)
            return Plan(deadline=deadline, seat=seat)
        if "clock" in doc:  # the seat's own bank (a seat at 0 is moved for at once, then gets its increment)
            clock = doc["clock"] = {**doc["clock"], "seat": seat, "turn_started_at": round(now, 3)}
            timeout = max(clock["remaining"][seat], 0.001)
        if timeout:
            deadline = round(now + float(timeout), 3)
            self.store.turns_due.mark(game_id, deadline, batch=batch)
        doc["deadline"] = deadline
        stream_turn = None
        hosted = kind == HOSTED
        if record is not None:
            hosted = bool(record.get("webhook"))
            stream_turn = None if hosted else record["name"]
        if hosted:
            delays = s.webhook_delays or (s.bot_due_delay,)
            member, due = webhook_member(game_id, version), now + s.webhook_timeout + delays[0]
            self.store.hooks_due.mark(member, due, attempt=1, batch=batch)
        legal_moves = tuple([m.to_dict() for m in domino.legal_moves(state)])  # a list first: no generator
        return Plan(
            hosted=hosted, stream_turn=stream_turn, deadline=deadline, seat=seat, legal_moves=legal_moves,
            clock=public_clock(doc),
        )  # fmt: skip

    def kept(self, doc: GameRecord, state: domino.State) -> Plan:
        """Before a commit that leaves the turn as it was (a hint): the same seat to move, the same deadline
        and clock; nothing newly due (what was due stays due)."""
        doc["touched_at"] = round(time.time(), 3)
        seat = state.to_move
        legal_moves = tuple(m.to_dict() for m in domino.legal_moves(state))
        return Plan(seat=seat, deadline=doc.get("deadline"), legal_moves=legal_moves, clock=public_clock(doc))

    def _registered(self, name: str) -> dict[str, Any] | None:
        found = self.store.bots.get(name)
        return None if found is None else found[0]

    def start(
        self, game_id: str, version: int, plan: Plan, doc: GameRecord, state: domino.State, events: list[StoredEvent]
    ) -> None:
        """After the commit of ``version`` (``doc``, ``state``, ``events``): enqueue what ``plan`` says is due,
        and tell the game's registered bots. A failed enqueue is logged; the due entry written by
        :meth:`prepare` lets the sweep do it later."""
        try:
            if plan.bot:
                self.queues.enqueue(BOT_GAME_TURN if plan.unattended else BOT_TURN, game_id, version)
            if plan.hosted:
                self.queues.enqueue(WEBHOOK, game_id, version)
            if plan.rate:
                self.queues.enqueue(RATING, game_id)
        except Exception:  # the commit has landed; the sweep enqueues it later
            log.warning("could not enqueue the turn after %s@%s; the sweep will", game_id, version, exc_info=True)
        self.notices.after_commit(game_id, version, doc, state, events, plan.stream_turn)


def decorate(stored_events: list[StoredEvent], plan: Plan, auto: bool = False) -> list[StoredEvent]:
    """Put the next turn's ``deadline`` (and ``auto`` for a move the server made) on a commit's events."""
    extra: dict[str, Any] = {}
    if plan.deadline is not None:
        extra["deadline"] = plan.deadline
    if auto:
        extra["auto"] = True
    if not extra:
        return stored_events
    out: list[StoredEvent] = []
    for stored in stored_events:
        copy: StoredEvent = {**stored, "public": {**stored["public"], **extra}}
        if "full" in stored:
            copy["full"] = {**stored["full"], **extra}
        out.append(copy)
    return out


def notice(plan: Plan) -> dict[str, Any] | None:
    """The ``turn_started`` event that ends a commit leaving ``plan.seat`` to move (its legal moves private
    to it), or None when nobody is to move."""
    if plan.seat is None:
        return None
    public: dict[str, Any] = {"type": TURN_STARTED, "seat": plan.seat}
    if plan.deadline is not None:
        public["deadline"] = plan.deadline
    if plan.clock is not None:
        public["clock"] = plan.clock
    turn: dict[str, Any] = {"public": public}
    if plan.legal_moves:
        turn["private_to"] = plan.seat
        turn["full"] = {**public, "legal_moves": list(plan.legal_moves)}
    return turn

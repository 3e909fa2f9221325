"""Tickets: who seeks a game, how they read their ticket (a long poll until it is matched), and cancelling.

A ticket's token (``dtk_...``, shown once) is its holder's proof: reading or cancelling a ticket needs it,
and a token of another ticket finds nothing (404). A waiting ticket that nobody reads for ``ticket_idle``
seconds expires (the sweep), so that no one is matched into a game they left; reading it keeps it waiting.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import orjson

from api.config import Settings
from api.service.bot_limits import BotLimits
from api.service.errors import OfferClosed, TicketNotFound, TooManyTickets, Unauthorized
from api.service.matchmaking.spec import BOT, PLAYER, Holder, TicketRequest, check, pool_of
from api.service.ratings import bot_player, rated_player, shown
from api.service.security import new_id, ticket_hash
from api.service.validation import invalid
from api.store import Store

TOKEN_PREFIX = "dtk_"
WAITING, CLAIMED, MATCHED, CANCELLED, EXPIRED = "waiting", "claimed", "matched", "cancelled", "expired"
KEPT_S = 3600  # how long a ticket is readable after its wait is over


def new_ticket_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def stamp(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def render(ticket_id: str, record: dict[str, str], spec: dict[str, Any]) -> dict[str, Any]:
    """A ticket as its holder reads it: its request, its status, and once matched its game, seat and the seat's
    token (a registered bot moves with its own token: none)."""
    status = record["status"]
    out: dict[str, Any] = {
        "id": ticket_id,
        "status": WAITING if status == CLAIMED else status,  # being seated: still waiting, for a moment
        **{k: spec[k] for k in ("variant", "players", "rules", "rated", "rating_range", "bots_after_s", "bot", "party")},
        **{k: spec[k] for k in ("turn_timeout_s", "clock") if spec.get(k) is not None},
        "holder": spec["holder"],
        "created_at": stamp(spec["created_at"]),
        "game_id": None,
        "seat": None,
        "token": None,
    }
    if status == MATCHED:
        out.update(game_id=record["game_id"], seat=int(record["seat"]), token=record.get("token") or None)
    return out


class Tickets:
    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.limits = BotLimits(store, settings)

    def open(self, req: TicketRequest, holder: Holder) -> tuple[str, str, dict[str, Any]]:
        """A new waiting ticket: (its id, its pool, what its holder reads, with its ``token``)."""
        rules = check(req, holder)
        if holder.kind == BOT:  # what the bot accepts: its games at once, its shortest time per move
            self.limits.check(holder.name, req.turn_timeout_s, req.clock)
        pool = pool_of(req, rules)
        ticket_id, now = new_id(), time.time()
        party = self._party(req, pool, ticket_id)
        ordinal = self._ordinal(req, holder) if req.rated else None
        lo, hi = req.rating_range if req.rating_range is not None else (None, None)
        seeker = {
            "arrived": now, "holder": holder.seat_key(ticket_id), "app": holder.app if holder.kind == PLAYER else None,
            "ordinal": ordinal, "lo": lo, "hi": hi, "party": party,
            "bots_at": None if req.bots_after_s is None else now + req.bots_after_s,
            "size": req.players, "teams": rules.has_teams,
        }  # fmt: skip
        spec = {
            "variant": req.variant, "players": req.players, "rules": req.rules or {}, "rated": req.rated,
            "rating_range": list(req.rating_range) if req.rating_range else None, "bots_after_s": req.bots_after_s,
            "bot": req.bot if req.bot is not None or req.bots_after_s is None else "greedy",
            "turn_timeout_s": req.turn_timeout_s, "clock": req.clock, "party": party, "pool": pool,
            "holder": {"kind": holder.kind, "name": holder.name, **({"app": holder.app} if holder.app else {})},
            "name": req.name, "created_at": now,
        }  # fmt: skip
        token = new_ticket_token()
        cap = self.settings.max_tickets
        if not self.store.tickets.open(ticket_id, pool, holder.key, cap, now, KEPT_S, spec, ticket_hash(token), seeker):
            raise TooManyTickets(
                f"This client holds {cap} open tickets, as many as it may; cancel one or wait for a match.",
                self.settings.capacity_retry_after,
            )
        return ticket_id, pool, {"ticket": render(ticket_id, {"status": WAITING}, spec), "token": token}

    def _party(self, req: TicketRequest, pool: str, ticket_id: str) -> str | None:
        """``new`` opens a party (its code is this ticket's id); a code joins the party it names, once, from a
        ticket for the same table."""
        if req.party is None:
            return None
        if req.party == "new":
            return ticket_id
        opener = self.store.tickets.get(req.party)
        if opener is None or opener.get("status") not in (WAITING, CLAIMED):
            raise invalid("party", "no waiting party has this code")
        if spec_of(opener)["pool"] != pool:
            raise invalid("party", "this party's ticket is for another variant, rules, table or timing")
        if not self.store.tickets.join_party(req.party, ticket_id, KEPT_S):
            raise invalid("party", "this party has both its partners already")
        return req.party

    def _ordinal(self, req: TicketRequest, holder: Holder) -> float:
        """The holder's rating in the variant (its ordinal; a new player's is 0): a bot's on the bots' board,
        an app's player's on the app's."""
        who = bot_player(holder.name) if holder.kind == BOT else rated_player({"player": holder.name}, holder.app)
        assert who is not None
        stored = self.store.ratings.read(req.variant, [who.key])[0]
        return 0.0 if stored is None else float(shown(_loads(stored))["ordinal"])

    def read(self, ticket_id: str, token: str | None, wait: float) -> dict[str, Any]:
        """The ticket, waiting up to ``wait`` seconds for its wait to end; reading keeps it waiting."""
        record, spec = self._own(ticket_id, token)
        if record["status"] in (WAITING, CLAIMED):
            self.store.tickets.touch(ticket_id, time.time())
            if wait > 0:
                self.store.tickets.wait_over(ticket_id, max(1, int(min(wait, self.settings.max_wait) * 1000)))
                record, spec = self._own(ticket_id, token)
        return render(ticket_id, record, spec)

    def cancel(self, ticket_id: str, token: str | None) -> dict[str, Any]:
        """Cancel a waiting ticket; a ticket matched (or being seated), or over, is 409 ``offer-closed``."""
        record, spec = self._own(ticket_id, token)
        if not self.store.tickets.close(ticket_id, spec["pool"], CANCELLED, KEPT_S):
            record, spec = self._own(ticket_id, token)
            status = render(ticket_id, record, spec)["status"]
            raise OfferClosed(f"This ticket is {status}: only a waiting ticket can be cancelled.", ticket_status=status)
        record, spec = self._own(ticket_id, token)
        return render(ticket_id, record, spec)

    def _own(self, ticket_id: str, token: str | None) -> tuple[dict[str, str], dict[str, Any]]:
        record = self.store.tickets.get(ticket_id)
        if record is None:
            raise TicketNotFound("No such ticket (or it is over and no longer kept).")
        # as with a seat's token: none or another's is 401 (the id is random: saying it exists gives nothing away)
        if token is None or not secrets.compare_digest(record.get("token_hash", ""), ticket_hash(token)):
            raise Unauthorized("This ticket is read and cancelled with its own token: `Authorization: Bearer <token>`.")
        return record, spec_of(record)

    def expire_unread(self, now: float) -> int:
        """Expire the waiting tickets nobody read for ``ticket_idle`` seconds."""
        expired = 0
        for ticket_id in self.store.tickets.unread_since(now - self.settings.ticket_idle):
            record = self.store.tickets.get(ticket_id)
            if record is not None and self.store.tickets.close(ticket_id, spec_of(record)["pool"], EXPIRED, KEPT_S):
                expired += 1
        return expired


def _loads(raw: str) -> dict[str, Any]:
    return dict(orjson.loads(raw))


def spec_of(record: dict[str, str]) -> dict[str, Any]:
    """A stored ticket's request and holder."""
    return _loads(record["spec"])

"""A ticket's request, checked beyond its schema, and the pool it waits in.

Tickets that could share a game wait in one pool: the pool's name is a digest of the variant, the rules after
defaults are filled in (so ``{}`` and the preset's own values are one pool), the table size, rated or not,
and the timing (``turn_timeout_s`` or ``clock``).
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import orjson

import domino
import domino.bots
from api.service.validation import check_variant, invalid, resolve_rules

ANONYMOUS, PLAYER, BOT = "anonymous", "player", "bot"  # who holds a ticket
DEFAULT_FILL_BOT = "greedy"


@dataclasses.dataclass(frozen=True)
class Holder:
    """Who seeks: an anonymous client (its address), an app's player, or a registered bot."""

    kind: str  # ANONYMOUS, PLAYER or BOT
    name: str  # the address, the player id, the bot's name
    app: str | None = None  # a player's app

    @property
    def key(self) -> str:
        """Its identity for the cap on open tickets."""
        if self.kind == PLAYER:
            return f"player:{self.app}:{self.name}"
        return f"{self.kind}:{self.name}"

    def seat_key(self, ticket_id: str) -> str:
        """Its identity at a table, which seats it once: an app's player or a bot is one; anonymous tickets are
        each their own (two people behind one address may play each other)."""
        return f"ticket:{ticket_id}" if self.kind == ANONYMOUS else self.key


@dataclasses.dataclass(frozen=True)
class TicketRequest:
    variant: str
    players: int  # the table size
    rules: dict[str, Any] | None = None
    rated: bool = False
    rating_range: tuple[float, float] | None = None
    bots_after_s: float | None = None
    bot: str | None = None  # the computer player that fills the table (default greedy)
    turn_timeout_s: float | None = None
    clock: dict[str, float] | None = None
    party: str | None = None  # "new" opens a party; a code joins one
    name: str | None = None  # an anonymous holder's name at the table (default "Player")


def check(req: TicketRequest, holder: Holder) -> domino.Rules:
    """The rules of the table, or a 422 naming the field: a known variant and size, a rated ticket held by
    someone who can be rated, a range only when rated, a fill bot only with ``bots_after_s``, a party only in
    a team game."""
    check_variant(req.variant, req.rules, "players")
    rules = resolve_rules(req.variant, req.players, req.rules, "players")
    if req.rated and holder.kind == ANONYMOUS:
        raise invalid("rated", "an anonymous ticket is unrated", "Only an app's player or a registered bot can be rated.")
    if req.rating_range is not None:
        if not req.rated:
            raise invalid("rating_range", "only on a rated ticket", "`rating_range` needs `rated: true`.")
        if req.rating_range[0] > req.rating_range[1]:
            raise invalid("rating_range", "[lo, hi] with lo <= hi")
    if req.bot is not None:
        if req.bots_after_s is None:
            raise invalid("bot", "only with bots_after_s", "`bot` names who fills the table after `bots_after_s`.")
        if req.bot not in domino.bots.ids():
            raise invalid("bot", f"one of {sorted(domino.bots.ids())}")
    if req.bots_after_s is not None and req.rated:
        raise invalid("bots_after_s", "not on a rated ticket", "A rated table is never filled with computer players.")
    if req.party is not None and not rules.has_teams:
        raise invalid("party", "only for a team game (rules.teams: partners_opposite, 4 players)")
    return rules


def pool_of(req: TicketRequest, rules: domino.Rules) -> str:
    """The pool's name: a digest of what a table's tickets must share."""
    shared = {
        "variant": req.variant,
        "rules": rules.to_dict(),
        "players": req.players,
        "rated": req.rated,
        "turn_timeout_s": req.turn_timeout_s,
        "clock": req.clock,
    }
    return hashlib.sha256(orjson.dumps(shared, option=orjson.OPT_SORT_KEYS)).hexdigest()[:24]

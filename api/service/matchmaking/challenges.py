"""Challenges: one player or bot offers a game to another, who accepts or declines (``POST /v1/challenges``).

The challenger is an app's player (the app's key and ``player``), a registered bot (its token) or an
anonymous client; the addressee a registered bot (``{"bot": name}``: it sees a ``challenge`` notice on its
stream) or another player of the challenger's app (``{"player": id}``: the app hears ``challenge.received``
by webhook). The challenger holds the challenge's token (``dch_...``, shown once); the parties read it with
their own credentials too.

A challenge is one of the consent paths of a registered bot (a bot is seated only in games it agreed to):
the bot that challenges agrees by challenging, the bot challenged by accepting. Its game is made only then,
under the id and with the seat tokens the challenge reserved when it was made, through the same checks and
first commit as any game (idempotent by that id): the challenger sits at seat 0, the addressee at seat 1.
Every change of status is one script on an ``open`` challenge not yet expired (api/store/challenges.py), so
of an accept, a decline and a cancel racing, exactly one happens; an accept moves it to ``accepting``, and
its game made, to ``accepted`` (a read finishes an accept a crash left half done).
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

from api.config import Settings
from api.service.app_events import CHALLENGE_RECEIVED, Lifecycle, challenge_payload
from api.service.apps import App
from api.service.bot_limits import BotLimits
from api.service.create import Creation, GameRequest
from api.service.errors import BotNotFound, ChallengeNotFound, Forbidden, OfferClosed, ServiceError, TooManyChallenges, Unauthorized
from api.service.matchmaking.spec import ANONYMOUS, BOT, PLAYER, Holder
from api.service.matchmaking.tickets import stamp
from api.service.registered_bots import RegisteredBots
from api.service.security import BOT_TOKEN_PREFIX, new_id, new_token, owns, token_hash
from api.service.validation import invalid
from api.store import Store

TOKEN_PREFIX = "dch_"
OPEN, ACCEPTING, ACCEPTED, DECLINED, CANCELLED, EXPIRED = "open", "accepting", "accepted", "declined", "cancelled", "expired"
CHALLENGER, ADDRESSEE = 0, 1  # their seats, and who is who
SETTLE_S = 5.0  # an accept this long ago whose game is not made was left by a crash: a read finishes it


@dataclasses.dataclass(frozen=True)
class ChallengeRequest:
    variant: str
    to_bot: str | None = None  # the addressee: a registered bot ...
    to_player: str | None = None  # ... or a player of the challenger's app
    rules: dict[str, Any] | None = None
    rated: bool = False
    turn_timeout_s: float | None = None
    clock: dict[str, float] | None = None
    expires_in_s: float | None = None  # default: Settings.challenge_expiry
    name: str | None = None  # an anonymous challenger's name at the table (default "Player")


@dataclasses.dataclass(frozen=True)
class Caller:
    """Who calls about a challenge: its app (key) and ``player``, and its bearer token (a challenge's, a bot's)."""

    app: App | None
    token: str | None
    player: str | None = None


def _seat(party: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    """The game seat of a challenger or an addressee."""
    if party["kind"] == BOT:
        return {"bot": party["name"]}
    if party["kind"] == PLAYER:
        return {"name": party["name"], "player": party["name"]}
    return {"name": name or "Player"}


def game_request(doc: dict[str, Any]) -> GameRequest:
    """The challenge's game: the challenger at seat 0, the addressee at seat 1, its terms."""
    return GameRequest(
        variant=doc["variant"],
        seats=[_seat(doc["from"], doc.get("name")), _seat(doc["to"])],
        rules=doc["rules"] or None,
        unlisted=True,
        turn_timeout_s=doc.get("turn_timeout_s"),
        clock=doc.get("clock"),
        rated=doc["rated"],
    )


def shown_status(status: str, doc: dict[str, Any], now: float) -> str:
    if status == OPEN and now >= doc["expires_at"]:
        return EXPIRED
    return OPEN if status == ACCEPTING else status  # being made: still open, for a moment


def render(doc: dict[str, Any], status: str, reason: str | None, seat: int | None, now: float) -> dict[str, Any]:
    """A challenge as a party reads it: its terms, its status, and once accepted its game, with the reader's
    seat and that seat's token (a registered bot moves with its own: none)."""
    shown = shown_status(status, doc, now)
    to = {"bot": doc["to"]["name"]} if doc["to"]["kind"] == BOT else {"player": doc["to"]["name"]}
    out: dict[str, Any] = {
        "id": doc["id"],
        "status": shown,
        "from": doc["from"],
        "to": to,
        **{k: doc[k] for k in ("variant", "rules", "rated")},
        **{k: doc[k] for k in ("turn_timeout_s", "clock") if doc.get(k) is not None},
        "created_at": stamp(doc["created_at"]),
        "expires_at": stamp(doc["expires_at"]),
        "game_id": doc["game_id"] if shown == ACCEPTED else None,
        "seat": seat if shown == ACCEPTED else None,
        "token": doc["tokens"][seat] if shown == ACCEPTED and seat is not None else None,
        "reason": reason,
    }
    return out


class Challenges:
    def __init__(self, store: Store, settings: Settings, creation: Creation, lifecycle: Lifecycle, bots: RegisteredBots) -> None:
        self.store = store
        self.settings = settings
        self.creation = creation
        self.lifecycle = lifecycle
        self.bots = bots
        self.limits = BotLimits(store, settings)

    def open(self, req: ChallengeRequest, holder: Holder, app: App | None) -> dict[str, Any]:
        """An open challenge: ``{"challenge", "token"}`` (the challenge's token, shown once); the addressee is
        told."""
        now = time.time()
        challenge_id = new_id()
        doc = self._terms(challenge_id, req, holder, now)
        addressee = doc["to"]
        bots = [p["name"] for p in (doc["from"], addressee) if p["kind"] == BOT]
        game = game_request(doc)
        self.creation.check(game, app.id if app is not None else None, entered=frozenset(bots))
        for name in bots:
            self.limits.check(name, game.turn_timeout_s, game.clock)
        token = TOKEN_PREFIX + new_token()
        doc["token_hash"] = token_hash(challenge_id, token)
        if not self.store.challenges.open(challenge_id, holder.key, self.settings.max_challenges, now, doc):
            raise TooManyChallenges(
                f"This challenger has {self.settings.max_challenges} open challenges, as many as it may; cancel one "
                "or wait for an answer.",
                self.settings.capacity_retry_after,
            )
        self._tell(doc, now)
        return {"challenge": render(doc, OPEN, None, CHALLENGER, now), "token": token}

    def _terms(self, challenge_id: str, req: ChallengeRequest, holder: Holder, now: float) -> dict[str, Any]:
        """The stored challenge: who challenges whom (checked), on what terms, until when, and the game's id
        and seat tokens, reserved now."""
        challenger: dict[str, Any] = {"kind": holder.kind, "name": holder.name, **({"app": holder.app} if holder.app else {})}
        if req.to_player is not None:
            if holder.kind != PLAYER:
                why = "an app's player challenges a player of its app (with the app's key and `player`)"
                raise invalid("to", why, f"Only {why}.")
            if req.to_player == holder.name:
                raise invalid("to", "not the challenger itself", "A player does not challenge itself.")
            addressee: dict[str, Any] = {"kind": PLAYER, "name": req.to_player, "app": holder.app}
        else:
            assert req.to_bot is not None
            if self._gone(req.to_bot):
                raise BotNotFound(f"No registered bot {req.to_bot!r} to challenge.")
            if holder.kind == BOT and holder.name == req.to_bot:
                raise invalid("to", "not the challenger itself", "A bot does not challenge itself.")
            addressee = {"kind": BOT, "name": req.to_bot}
        if req.rated and holder.kind == ANONYMOUS:
            raise invalid("rated", "an anonymous challenge is unrated", "Only an app's player or a registered bot can be rated.")
        expires_in = req.expires_in_s if req.expires_in_s is not None else self.settings.challenge_expiry
        seats = [challenger, addressee]
        return {
            "id": challenge_id, "from": challenger, "to": addressee, "variant": req.variant, "rules": req.rules or {},
            "rated": req.rated, "turn_timeout_s": req.turn_timeout_s, "clock": req.clock, "name": req.name,
            "created_at": now, "expires_at": now + expires_in, "by": holder.key,
            "game_id": new_id(), "tokens": [None if p["kind"] == BOT else new_token() for p in seats],
        }  # fmt: skip

    def _gone(self, name: str) -> bool:
        """No such registered bot, or it is retired."""
        return self.store.bots.gone(name)

    def _tell(self, doc: dict[str, Any], now: float) -> None:
        """A registered bot sees a ``challenge`` notice on its stream; an app hears ``challenge.received`` for
        its player."""
        addressee = doc["to"]
        if addressee["kind"] == BOT:
            self._notice(addressee["name"], doc, OPEN, ADDRESSEE, now)
        else:
            body = challenge_payload(render(doc, OPEN, None, ADDRESSEE, now), addressee["name"])
            self.lifecycle.announce(addressee["app"], doc["id"], 0, CHALLENGE_RECEIVED, body, of_game=False)

    def _tell_other(self, doc: dict[str, Any], status: str, seat: int) -> None:
        """The other party hears the answer when it is a registered bot: a ``challenge`` notice again, the
        challenge as it reads it now (a challenger bot learns its game, an addressee bot that it was cancelled)."""
        party = (doc["from"], doc["to"])[seat]
        if party["kind"] == BOT:
            self._notice(party["name"], doc, status, seat, time.time())

    def _notice(self, bot: str, doc: dict[str, Any], status: str, seat: int, now: float) -> None:
        """A ``challenge`` notice on the bot's stream: the challenge as the bot at ``seat`` reads it."""
        shown = render(doc, status, None, seat, now)
        notice = {"type": "challenge", "challenge_id": doc["id"], "challenge": shown, "expires_at": doc["expires_at"]}
        self.store.bots.push([(bot, notice)])

    # -- the parties ---------------------------------------------------------------------------------------

    def _load(self, challenge_id: str, caller: Caller) -> tuple[dict[str, Any], dict[str, str], int]:
        """The challenge, its fields (``status``, ``at``, ``reason``), and the caller's seat in it (who it is); 404
        when the caller is neither party (or there is no such challenge), 401 without a credential."""
        if caller.app is None and caller.token is None:
            raise Unauthorized("A challenge is read with its token, the addressee bot's token, or the app's key and `player`.")
        found = self.store.challenges.get(challenge_id)
        seat = None if found is None else self._who(found[0], caller)
        if found is None or seat is None:
            raise ChallengeNotFound("No such challenge for this caller (or it is over and no longer kept).")
        return found[0], found[1], seat

    def _who(self, doc: dict[str, Any], caller: Caller) -> int | None:
        if caller.app is not None:
            if caller.player is None:
                raise invalid("player", "required with an app key", "An app names its `player` (a query parameter).")
            for seat, party in enumerate((doc["from"], doc["to"])):
                if party["kind"] == PLAYER and party.get("app") == caller.app.id and party["name"] == caller.player:
                    return seat
            return None
        assert caller.token is not None
        if caller.token.startswith(TOKEN_PREFIX):
            return CHALLENGER if owns(doc["token_hash"], doc["id"], caller.token) else None
        if caller.token.startswith(BOT_TOKEN_PREFIX):
            name = self.bots.caller(caller.token)
            return next((s for s, p in enumerate((doc["from"], doc["to"])) if p["kind"] == BOT and p["name"] == name), None)
        raise Unauthorized("Not a challenge's token, nor a bot's.")

    def read(self, challenge_id: str, caller: Caller, wait: float = 0.0) -> dict[str, Any]:
        """The challenge as the caller sees it, waiting up to ``wait`` seconds (and no longer than it stays open)
        for its answer; an accept a crash left half done (``SETTLE_S`` ago) is finished now."""
        doc, fields, seat = self._load(challenge_id, caller)
        now = time.time()
        until = min(now + min(wait, self.settings.max_wait), doc["expires_at"])
        if fields["status"] in (OPEN, ACCEPTING) and until > now:
            self.store.challenges.wait_answered(challenge_id, math.ceil((until - now) * 1000) + 1)  # past its expiry
            doc, fields, seat = self._load(challenge_id, caller)
            now = time.time()
        if fields["status"] == ACCEPTING and now - float(fields["at"]) > SETTLE_S:
            try:
                self._make(doc)
            except ServiceError:
                pass  # cancelled, saying why
            doc, fields, seat = self._load(challenge_id, caller)
        return render(doc, fields["status"], fields.get("reason"), seat, now)

    def accept(self, challenge_id: str, caller: Caller) -> dict[str, Any]:
        """The addressee accepts: the game is made, and the challenge answers with its seat and token."""
        doc, _, seat = self._load(challenge_id, caller)
        if seat != ADDRESSEE:
            raise Forbidden("Only the challenge's addressee accepts it.")
        if doc["to"]["kind"] == BOT:
            self.limits.check_busy(doc["to"]["name"])
        self._move(doc, OPEN, ACCEPTING, "accept")
        self._make(doc)
        self._tell_other(doc, ACCEPTED, CHALLENGER)
        return render(doc, ACCEPTED, None, seat, time.time())

    def decline(self, challenge_id: str, caller: Caller) -> dict[str, Any]:
        doc, _, seat = self._load(challenge_id, caller)
        if seat != ADDRESSEE:
            raise Forbidden("Only the challenge's addressee declines it; its challenger cancels it.")
        self._move(doc, OPEN, DECLINED, "decline")
        self._tell_other(doc, DECLINED, CHALLENGER)
        return render(doc, DECLINED, None, seat, time.time())

    def cancel(self, challenge_id: str, caller: Caller) -> dict[str, Any]:
        doc, _, seat = self._load(challenge_id, caller)
        if seat != CHALLENGER:
            raise Forbidden("Only the challenger cancels a challenge; its addressee declines it.")
        self._move(doc, OPEN, CANCELLED, "cancel")
        self._tell_other(doc, CANCELLED, ADDRESSEE)
        return render(doc, CANCELLED, None, seat, time.time())

    def _move(self, doc: dict[str, Any], old: str, new: str, what: str) -> None:
        status, moved = self.store.challenges.move(doc["id"], doc["by"], time.time(), doc["expires_at"], old, new)
        if not moved:
            shown = OPEN if status == ACCEPTING else status
            raise OfferClosed(f"This challenge is {shown}: only an open one can be {what}ed.", challenge_status=shown)

    def _make(self, doc: dict[str, Any]) -> None:
        """Make the accepted challenge's game (again, harmlessly, after a crash), and mark it accepted; a game
        that cannot be made (its bot retired meanwhile, ...) cancels the challenge, saying why, and raises."""
        app_id = next((p["app"] for p in (doc["from"], doc["to"]) if p["kind"] == PLAYER), None)
        try:
            self.creation.create_for_match(doc["game_id"], game_request(doc), doc["tokens"], app_id)
        except ServiceError as exc:
            self.store.challenges.give_up(doc["id"], doc["by"], time.time(), exc.detail)
            raise
        self.store.challenges.move(doc["id"], doc["by"], time.time(), doc["expires_at"], ACCEPTING, ACCEPTED)

"""Creating a game: check the request, take one of the caller's game slots, deal, build its first record,
commit it; with an Idempotency-Key, the first answer (sealed with the key: it holds the seat tokens) answers
every retry of the same caller.

The caller is the client's address, and its bearer token when it sends one: the first answer is stored under
a hash of the caller and the key, so another client repeating a key (and a body) makes a game of its own and
never sees the first caller's tokens or webhook secrets, nor learns that the key was used.

A failure after the game's first write (Redis full or gone) removes what was written, so a refused create
leaves no half-written game behind."""

from __future__ import annotations

import dataclasses
import hashlib
import math
import secrets
import time
from typing import Any

import orjson

import domino
import domino.bots
from api.config import Settings
from api.service.bot_limits import BotLimits
from api.service.errors import BotBusy, IdempotencyKeyReused, InvalidRequest, TooManyAppGames, TooManyGames, Unauthorized
from api.service import bot_games, webhooks
from api.service.addresses import literal_target
from api.service.apps import App
from api.service.commits import Change, Commits, Committed
from api.service.ratings import check_rated
from api.service.records import (
    BOT, HOSTED, HUMAN, OPEN, REGISTERED, SEAT_EXTRAS, ArenaGame, GameRecord, SeatRecord, StoredEvent, listed, public_seats, stored_event, waiting,
)  # fmt: skip
from api.service.security import fingerprint, new_id, new_token, seal, seed_commitment, token_hash
from api.service.registered_bots import RegisteredBots
from api.service.validation import check_variant, invalid, resolve_rules
from api.service.views import render_view
from api.store import Store, StoreUnavailable

Created = tuple[dict[str, Any], list[dict[str, Any]], int, str]  # (view, tokens, version, game id)


@dataclasses.dataclass(frozen=True)
class GameRequest:
    variant: str
    seats: list[dict[str, Any]]
    rules: dict[str, Any] | None = None
    seed: str | None = None
    unlisted: bool = False
    turn_timeout_s: float | None = None
    clock: dict[str, float] | None = None  # Fischer: initial_s, increment_s (never with turn_timeout_s)
    metadata: dict[str, Any] | None = None  # the game's; a seat's are in its dict, with its `player`
    rated: bool = False  # its end updates its players' ratings (api/service/ratings.py)
    hints: bool = False  # a practice game: the seat to move may ask for hints (api/service/hints.py); never rated


def players(req: GameRequest) -> list[str]:
    """The app's player ids its seats name (each once)."""
    return list(dict.fromkeys(seat["player"] for seat in req.seats if seat.get("player")))


class Creation:
    def __init__(self, store: Store, settings: Settings, commits: Commits) -> None:
        self.store = store
        self.settings = settings
        self.commits = commits
        self.bots = RegisteredBots(store, settings)
        self.limits = BotLimits(store, settings)

    def create(
        self,
        req: GameRequest,
        client: str,
        idempotency_key: str | None = None,
        token: str | None = None,
        app: App | None = None,
    ) -> Created:
        """Returns (view of the first human seat or the spectator's, tokens, version, game id). ``client``: the
        caller's address; ``token``: its bearer token, if any; ``app``: the app whose key it sent, if any (all
        three bind the Idempotency-Key). An app's game belongs to it and holds one of the app's slots instead
        of one of the address's."""
        if app is None and self.settings.require_app_key:
            raise Unauthorized("Creating a game needs an app key: `Authorization: Bearer dsk_app_...`.")
        fp = fingerprint(
            "create", req.variant, req.seats, req.rules, req.seed, req.unlisted, req.turn_timeout_s, req.metadata, req.rated,
            req.clock, *((req.hints,) if req.hints else ()),
        )
        key_hash = None
        if idempotency_key:
            caller = hashlib.sha256(f"{client}\n{token or ''}\n{app.id if app else ''}".encode()).hexdigest()
            key_hash = hashlib.sha256(f"{caller}\n{idempotency_key}".encode()).hexdigest()
            replay = self._replay(key_hash, idempotency_key, fp)
            if replay is not None:
                return replay
        rules, registered = self.check(req, app.id if app is not None else None)
        game_id = new_id()
        self._take_slot(game_id, client, app)
        try:
            self.limits.hold(game_id, registered.values())
            return self._commit_new(game_id, req, rules, registered, client, app, fp, key_hash, idempotency_key)
        except (StoreUnavailable, BotBusy):
            self._undo(game_id, client, app, req)
            raise

    def _take_slot(self, game_id: str, client: str, app: App | None) -> None:
        """One of the app's slots (its own cap), else one of the address's; neither while it has as many
        finished games as it may waiting for the archive."""
        # until its first idle check and the margin; each idle check renews it (api/service/idle.py)
        lease = math.ceil((self.settings.game_ttl + self.settings.expiry_margin) * 1000)
        self._check_finished(f"app:{app.id}" if app is not None else client, app is not None)
        if app is not None:
            if not self.store.app_games.take(app.id, game_id, app.max_games, lease):
                raise TooManyAppGames(
                    f"This app has {app.max_games} games waiting or playing, as many as its cap allows; finish or "
                    "resign one first.",
                    self.settings.capacity_retry_after,
                )
            return
        cap = self.settings.games_per_client
        if not self.store.client_games.take(client, game_id, cap, lease):
            raise TooManyGames(
                f"This client has {cap} games waiting or playing, as many as it may; finish or resign one first.",
                self.settings.capacity_retry_after,
            )

    def _check_finished(self, held_by: str, by_app: bool) -> None:
        cap = self.settings.finished_games_per_client
        if cap and self.store.client_finished.count(held_by) >= cap:
            who = "This app" if by_app else "This client"
            detail = f"{who} has {cap} finished games waiting for the archive, as many as it may; retry later."
            raise (TooManyAppGames if by_app else TooManyGames)(detail, self.settings.capacity_retry_after)

    def _undo(self, game_id: str, client: str, app: App | None, req: GameRequest) -> None:
        """Remove what a failed create may have written (deletes are allowed in a full Redis)."""
        try:
            self.store.lobby.remove(game_id)
            self.store.games.delete(game_id)
            self.limits.release(game_id, [seat["bot"] for seat in req.seats if "bot" in seat])
            if app is not None:
                self.store.app_games.release(app.id, game_id)
                self.store.apps.disown(app.id, [game_id], players(req))
            else:
                self.store.client_games.release(client, game_id)
        except StoreUnavailable:  # Redis is gone: the game's keys expire; its slot lapses
            pass

    def _commit_new(
        self,
        game_id: str,
        req: GameRequest,
        rules: domino.Rules,
        registered: dict[str, dict[str, Any]],
        client: str,
        app: App | None,
        fp: str,
        key_hash: str | None,
        idempotency_key: str | None,
    ) -> Created:
        doc, state, tokens = self._first_record(game_id, req, rules, registered)
        if app is not None:  # indexed before the commit: an entry whose game never landed is dropped when met
            doc["app"] = app.id
            self.store.apps.own(app.id, game_id, doc["created_at"], players(req))
        else:
            doc["creator"] = client
        committed = self._commit_first(game_id, doc, state, req.variant)
        assert committed is not None  # a collision raised
        if waiting(doc) and listed(doc):
            self.store.lobby.add(game_id, doc["created_at"])
        first_human = next((s["seat"] for s in doc["seats"] if s["kind"] == HUMAN), None)
        view = render_view(doc, committed.version, state, first_human)
        if key_hash and idempotency_key:
            blob = orjson.dumps({"fp": fp, "view": view, "tokens": tokens, "version": committed.version, "id": game_id})
            if not self.store.games.put_create_answer(key_hash, seal(idempotency_key, blob)):
                # A concurrent request with the same key won: answer as it did, and drop our game.
                self._undo(game_id, client, app, req)
                replay = self._replay(key_hash, idempotency_key, fp)
                if replay is not None:
                    return replay
        return view, tokens, committed.version, game_id

    def create_for_arena(
        self, game_id: str, req: GameRequest, seed: str, arena: ArenaGame, deal_version: int = domino.DEAL_VERSION
    ) -> bool:
        """An arena's game (checked with :meth:`check`) under the id the arena chose for it, dealt from the
        arena's ``seed`` for its deal (a server secret, not a client's) by the arena's deal version (every game of
        a deal must get the same hands); False when it exists already (created by an earlier run of the same
        step)."""
        rules, registered = self.check(req, entered=frozenset(s["bot"] for s in req.seats))
        doc, state, _ = self._first_record(game_id, req, rules, registered, seed, deal_version)
        doc["arena"] = arena
        self.limits.hold(game_id, registered.values(), enforce=False)
        return self._commit_first(game_id, doc, state, req.variant, exists_ok=True) is not None

    def create_for_match(self, game_id: str, req: GameRequest, tokens: list[str | None], app_id: str | None) -> bool:
        """A matched table's game under the id its match reserved, with the seat tokens it chose (its tickets show
        them), owned by ``app_id`` when every ticket was that app's; False when it exists already (a match
        finished twice). Like an arena's, it holds no client's slot: tickets are capped instead. A registered bot
        sits there only by a ticket it holds itself: its consent."""
        rules, registered = self.check(req, app_id, entered=frozenset(s["bot"] for s in req.seats if "bot" in s))
        doc, state, _ = self._first_record(game_id, req, rules, registered, chosen=tokens)
        self.limits.hold(game_id, registered.values())  # a bot at its max_games: 409 bot-busy, nothing made
        if app_id is not None:
            doc["app"] = app_id
            self.store.apps.own(app_id, game_id, doc["created_at"], players(req))
        return self._commit_first(game_id, doc, state, req.variant, exists_ok=True) is not None

    def _commit_first(
        self, game_id: str, doc: GameRecord, state: domino.State, variant: str, exists_ok: bool = False
    ) -> Committed | None:
        """Commit a new game's first record with its opening events; None when ``exists_ok`` and a game of that
        id exists."""
        created = {
            "type": "game_created",
            "seat": None,
            "variant": variant,
            "seats": public_seats(doc),
            "seed_commitment": doc["seed_commitment"],
            "client_seeded": doc["client_seeded"],
            **({"metadata": doc["metadata"]} if "metadata" in doc else {}),
        }
        events: list[StoredEvent] = [{"public": created}, *(stored_event(e) for e in domino.opening_events(state))]
        first_human = next((s["seat"] for s in doc["seats"] if s["kind"] == HUMAN), None)
        change = Change(doc, state, events, first_human)
        committed = self.commits.apply(game_id, None, change)
        if committed is None and not exists_ok:  # 80 random bits collided: astronomically unlikely
            raise RuntimeError("game id collision")
        return committed

    def _replay(self, key_hash: str, key: str, fp: str) -> Created | None:
        sealed = self.store.games.create_answer(key_hash)
        if sealed is None:
            return None
        data = orjson.loads(seal(key, sealed))
        if data["fp"] != fp:
            raise IdempotencyKeyReused("This Idempotency-Key was used with a different request.")
        return data["view"], data["tokens"], data["version"], data["id"]

    def check(
        self, req: GameRequest, app_id: str | None = None, entered: frozenset[str] = frozenset()
    ) -> tuple[domino.Rules, dict[str, dict[str, Any]]]:
        """What the schema cannot check: known bots (registered ones seated with consent, seatable, each at
        most once), public webhooks, the shortest turn, who may play a rated game (``app_id``: the creating
        app's), the rules. ``entered``: the registered bots an arena entered (consent given when it was
        created). Returns the rules and the records of the registered bots."""
        check_variant(req.variant, req.rules, "seats")

        def consented(record: dict[str, Any]) -> bool:
            return record["owner"] == app_id or record["name"] in entered

        records = {
            i: self.bots.seatable(seat["bot"], req.variant, i, consented)
            for i, seat in enumerate(req.seats)
            if "bot" in seat and seat["bot"] not in domino.bots.ids()
        }  # consent (403) is judged before the rest of the seats
        if req.rated:
            if req.hints:
                practice = "a game with hints is a practice game, never rated"
                raise invalid("hints", practice, f"No `hints` in a rated game: {practice}.")
            check_rated(req.seats, req.seed, app_id)
        registered: dict[str, dict[str, Any]] = {}
        for i, record in records.items():
            registered[record["name"]] = self._registered(req, i, record, registered)
        for i, seat in enumerate(req.seats):
            if seat.get("webhook") and not self.settings.webhook_allow_private:
                why = literal_target(seat["webhook"])
                if why:
                    raise InvalidRequest(f"Seat {i}'s webhook {why}.", errors={"json": {"seats": {str(i): {"webhook": [why]}}}})
        least = self.settings.min_turn_timeout
        if req.turn_timeout_s is not None and req.turn_timeout_s < least:
            raise invalid("turn_timeout_s", f"at least {least}", f"`turn_timeout_s` must be at least {least}.")
        rules = resolve_rules(req.variant, len(req.seats), req.rules, "seats")
        bot_games.check_limits(self.settings, req.seats, rules)
        return rules, registered

    @staticmethod
    def _registered(req: GameRequest, i: int, record: dict[str, Any], seated: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """``record``, of the registered bot seat ``i`` names, when it is not seated twice (a bot token moves
        for one seat of a game) and has no think time (the bot thinks on its own machine)."""
        seat = req.seats[i]
        why = None
        if seat["bot"] in seated:
            why = "a registered bot sits at most once in a game"
        elif "think_ms" in seat:
            why = "only a computer player has a think time"
        if why:
            field = "think_ms" if "think_ms" in seat else "bot"
            raise InvalidRequest(f"Seat {i}: {why}.", errors={"json": {"seats": {str(i): {field: [why]}}}})
        return record

    def _first_record(
        self,
        game_id: str,
        req: GameRequest,
        rules: domino.Rules,
        registered: dict[str, dict[str, Any]],
        server_seed: str | None = None,
        deal_version: int = domino.DEAL_VERSION,
        chosen: list[str | None] | None = None,
    ) -> tuple[GameRecord, domino.State, list[dict[str, Any]]]:
        """The game as dealt (version 0) from the client's seed, else ``server_seed``, else a random one: its
        record, its state, and the tokens (and webhook secrets) shown once (``chosen``: tokens chosen already, by seat).
        A registered bot's seat gets no token: the bot moves with its own."""
        client_seeded = req.seed is not None
        seed = req.seed if req.seed is not None else server_seed or secrets.token_hex(16)  # 128 random bits
        state = domino.new_game(rules, seed=seed, deal_version=deal_version)
        salt = secrets.token_hex(16)
        tokens: list[dict[str, Any]] = []
        seats = [
            _seat_record(game_id, i, seat, registered, tokens, chosen[i] if chosen else None)
            for i, seat in enumerate(req.seats)
        ]
        doc: GameRecord = {
            "format": 1,
            "id": game_id,
            "variant": req.variant,
            "created_at": time.time(),
            "unlisted": req.unlisted,
            "seats": seats,
            "salt": salt,
            "seed_commitment": seed_commitment(seed, salt),
            "client_seeded": client_seeded,
            "last_moves": {},
            "turn_timeout_s": req.turn_timeout_s,
            "deadline": None,
            "state": domino.to_live(state),
        }
        if req.metadata is not None:
            doc["metadata"] = req.metadata
        if req.clock is not None:
            initial, increment = float(req.clock["initial_s"]), float(req.clock.get("increment_s", 0.0))
            doc["clock"] = {
                "initial_s": initial, "increment_s": increment, "remaining": [initial] * len(seats),
                "turn_started_at": None, "seat": None,
            }  # fmt: skip
        if req.rated:
            doc["rated"] = True
        if req.hints:
            doc["hints"] = True
        return doc, state, tokens


def _seat_record(
    game_id: str,
    i: int,
    seat: dict[str, Any],
    registered: dict[str, dict[str, Any]],
    tokens: list[dict[str, Any]],
    chosen: str | None,
) -> SeatRecord:
    """Seat ``i``'s record as dealt; a human's or hosted bot's token (``chosen``, when one was chosen already)
    and webhook secret, shown once, go to ``tokens``."""
    if seat.get("bot") in registered:
        name = seat["bot"]
        bot_key = registered[name]["token_hash"]
        record: SeatRecord = {"seat": i, "name": name, "kind": REGISTERED, "bot": name, "bot_key": bot_key}
    elif "bot" in seat:
        record = {"seat": i, "name": seat["bot"], "kind": BOT, "bot": seat["bot"]}
        if "think_ms" in seat:
            record["think_ms"] = seat["think_ms"]
    elif seat.get("open"):
        record = {"seat": i, "name": None, "kind": OPEN}
    else:
        token = chosen or new_token()
        record = {"seat": i, "name": seat["name"], "kind": HUMAN, "token_hash": token_hash(game_id, token)}
        if seat.get("webhook"):
            secret = webhooks.new_secret()  # shown once, like the token
            record.update({"kind": HOSTED, "webhook": seat["webhook"], "webhook_secret": secret})
            tokens.append({"seat": i, "token": token, "webhook_secret": secret})
        else:
            tokens.append({"seat": i, "token": token})
    for extra in SEAT_EXTRAS:
        if extra in seat:
            record[extra] = seat[extra]  # type: ignore[literal-required]
    return record

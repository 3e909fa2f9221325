"""The application core: games, views, moves and history. Routes and jobs are thin and call one method.

A move: load -> ``domino.step`` (raises on bad input, nothing written) -> mark the bot-due entry if a computer
player is next (before the commit) -> ``store.commit`` (one compare-and-set) -> enqueue the bot's
turn -> the seat's view. A computer player's move takes exactly this path (``play_move`` with ``seat=``).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import random
import secrets
import time
from typing import Any

import orjson

import domino
import domino.bots
from api.config import Settings
from api import bot_games, turns
from api.errors import GameNotFound, IdempotencyKeyReused, InvalidRequest, NotStarted, Unauthorized, VersionMismatch
from api.store import Store

log = logging.getLogger("api.service")

_B32 = "abcdefghijklmnopqrstuvwxyz234567"
_VIEW_ORDER = (
    "id", "variant", "rules", "status", "version", "round", "turn", "seat", "seats", "scores", "team_scores",
    "boneyard_count", "out_of_play_count", "board", "log", "hand", "legal_moves", "last_round", "winners",
    "seed_commitment", "client_seeded", "turn_timeout_s", "deadline",
)  # fmt: skip
_VIEW_DROP = ("hand_counts", "finished")  # shown as seats[].hand_count and status


def new_game_id() -> str:
    """16 random lowercase base32 characters (80 bits)."""
    return "".join(secrets.choice(_B32) for _ in range(16))


def token_hash(game_id: str, token: str) -> str:
    """What we store for a seat token: bound to its game, so a token is useless in another one."""
    return hashlib.sha256(f"{game_id}:{token}".encode()).hexdigest()


def seed_commitment(seed: str, salt: str) -> str:
    """SHA-256 (hex) of ``<seed>:<salt>``; both are revealed by the history once the game ends."""
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


def _fingerprint(*parts: Any) -> str:
    return hashlib.sha256(orjson.dumps(parts, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _keystream_xor(key: str, data: bytes) -> bytes:
    """Seal a stored create answer (it holds seat tokens) with the client's Idempotency-Key: without the
    key, the Redis record is useless. One record per key, so a SHAKE-256 keystream is a one-time pad."""
    pad = hashlib.shake_256(b"domino-idempotency:" + key.encode()).digest(len(data))
    return bytes(a ^ b for a, b in zip(data, pad))


def think_budget(think_ms: int | None) -> domino.bots.Budget:
    """A live computer player's budget: the seat's think time, else the strategy's own default."""
    if think_ms is None:
        return domino.bots.Budget()
    return domino.bots.Budget(deadline=time.monotonic() + think_ms / 1000)


MINIMAL_VIEW = ("id", "variant", "version", "seat", "status")  # a move's answer with Prefer: return=minimal


def minimal_view(doc: dict[str, Any], version: int, state: Any, seat: int | None) -> dict[str, Any]:
    return {"id": doc["id"], "variant": doc["variant"], "version": version, "seat": seat, "status": game_status(state, doc)}


def game_status(state: Any, doc: dict[str, Any] | None = None) -> str:
    if not state.finished:
        return "waiting" if doc is not None and turns.waiting(doc) else "playing"
    return "aborted" if state.outcome.reason == "aborted" else "finished"


class Service:
    def __init__(self, settings: Settings, store: Store | None = None) -> None:
        self.settings = settings
        self.store = store or Store(settings)

    # -- reference data -----------------------------------------------------------------------------------

    @staticmethod
    def variants() -> dict[str, Any]:
        return domino.describe_variants()

    @staticmethod
    def bots() -> list[dict[str, Any]]:
        return list(domino.bots.catalog())

    # -- create -------------------------------------------------------------------------------------------

    def create_game(
        self,
        variant: str,
        seats: list[dict[str, Any]],
        rules: dict[str, Any] | None = None,
        seed: str | None = None,
        unlisted: bool = False,
        idempotency_key: str | None = None,
        turn_timeout_s: float | None = None,
    ) -> tuple[dict[str, Any], list[dict[str, Any]], int, str]:
        """Returns (view of the first human seat or the spectator's, tokens, version, game id)."""
        fingerprint = _fingerprint("create", variant, seats, rules, seed, unlisted, turn_timeout_s)
        key_hash = hashlib.sha256(idempotency_key.encode()).hexdigest() if idempotency_key else None
        if key_hash:
            replay = self._create_replay(key_hash, idempotency_key or "", fingerprint)
            if replay is not None:
                return replay

        rules = dict(rules or {})
        if "players" in rules:
            raise InvalidRequest(
                "`players` comes from the seats, not from `rules`.", errors={"json": {"rules": {"players": ["not allowed"]}}}
            )
        presets = list(domino.PRESETS)
        if variant not in presets:
            raise InvalidRequest(
                f"Unknown variant {variant!r}; see GET /v1/variants.", errors={"json": {"variant": [f"one of {presets}"]}}
            )
        bot_ids = {b["id"] for b in self.bots()}
        for i, seat in enumerate(seats):
            if "bot" in seat and seat["bot"] not in bot_ids:
                raise InvalidRequest(
                    f"Unknown bot {seat['bot']!r}; see GET /v1/bots.",
                    errors={"json": {"seats": {str(i): {"bot": [f"one of {sorted(bot_ids)}"]}}}},
                )
            if seat.get("webhook") and not self.settings.webhook_allow_private:
                from api.webhooks import private_target

                why = private_target(seat["webhook"], resolve=False)
                if why:
                    raise InvalidRequest(f"Seat {i}'s webhook {why}.", errors={"json": {"seats": {str(i): {"webhook": [why]}}}})
        if turn_timeout_s is not None and turn_timeout_s < self.settings.min_turn_timeout:
            raise InvalidRequest(
                f"`turn_timeout_s` must be at least {self.settings.min_turn_timeout}.",
                errors={"json": {"turn_timeout_s": [f"at least {self.settings.min_turn_timeout}"]}},
            )
        game_rules = domino.Rules.preset(variant, players=len(seats), **rules)  # InvalidRulesError -> 422
        bot_games.check_limits(self.settings, seats, game_rules)

        game_id = new_game_id()
        client_seeded = seed is not None
        seed = seed if seed is not None else secrets.token_hex(16)  # 128 random bits
        salt = secrets.token_hex(16)
        state = domino.new_game(game_rules, seed=seed)

        tokens: list[dict[str, Any]] = []
        seat_docs: list[dict[str, Any]] = []
        for i, seat in enumerate(seats):
            if "bot" in seat:
                seat_docs.append({"seat": i, "name": seat["bot"], "kind": "bot", "bot": seat["bot"]})
                if "think_ms" in seat:
                    seat_docs[-1]["think_ms"] = seat["think_ms"]
            elif seat.get("open"):
                seat_docs.append({"seat": i, "name": None, "kind": "open"})
            else:
                token = secrets.token_urlsafe(32)  # 256 random bits, shown once
                seat_doc = {"seat": i, "name": seat["name"], "kind": "human", "token_hash": token_hash(game_id, token)}
                if seat.get("webhook"):
                    from api.webhooks import new_secret

                    secret = new_secret()  # shown once, like the token
                    tokens.append({"seat": i, "token": token, "webhook_secret": secret})
                    seat_doc.update(kind="hosted", webhook=seat["webhook"], webhook_secret=secret)
                else:
                    tokens.append({"seat": i, "token": token})
                seat_docs.append(seat_doc)
        commitment = seed_commitment(seed, salt)
        doc: dict[str, Any] = {
            "format": 1,
            "id": game_id,
            "variant": variant,
            "created_at": time.time(),
            "unlisted": unlisted,
            "seats": seat_docs,
            "salt": salt,
            "seed_commitment": commitment,
            "client_seeded": client_seeded,
            "last_moves": {},
            "turn_timeout_s": turn_timeout_s,
            "deadline": None,
            "state": domino.to_dict(state),
        }
        created = {
            "type": "game_created",
            "seat": None,
            "variant": variant,
            "seats": [{"seat": s["seat"], "name": s["name"], "kind": s["kind"]} for s in seat_docs],
            "seed_commitment": commitment,
            "client_seeded": client_seeded,
        }
        version = 0
        plan = turns.prepare(self, game_id, doc, state, version)
        events = [{"public": created}, *(self._stored_event(e) for e in domino.opening_events(state))]
        events = turns.decorate(events, plan)
        result = self.store.commit(game_id, None, version, doc, events, self.settings.game_ttl, turn=turns.notice(plan))
        if not result.ok:  # 80 random bits collided: astronomically unlikely
            raise RuntimeError("game id collision")
        if turns.waiting(doc) and not unlisted:
            self.store.lobby_add(game_id, doc["created_at"])
        turns.start(self, game_id, version, plan)

        first_human = next((s["seat"] for s in seat_docs if s["kind"] == "human"), None)
        view = self.render_view(doc, version, state, first_human)
        if key_hash:
            blob = orjson.dumps({"fp": fingerprint, "view": view, "tokens": tokens, "version": version, "id": game_id})
            if not self.store.put_create_answer(key_hash, _keystream_xor(idempotency_key or "", blob)):
                # A concurrent request with the same key won: answer as it did, and drop our game.
                self.store.delete_game(game_id)
                replay = self._create_replay(key_hash, idempotency_key or "", fingerprint)
                if replay is not None:
                    return replay
        return view, tokens, version, game_id

    def _create_replay(
        self, key_hash: str, key: str, fingerprint: str
    ) -> tuple[dict[str, Any], list[dict[str, Any]], int, str] | None:
        sealed = self.store.create_answer(key_hash)
        if sealed is None:
            return None
        data = orjson.loads(_keystream_xor(key, sealed))
        if data["fp"] != fingerprint:
            raise IdempotencyKeyReused("This Idempotency-Key was used with a different request.")
        return data["view"], data["tokens"], data["version"], data["id"]

    # -- reading ------------------------------------------------------------------------------------------

    def _load(self, game_id: str) -> tuple[int, dict[str, Any]]:
        rec = self.store.load(game_id)
        if rec is None:
            raise GameNotFound(f"No game {game_id!r} (it may have expired).")
        return rec.version, rec.doc

    @staticmethod
    def authenticate(doc: dict[str, Any], token: str | None) -> int | None:
        """The seat a token belongs to; None for no token (a spectator); Unauthorized for a wrong one."""
        if token is None:
            return None
        digest = token_hash(doc["id"], token)
        found: int | None = None
        for seat in doc["seats"]:
            stored = seat.get("token_hash")
            if stored is not None and hmac.compare_digest(stored, digest):
                found = seat["seat"]
        if found is None:
            raise Unauthorized("This token is not a seat token of this game.")
        return found

    def get_view(self, game_id: str, token: str | None = None) -> tuple[dict[str, Any], int, int | None]:
        """(view, version, seat): the token's seat's view, or the spectator's without a token."""
        view, version, seat = self.get_view_unless(game_id, token, lambda version: False)
        assert view is not None
        return view, version, seat

    def get_view_unless(
        self, game_id: str, token: str | None, unchanged: Any
    ) -> tuple[dict[str, Any] | None, int, int | None]:
        """Like get_view, but (None, version, seat) without rendering when ``unchanged(version)`` (a 304 for
        ``If-None-Match``: the token is still checked, the view is not built)."""
        version, doc = self._load(game_id)
        seat = self.authenticate(doc, token)
        if unchanged(version):
            return None, version, seat
        state = domino.from_dict(doc["state"])
        return self.render_view(doc, version, state, seat), version, seat

    def current_version(self, game_id: str) -> int:
        version = self.store.version(game_id)
        if version is None:
            raise GameNotFound(f"No game {game_id!r} (it may have expired).")
        return version

    def render_view(self, doc: dict[str, Any], version: int, state: Any, seat: int | None) -> dict[str, Any]:
        v = domino.view(state, seat).to_dict()
        hand_counts = v.get("hand_counts") or [None] * len(doc["seats"])
        extra = {
            "id": doc["id"],
            "variant": doc["variant"],
            "status": game_status(state, doc),
            "version": version,
            "seat": seat,
            "seats": [
                {"seat": s["seat"], "name": s["name"], "kind": s["kind"], "hand_count": hand_counts[s["seat"]]}
                for s in doc["seats"]
            ],
            "seed_commitment": doc["seed_commitment"],
            "client_seeded": doc["client_seeded"],
            "turn_timeout_s": doc.get("turn_timeout_s"),
            "deadline": doc.get("deadline"),
        }
        merged = {**v, **extra}
        if extra["status"] == "waiting" and "legal_moves" in merged:
            merged["legal_moves"] = []  # nobody moves before every seat is taken
        if seat is None:
            merged.pop("hand", None)
            merged.pop("legal_moves", None)
        out = {k: merged[k] for k in _VIEW_ORDER if k in merged}
        for k, val in merged.items():
            if k not in out and k not in _VIEW_DROP:
                out[k] = val
        return out

    def history(self, game_id: str, token: str | None = None) -> dict[str, Any]:
        """Rounds, moves and results. Before the end: what the caller's seat may see; after: everything."""
        version, doc = self._load(game_id)
        seat = self.authenticate(doc, token)
        state = domino.from_dict(doc["state"])
        finished = bool(state.finished)
        events = []
        for stream_id, stored in self.store.events(game_id):
            private_to = stored.get("private_to")
            full = stored.get("full")
            if full is not None and (finished or (seat is not None and seat == private_to)):
                data = full
            else:
                data = stored["public"]
            events.append({"id": stream_id, "version": int(stream_id.split("-", 1)[0]), **data})
        out: dict[str, Any] = {
            "id": game_id,
            "variant": doc["variant"],
            "status": game_status(state, doc),
            "version": version,
            "seat": seat,
            "seats": [{"seat": s["seat"], "name": s["name"], "kind": s["kind"]} for s in doc["seats"]],
            "rules": state.rules.to_dict(),
            "rounds": [r.to_dict(reveal_deal=False) for r in state.rounds],
            "events": events,
            "outcome": state.outcome.to_dict() if state.outcome is not None else None,
            "seed_commitment": doc["seed_commitment"],
            "client_seeded": doc["client_seeded"],
        }
        if finished:
            deals = [{"round": r.round, **r.deal.to_dict()} for r in state.rounds]
            if not any(d["round"] == state.round for d in deals):
                deals.append({"round": state.round, **state.deal.to_dict()})
            out["deals"] = deals
            out["seed"] = state.seed
            out["salt"] = doc["salt"]
        return out

    # -- moves --------------------------------------------------------------------------------------------

    @staticmethod
    def _bot_to_move(doc: dict[str, Any], state: Any) -> int | None:
        seat = state.to_move
        if seat is None or doc["seats"][seat]["kind"] != "bot":
            return None
        return int(seat)

    def play_move(
        self,
        game_id: str,
        move_data: dict[str, Any],
        *,
        token: str | None = None,
        seat: int | None = None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        auto: bool = False,
        minimal: bool = False,
    ) -> tuple[dict[str, Any], int]:
        """Play, draw or pass for the token's seat (or ``seat``, for a computer player or a timed-out seat,
        ``auto``: its events say so); (view, version). ``minimal``: instead of the view, only its ``id``,
        ``variant``, ``version``, ``seat`` and ``status`` (a client following the events needs no more)."""
        move = domino.parse_move(move_data)  # InvalidMoveError -> 422, before any I/O
        internal = seat is not None
        for _ in range(self.settings.conflict_retries + 1):
            version, doc = self._load(game_id)
            if not internal:
                if token is None:
                    raise Unauthorized("A seat token is needed to move: `Authorization: Bearer <token>`.")
                seat = self.authenticate(doc, token)
            assert seat is not None
            idem_field = fingerprint = None
            if idempotency_key:
                fingerprint = _fingerprint("move", move.to_dict(), expected_version)
                idem_field = hashlib.sha256(f"{seat}:{idempotency_key}".encode()).hexdigest()
                stored = self.store.move_answer(game_id, idem_field)
                if stored is not None:
                    answer = orjson.loads(stored)
                    if answer["fp"] != fingerprint:
                        raise IdempotencyKeyReused("This Idempotency-Key was used with a different move.")
                    view = answer["view"]
                    return ({k: view[k] for k in MINIMAL_VIEW} if minimal else view), answer["version"]
            if expected_version is not None and expected_version != version:
                raise self._mismatch(doc, version, seat)
            if turns.waiting(doc):
                raise NotStarted("The game is waiting for its open seats to be taken.")

            state = domino.from_dict(doc["state"])
            new_state, events = domino.step(state, move, seat=seat)  # raises: nothing written
            new_version = version + 1
            last_moves = dict(doc.get("last_moves") or {})
            last_moves[str(seat)] = {"version": new_version, "move": move.to_dict()}
            new_doc = {**doc, "state": domino.to_dict(new_state), "last_moves": last_moves}
            plan = turns.prepare(self, game_id, new_doc, new_state, new_version)
            stored_events = turns.decorate([self._stored_event(e) for e in events], plan, auto)
            idem = view = None
            if idem_field:  # a retry may want the whole view: the first answer keeps it
                view = self.render_view(new_doc, new_version, new_state, seat)
                idem = (idem_field, orjson.dumps({"fp": fingerprint, "view": view, "version": new_version}))
            if minimal:
                view = minimal_view(new_doc, new_version, new_state, seat)
            elif view is None:
                view = self.render_view(new_doc, new_version, new_state, seat)
            ttl = self.settings.finished_ttl if new_state.finished else self.settings.game_ttl
            result = self.store.commit(
                game_id, version, new_version, new_doc, stored_events, ttl, idem, turn=turns.notice(plan)
            )
            if result.ok:
                turns.start(self, game_id, new_version, plan)
                return view, new_version
            if result.current_version is None:
                raise GameNotFound(f"No game {game_id!r} (it may have expired).")
            if expected_version is not None or internal:
                current, doc = self._load(game_id)
                raise self._mismatch(doc, current, seat)
            # No version named: someone else moved first; validate again on the new state.
        current, doc = self._load(game_id)
        raise self._mismatch(doc, current, seat)

    @staticmethod
    def _mismatch(doc: dict[str, Any], current: int, seat: int | None) -> VersionMismatch:
        last = (doc.get("last_moves") or {}).get(str(seat))
        return VersionMismatch(
            f"The game is at version {current}.", current_version=current, last_move=last
        )

    @staticmethod
    def _stored_event(event: Any) -> dict[str, Any]:
        stored: dict[str, Any] = {"public": event.to_dict()}
        if event.private_to is not None:
            stored["private_to"] = event.private_to
            stored["full"] = event.to_dict(for_seat=event.private_to)
        return stored

    # -- computer players ----------------------------------------------------------------------------------

    def _enqueue_bot(self, game_id: str, version: int, attempt: int, bot_only: bool) -> None:
        from workers.queues import enqueue_bot_turn

        try:
            enqueue_bot_turn(self.store, game_id, version, attempt, bot_only)
        except Exception:  # the move has landed; the bot-due entry lets the sweep enqueue it later
            log.warning("could not enqueue bot turn %s@%s; the sweep will", game_id, version, exc_info=True)

    def play_bot_turn(self, game_id: str, version: int) -> str:
        """Play one computer player's move if the game is still at ``version`` with a bot to move."""
        rec = self.store.load(game_id)
        if rec is None:
            return "gone"
        if rec.version != version:
            return "stale"
        state = domino.from_dict(rec.doc["state"])
        seat = self._bot_to_move(rec.doc, state)
        if seat is None:
            return "no-bot"
        strategy = domino.bots.get(rec.doc["seats"][seat]["bot"])
        rng = random.Random(hashlib.sha256(f"{game_id}:{version}".encode()).digest())
        move = strategy.choose(domino.view(state, seat), rng, think_budget(rec.doc["seats"][seat].get("think_ms")))
        try:
            self.play_move(game_id, move.to_dict(), seat=seat, expected_version=version)
        except VersionMismatch:
            return "stale"
        return "played"

    def sweep(self, now: float | None = None) -> list[tuple[str, int]]:
        """Re-enqueue overdue computer-player turns; drop entries of games no bot is waiting in."""
        from workers.queues import enqueue_bot_turn

        now = time.time() if now is None else now
        requeued = []
        for game_id, score in self.store.overdue_bots(now):
            rec = self.store.load(game_id)
            seat = None
            if rec is not None:
                seat = self._bot_to_move(rec.doc, domino.from_dict(rec.doc["state"]))
            if rec is None or seat is None:
                self.store.clear_bot_due_if(game_id, score)
                continue
            attempt = self.store.next_bot_attempt(game_id, rec.version)
            self.store.mark_bot_due(game_id, now + self.settings.bot_due_delay)
            enqueue_bot_turn(self.store, game_id, rec.version, attempt, bot_games.bot_only(rec.doc["seats"]))
            requeued.append((game_id, rec.version))
        return requeued

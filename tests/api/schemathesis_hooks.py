"""Hooks of the schemathesis runs (loaded by the repository's `schemathesis.toml`, so `schemathesis run` from the
repository uses them too; test_contract_fuzz.py runs with that file).

They stand for what JSON Schema cannot say, each where it applies (with the reason): which options of a
variant's `rules` combine (the engine's rules, not JSON Schema's), a bot name that must exist, a query parameter
allowed only with another, a header that must agree with a body member, a body member for one kind of
credential. They change positive cases only (those the checks hold to "must be accepted"): a negative case
stays as generated. `map_case` runs in every phase, the coverage phase included."""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import MutableMapping
from typing import Any

import schemathesis
from schemathesis.core import NotSet

import domino.bots
from api.resources.moves.schemas import TILE_PATTERN
from api.service.registered_bots import BOT_NAME_PATTERN


def valid_body(body: Any) -> Any:
    """A positive case's body, made valid where JSON Schema cannot say what valid is."""
    if isinstance(body, dict) and isinstance(body.get("rules"), dict):
        # Which of a variant's options combine (`rounds` only with `match_end: fixed_rounds`, `teams` only with 4
        # seats, a hand size the set can deal, the caps of a game of computer players only) is the engine's.
        body = {**body, "rules": {}}
    games = body.get("games") if isinstance(body, dict) else None
    if isinstance(body, dict) and body.get("duplicate") is True and isinstance(games, (int, float)) and games >= 1:
        # Duplicate mode plays every deal once per rotation of the strategies (documented under `games`):
        # a count that is a multiple of every possible number of rotations (1-10 seats).
        body = {**body, "games": 2520 * max(1, min(int(games), 10_000_000) // 2520)}
    if isinstance(body, dict) and body.get("clock") is not None and body.get("turn_timeout_s") is not None:
        # A game has a Fischer clock or a time per turn, not both (documented under `clock`: 422).
        body = {k: v for k, v in body.items() if k != "turn_timeout_s"}
    seats = body.get("seats") if isinstance(body, dict) else None
    if isinstance(body, dict):
        body = _small_metadata(body)
    if isinstance(seats, list):
        # Which names a seat's `bot` may give is the registry's state (`GET /v1/bots`), not JSON Schema's: a
        # well-formed name that no bot has becomes a computer player's (a name off the pattern stays).
        seats = body["seats"] = [_known_bot(_small_metadata(seat)) if isinstance(seat, dict) else seat for seat in seats]
    if isinstance(seats, list) and seats and all(isinstance(s, dict) and "bot" in s for s in seats):
        # A game of computer players only may think at most 250 ms a move (documented under `think_ms`):
        # a limit that depends on the other seats, which JSON Schema cannot tie together.
        body = {**body, "seats": [_think_at_most(seat, 250) for seat in seats]}
    strategies = body.get("strategies") if isinstance(body, dict) else None
    if isinstance(strategies, list) and isinstance(body.get("games"), (int, float)) and body["games"] >= 1:
        # What one simulation may cost a worker is the cost model's (a 422 beyond: one game over a minute, or
        # more games than its chunks can hold), not JSON Schema's: fast bots, and at most 2520 games (a
        # multiple of every number of rotations).
        fast = ["greedy" if isinstance(x, str) and x not in ("random", "greedy") else x for x in strategies]
        body = {**body, "strategies": fast, "games": min(int(body["games"]), 2520)}
    if isinstance(body, dict) and body.get("rated") is True and isinstance(seats, list):
        # Who may sit at a rated game (each rated player once: bots, app players) and that it has no `seed` are
        # documented under `rated`, not expressible in JSON Schema: keep it rated only for distinct bots.
        names = [s.get("bot") for s in seats if isinstance(s, dict)]
        distinct_bots = len(names) == len(seats) and None not in names and len(set(map(str, names))) == len(names)
        body = {k: v for k, v in body.items() if k != "seed"} if distinct_bots else {**body, "rated": False}
    tile = body.get("tile") if isinstance(body, dict) else None
    if isinstance(tile, str) and re.fullmatch(TILE_PATTERN, tile):
        # Which tiles a set holds is the game's rules (`set_max_pips`), not JSON Schema's: the games of this run
        # keep their presets' sets (`rules` is `{}`), double-6 or larger, so a half over 6 becomes 6.
        body = {**body, "tile": "-".join(str(min(int(half), 6)) for half in tile.split("-"))}
    bots = body.get("bots") if isinstance(body, dict) else None
    over_four = isinstance(bots, list) and len(bots) > 4 and body.get("variant") != "mexican_train"
    if _schema_valid_bots(bots) and not over_four and isinstance(body.get("deals"), (int, float)) and body["deals"] >= 1:
        # Which names are bots, and how many games an arena may hold (deals times every seating of its bots,
        # at most DOMINO_ARENA_MAX_GAMES), are the server's, not JSON Schema's: the built-in bots, each once,
        # and at most 2 deals. Only a list the schema accepts is replaced, so that a negative case (a name
        # of "", a name twice, over 4 bots in a line game) stays negative: schemathesis fails a fixed-up one as
        # "accepted".
        named = ["greedy", "random", "club", "expert"][: min(len(bots), 4)]
        body = {**body, "bots": named, "deals": min(int(body["deals"]), 2)}
    return body


def _schema_valid_bots(bots: Any) -> bool:
    """Whether an arena's `bots` is what its schema allows: 2-10 distinct names of the bot name pattern."""
    if not isinstance(bots, list) or not 2 <= len(bots) <= 10:
        return False
    names = [b for b in bots if isinstance(b, str) and re.fullmatch(BOT_NAME_PATTERN, b)]
    return len(names) == len(bots) and len(set(names)) == len(names)


def _small_metadata(holder: dict[str, Any]) -> dict[str, Any]:
    meta = holder.get("metadata")
    if isinstance(meta, dict) and len(json.dumps(meta, separators=(",", ":"))) > 1024:
        return {**holder, "metadata": {}}
    return holder


def _known_bot(seat: dict[str, Any]) -> dict[str, Any]:
    if "webhook" in seat:
        # Which webhook addresses are public (not loopback, private or reserved, and resolving in time) is
        # DNS's and the address rules', not JSON Schema's: a seat of this run has none.
        seat = {k: v for k, v in seat.items() if k != "webhook"}
    bot = seat.get("bot")
    if isinstance(bot, str) and re.fullmatch(BOT_NAME_PATTERN, bot) and bot not in domino.bots.ids():
        return {**seat, "bot": "greedy"}
    return seat


def _think_at_most(seat: dict[str, Any], limit: int) -> dict[str, Any]:
    think = seat.get("think_ms")
    if isinstance(think, (int, float)) and not isinstance(think, bool) and think > limit:
        return {**seat, "think_ms": limit}
    return seat


def make_valid(case: Any) -> None:
    """A positive case made valid where JSON Schema cannot say what valid is (a negative one stays as it is)."""
    negative = case.meta is not None and not case.meta.generation.mode.is_positive
    if (isinstance(case.body, NotSet) or case.body is None) and negative and len(case.operation.body) > 0:
        # The tool's mistake: a "negative" body of an operation whose body is optional (none, or a JSON null,
        # which its client sends as nothing) arrives as no body at all, which is valid (and then accepted). Every
        # body of this API is an object: an array is what it meant.
        case.body = []
        case.media_type = case.media_type or "application/json"
    if case.meta is not None and not case.meta.generation.mode.is_positive:
        return
    case.body = valid_body(case.body)
    # A case's headers and query are mappings of the tool's own types (headers: a case-insensitive dict).
    headers = case.headers if isinstance(case.headers, MutableMapping) else {}
    for parameter in case.operation.headers:
        # The coverage phase's "default positive" case may carry a header value from its negative template
        # (`Last-Event-ID: 0`, `If-Match: 0`): the tool's mistake. A positive case keeps only values the
        # operation's declared pattern allows.
        pattern = parameter.definition.get("schema", {}).get("pattern")
        value = headers.get(parameter.name)
        if pattern and value is not None and not re.search(pattern, str(value)):
            headers.pop(parameter.name)
    if isinstance(case.body, dict) and "expected_version" in case.body:
        # `expected_version` and `If-Match` naming different versions is a 422 by design (two answers to one
        # question); the document cannot tie a header to a body member, so keep one of the two.
        headers.pop("If-Match", None)
    if case.operation.path.endswith("/resign") and isinstance(case.body, dict):
        # A resignation's `seat` is for the owning app's key, which must name one (documented on the member); a
        # seat token resigns its own seat, with no `seat`. Seat 0 is in every game.
        if _credential(headers) == "app":
            case.body["seat"] = 0
        else:
            case.body.pop("seat", None)
    query = case.query if isinstance(case.query, MutableMapping) else {}
    if case.operation.path == "/v1/games" and case.method.upper() == "GET":
        _lobby_query(query)
    if case.operation.path.startswith("/v1/ratings/"):
        query.pop("cursor", None)  # a previous page's `next_cursor` (opaque), never made up
    if case.operation.path == "/v1/games/export":
        query.pop("after", None)  # the id of the last record received (documented), never made up
    if case.operation.path == "/v1/matchmaking/tickets" and isinstance(case.body, dict):
        _ticket(case.body, _credential(headers))
    if case.operation.path == "/v1/bots" and case.method.upper() == "POST" and isinstance(case.body, dict):
        _new_bot_name(case.body)
    if case.operation.path.startswith("/v1/bots/") and case.method.upper() == "PATCH" and isinstance(case.body, dict):
        # What a bot accepts changes what later cases may ask of it: the run's bot keeps any time per move (a
        # ticket of its with less than its `min_turn_timeout_s` is a 422 `deadline-too-short`, documented).
        case.body.pop("min_turn_timeout_s", None)
    if case.operation.path == "/v1/challenges" and isinstance(case.body, dict):
        _challenge(case.body, _credential(headers))
    elif case.operation.path.startswith("/v1/challenges/") and _credential(headers) == "app":
        # An app calls for one of its players, which it names (documented on `player`).
        case.query = {**query, "player": "fuzz-player"}


def _credential(headers: Any) -> str | None:
    """The kind of credential a case carries: `app` (an app key), `bot` (a bot token), another token, or None."""
    token = str(headers.get("Authorization", "")).partition(" ")[2]
    return "app" if token.startswith("dsk_app_") else "bot" if token.startswith("dsk_bot_") else token or None


def _ticket(body: dict[str, Any], credential: str | None) -> None:
    """Who seeks decides what a ticket may say (each documented on its member; JSON Schema cannot tie a member to
    the caller, or members to each other): an app's ticket names its `player`, nobody else's does; an anonymous
    ticket is unrated; a `rating_range` is `[lo, hi]` on a rated ticket only; a rated table is never filled with
    computer players; a fill `bot` goes with `bots_after_s`. No party: a party code names a waiting ticket, and
    a party needs a team table."""
    body.pop("party", None)
    if credential == "app":
        body.setdefault("player", "fuzz-player")
    else:
        body.pop("player", None)
    if credential not in ("app", "bot"):
        body.pop("rated", None)
    if body.get("rated") is True:
        body.pop("bots_after_s", None)
        body.pop("bot", None)
        if isinstance(body.get("rating_range"), list) and all(isinstance(x, (int, float)) for x in body["rating_range"]):
            body["rating_range"] = sorted(body["rating_range"])
    else:
        body.pop("rating_range", None)
    if "bots_after_s" not in body:
        body.pop("bot", None)


def _challenge(body: dict[str, Any], credential: str | None) -> None:
    """Who challenges decides what a challenge may say (documented on its members): an app's challenge names
    its `player`, nobody else's does; only an app's player challenges a `player` (another one); an anonymous
    challenge is unrated. Which bots exist and what they play is the registry's: the run's own bot (which plays
    one variant, and does not challenge itself) becomes a name no bot has (a 404)."""
    if credential == "app":
        body.setdefault("player", "fuzz-player")
    else:
        body.pop("player", None)
    if credential not in ("app", "bot"):
        body.pop("rated", None)
    to = body.get("to")
    if isinstance(to, dict) and isinstance(to.get("player"), str):
        if credential != "app":
            body["to"] = {"bot": "nobody-here"}
        elif to["player"] == body["player"]:
            body["to"] = {"player": f"{to['player'][:60]}-2"}
    if isinstance(to, dict) and to.get("bot") == "fuzzbot":
        body["to"] = {"bot": "nobody-here"}


_BOT_NAMES = itertools.count()


def _new_bot_name(body: dict[str, Any]) -> None:
    """A bot's name is never reused (a name taken is a 422, documented under `name`): a schema-valid name gets a
    suffix no earlier case had, within the pattern's 32 characters."""
    name = body.get("name")
    if isinstance(name, str) and re.fullmatch(BOT_NAME_PATTERN, name):
        body["name"] = f"{name[:20]}{os.getpid() % 1000:03d}x{next(_BOT_NAMES):08d}"


def _lobby_query(query: dict[str, Any]) -> None:
    """`GET /v1/games` without `owner=me` is the lobby: `status` only `waiting` and no `player` (both documented on
    the parameters; the document cannot tie one query parameter to another)."""
    if "owner" not in query:
        query.pop("player", None)
        if query.get("status") not in (None, "waiting"):
            query.pop("status")
    # A `cursor` is a previous page's `next_cursor`, never made up (the document says so: opaque), and goes
    # without `before`; `to_move` goes with `owner=me` and `player` only, without `status` or `before`.
    query.pop("cursor", None)
    if query.get("to_move") and ("owner" not in query or "player" not in query):
        query.pop("to_move")
    if query.get("to_move"):
        query.pop("status", None)
        query.pop("before", None)


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: Any) -> None:
    """Every phase's cases pass here just before they are sent (the examples phase calls no `map_case`)."""
    make_valid(case)
    positive = case.meta is None or case.meta.generation.mode.is_positive
    if positive and isinstance(case.body, dict) and "expected_version" in case.body and kwargs.get("headers"):
        kwargs["headers"].pop("If-Match", None)  # as in make_valid: the stateful phase's links add it here
    # Seat tokens reach the stateful phase through the document's links (`header.Authorization`), which
    # schemathesis counts as generated credentials; mark them as real, so that `ignored_auth` probes each such
    # success without the token and with a wrong one (both must be 401) instead of failing it outright.
    if case.headers and "Authorization" in case.headers:
        case._has_explicit_auth = True

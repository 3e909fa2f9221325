"""Ratings: rated games update per-variant ``openskill`` ratings (the Plackett-Luce model) once per game.

A game created with ``rated: true`` seats only players that can be rated: computer players (built-in, or
registered and seated with consent: :mod:`api.service.create`) and an app's players (a seat with a ``player``,
in a game the app created with its key), and has no client seed (its creator could know every hand). Bots are
rated on one leaderboard per variant, each app's players on one of the app's own. An app makes player ids at
will, so a game with app players moves only their ratings: the bots in it keep theirs (else an app could feed
its bot wins over players that resign on demand). A seat that resigned, or whose turns the server played
more than half of, takes the loss alone: its partner is not rated for that game, and the other sides are
rated as winning against it. When it ends, the commit that ends it marks it in the
ratings due set and enqueues ``workers.jobs.rate_game``; the job reads the seats' ratings, computes the new
ones (each side of the table a team of openskill's: one seat, or two partners; ranked by the result: the
winners first, then by score), and writes them with the game's mark in one script that checks the mark and
that nobody changed a rating since it was read (:mod:`api.store.ratings`). A job run twice, or two at once,
counts the game once; a rating written meanwhile by another game's job makes this one read again.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from typing import Any

import orjson
from openskill.models import PlackettLuce

import domino
import domino.bots
from api.config import Settings
from api.service.errors import InvalidRequest, VariantNotFound
from api.service.records import GameRecord
from api.service.validation import invalid
from api.store import Store
from api.store.ratings import ALREADY_RATED, RATED, RatingWrite

BUILTIN, REGISTERED, PLAYER = "builtin", "registered", "player"  # who is rated: a built-in or registered bot, an app's player
BOTS_BOARD = "bots"  # the leaderboard of computer players (an app's players: "app:<app id>")
WRITE_TRIES = 10  # reads and recomputes when other games' ratings land in between

MODEL = PlackettLuce()


@dataclasses.dataclass(frozen=True)
class RatedPlayer:
    """Who a seat is, as ratings know it."""

    key: str  # the field of its rating: ``builtin:<id>``, ``registered:<name>``, ``player:<app id>:<player>``
    name: str
    kind: str
    board: str  # the leaderboard it is listed on


def app_board(app_id: str) -> str:
    return f"app:{app_id}"


def bot_player(name: str) -> RatedPlayer:
    """A bot (built-in, else registered) as ratings know it."""
    kind = BUILTIN if name in domino.bots.ids() else REGISTERED
    return RatedPlayer(f"{kind}:{name}", name, kind, BOTS_BOARD)


def rated_player(seat: Mapping[str, Any], app_id: str | None) -> RatedPlayer | None:
    """The rated player a seat (as requested, or as stored) is, or None when it cannot be rated (a human or an
    open seat without a player id, or with one in a game no app owns). A bot seat is the bot (a registered
    bot's name was checked when the game was created)."""
    bot, player = seat.get("bot"), seat.get("player")
    if isinstance(bot, str):
        return bot_player(bot)
    if isinstance(player, str) and app_id is not None:
        return RatedPlayer(f"{PLAYER}:{app_id}:{player}", player, PLAYER, app_board(app_id))
    return None


def check_rated(seats: list[dict[str, Any]], seed: str | None, app_id: str | None) -> None:
    """A rated game has no client seed and seats each rated player once; every seat is one (a seat with a
    ``player`` only in a game created with its app's key)."""
    if seed is not None:
        raise invalid(
            "seed",
            "not allowed in a rated game",
            "A rated game is dealt by the server: leave out `seed` (its creator could know every hand).",
        )
    seen: dict[str, int] = {}
    for i, seat in enumerate(seats):
        who = rated_player(seat, app_id)
        if who is None:
            why = (
                "a rated game seats only computer players (`bot`), built-in or registered, and app players "
                "(`player`, in a game created with the app's key)"
            )
            raise InvalidRequest(f"Seat {i}: {why}.", errors={"json": {"seats": {str(i): [why]}}})
        if who.key in seen:
            why = f"{who.name!r} already sits at seat {seen[who.key]}: a rated game seats each player once"
            raise InvalidRequest(f"Seat {i}: {why}.", errors={"json": {"seats": {str(i): [why]}}})
        seen[who.key] = i


def seat_ranks(state: domino.State) -> list[int]:
    """Each seat's place in a finished game (0 best, ties share): the winners first, then by final score (the
    lowest first in Mexican Train's penalty scoring). A resigning seat is behind every winner."""
    assert state.outcome is not None
    low = state.rules.scoring == "mexican_penalty"
    winners = set(state.outcome.winners)
    keys = [(seat not in winners, score if low else -score) for seat, score in enumerate(state.scores)]
    places = sorted(set(keys))
    return [places.index(k) for k in keys]


def sides(state: domino.State) -> list[list[int]]:
    """The seats of each side of the table: one seat each, or the two teams of partners."""
    by_side: dict[int, list[int]] = {}
    for seat in range(state.rules.players):
        by_side.setdefault(state.rules.side_of(seat), []).append(seat)
    return list(by_side.values())


def forfeited(doc: GameRecord) -> set[int]:
    """The seats that take the loss alone: the one that resigned, and those whose turns the server played more
    than half of (timeouts: a seat nobody played is not rated on the server's moves)."""
    out = {doc["resigned"]} if "resigned" in doc else set()
    for seat, (played, by_server) in (doc.get("turns") or {}).items():
        if 2 * by_server > played:
            out.add(int(seat))
    return out


def rated_teams(state: domino.State, lost: set[int]) -> tuple[list[list[int]], list[float]]:
    """The teams openskill rates and their places. With no forfeit: every side, placed by the result. Else the
    sides without a forfeiting seat, placed by the result among themselves, then each forfeiting seat alone,
    behind them all (its partner is not rated); nothing when every side forfeited."""
    places = seat_ranks(state)
    teams = sides(state)
    clean = [team for team in teams if not lost & set(team)]
    if not lost:
        return teams, [float(places[team[0]]) for team in teams]
    if not clean:
        return [], []
    last = float(max(places) + 1)
    return clean + [[seat] for seat in sorted(lost)], [float(places[t[0]]) for t in clean] + [last] * len(lost)


def shown(rating: Mapping[str, Any]) -> dict[str, Any]:
    """A stored rating as clients read it."""
    mu, sigma = float(rating["mu"]), float(rating["sigma"])
    return {
        "name": rating["name"],
        "kind": rating["kind"],
        "mu": round(mu, 6),
        "sigma": round(sigma, 6),
        "ordinal": round(mu - 3 * sigma, 6),
        "games": int(rating["games"]),
        "last_game_at": rating.get("last_game_at"),
    }


class Ratings:
    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings

    def rate(self, doc: GameRecord, state: domino.State) -> str:
        """Update the ratings of a finished rated game's players, once. Returns what happened."""
        if not doc.get("rated"):
            return "not rated"
        if state.outcome is None:
            return "not over"
        if state.outcome.reason in ("aborted", "expired"):  # nobody won: the server ended it
            return f"{state.outcome.reason}: not rated"
        players = [rated_player(s, doc.get("app")) for s in doc["seats"]]
        if any(p is None for p in players):
            return "not rated: a seat cannot be rated"
        who = [p for p in players if p is not None]
        teams, places = rated_teams(state, forfeited(doc))
        if not teams:
            return "not rated: every side forfeited"
        mixed = any(p.kind == PLAYER for p in who)  # app players' game: the bots in it keep their ratings
        kept = {i for i, p in enumerate(who) if mixed and p.board == BOTS_BOARD}
        retired = self._retired(who)
        for _ in range(WRITE_TRIES):
            if self.store.ratings.rated(doc["id"]):
                return "already rated"
            writes = self._new_ratings(doc, who, teams, places, kept, retired)
            written = self.store.ratings.write_once(doc["variant"], doc["id"], writes)
            if written == RATED:
                return "rated"
            if written == ALREADY_RATED:
                return "already rated"
        raise RuntimeError(f"the ratings of game {doc['id']} kept changing; the sweep tries again")

    def _retired(self, who: list[RatedPlayer]) -> set[str]:
        """The registered bots among ``who`` that are retired: rated, but kept off the leaderboard."""
        out = set()
        for p in who:
            found = self.store.bots.get(p.name) if p.kind == REGISTERED else None
            if found is not None and found[0].get("retired"):
                out.add(p.key)
        return out

    def _new_ratings(
        self, doc: GameRecord, who: list[RatedPlayer], teams: list[list[int]], places: list[float], kept: set[int],
        retired: set[str],
    ) -> list[RatingWrite]:
        """The new ratings of the seats in ``teams`` (ranked by ``places``), but those in ``kept``."""
        read = self.store.ratings.read(doc["variant"], [p.key for p in who])
        current = [orjson.loads(raw) if raw else None for raw in read]
        ratings = [MODEL.rating() if c is None else MODEL.rating(mu=c["mu"], sigma=c["sigma"]) for c in current]
        rated = MODEL.rate([[ratings[s] for s in team] for team in teams], ranks=places)
        at = round(float(doc.get("touched_at") or time.time()), 3)
        writes = []
        for team, new_team in zip(teams, rated):
            for seat, new in zip(team, new_team):
                p, before = who[seat], current[seat]
                if seat in kept:
                    continue
                games = 1 + (int(before["games"]) if before else 0)
                value = {"name": p.name, "kind": p.kind, "mu": new.mu, "sigma": new.sigma, "games": games, "last_game_at": at}
                listed = p.key not in retired
                writes.append(RatingWrite(p.key, p.board, read[seat], orjson.dumps(value).decode(), new.ordinal(), listed))
        return writes

    def leaderboard(
        self, variant: str, limit: int, app_id: str | None = None, after: tuple[float, str] | None = None
    ) -> tuple[dict[str, Any], tuple[float, str] | None]:
        """A page of the computer players of ``variant`` (or the players of the app ``app_id``) by ordinal
        (``mu - 3 sigma``), best first, after the position ``after``; and the next page's position (None: the
        last page)."""
        if variant not in domino.PRESETS:
            raise VariantNotFound(f"No variant {variant[:40]!r}; see GET /v1/variants.")
        board = self.store.ratings.board(variant, BOTS_BOARD if app_id is None else app_board(app_id), after, limit + 1)
        page = board[:limit]
        shown_page = {"variant": variant, "ratings": [shown(orjson.loads(raw)) for _, _, raw in page]}
        return shown_page, (page[-1][1], page[-1][0]) if len(board) > limit else None

    def unlist_bot(self, name: str) -> None:
        """A retired bot leaves every leaderboard (its ratings stay, as do the games it played)."""
        self.store.ratings.unlist(list(domino.PRESETS), BOTS_BOARD, bot_player(name).key)

    def of_bots(self, variant: str, bots: tuple[str, ...]) -> dict[str, dict[str, Any] | None]:
        """Each computer player's rating in ``variant`` (None: not rated yet)."""
        raw = self.store.ratings.read(variant, [bot_player(b).key for b in bots])
        return {b: shown(orjson.loads(r)) if r else None for b, r in zip(bots, raw)}

    def with_ratings(self, bots: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Entries of ``GET /v1/bots`` (each with an ``id``) with ``ratings``: the bot's rating in each variant
        it has one in (one round trip for them all)."""
        variants = list(domino.PRESETS)
        raw = self.store.ratings.read_variants(variants, [bot_player(entry["id"]).key for entry in bots])
        out = []
        for i, entry in enumerate(bots):
            found = {v: row[i] for v, row in zip(variants, raw)}
            out.append({**entry, "ratings": {v: shown(orjson.loads(r)) for v, r in found.items() if r is not None}})
        return out

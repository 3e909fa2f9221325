"""Fair-play screens (docs/analysis.md#fair-play-screen): on request only, over a player's (or a registered bot's)
last finished games; one job on the ``analysis`` queue, kept in the archive.

A screen is named by whose it is, how many games were asked and the games found (:func:`screen_id`): asking
again while no new game has finished answers the same screen (queued, running or done; a failed one is started
again). It reads each of the subject's seats in those games and, in team games, its partners' (one *unit* per
seat and game) at the analysis budget: every choice position's reading (:func:`domino.analysis.fairplay.
position_choice`, its values from the mover's information taken from the game's kept analysis where there is one
at that budget). A unit read once is kept in the archive (``fairplay_readings``) and never read again: a screen
over the last 20 games after one more game reads only that game. While the job runs, its record in Redis holds
the positions read so far, written at least every ``analysis_progress_s`` (as an analysis' moves): a job put
back by a stopping worker resumes after them. Each position is seeded by its game and version alone, so the
answer is the same as one uninterrupted run's.

A screen holds one of its client's analysis slots while queued or running (the same ``analyses_per_client``
cap as analyses: 429 beyond); its work is about one analysis of the subject's moves per game.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

import domino
from api.archive import Archive, Reading
from api.config import Settings
from api.queues import Queues
from api.service.analyses import PENDING, SCREEN_SLOT, Analyses, work_through
from api.service.errors import GameNotOver, NothingToScreen
from api.service.fairplay_report import done_screen, pending_screen
from api.store import Store
from domino.analysis import Position, analyse_position, positions
from domino.analysis.fairplay import Tally, position_choice, tally
from domino.moves import Move, parse_move

Unit = tuple[str, int]  # (game id, seat): one seat's moves in one game
Values = list[tuple[Move, float]]
Work = tuple[Unit, Callable[[], Tally]]  # a position of a unit, and its reading to make


@dataclass(frozen=True)
class Subject:
    """Whose moves a screen reads: an app's ``player`` (``app``: that app) or a registered ``bot``."""

    kind: str  # "player" | "bot"
    name: str
    app: str | None = None

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.name}"


@dataclass(frozen=True)
class Game:
    """A game screened: the subject's seats in it, and its partners' (a team game's other seats of its sides)."""

    id: str
    seats: tuple[int, ...]
    partners: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"game_id": self.id, "seats": list(self.seats), "partners": list(self.partners)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Game:
        return cls(d["game_id"], tuple(d["seats"]), tuple(d["partners"]))


def screen_id(subject: Subject, asked: int, nodes: int, games: list[Game]) -> str:
    """The screen's name: whose, how many games asked, at which budget, over exactly these games."""
    text = "|".join([subject.app or "", subject.key, str(asked), str(nodes), *(g.id for g in games)])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def game_of(game_id: str, seats: list[int], rules: dict[str, Any]) -> Game:
    """The game's screened seats: the subject's, and in a team game its partners'."""
    r = domino.Rules.from_dict(rules)
    sides = {r.side_of(s) for s in seats}
    partners = tuple(s for s in range(r.players) if r.has_teams and r.side_of(s) in sides and s not in seats)
    return Game(game_id, tuple(seats), partners)


class Screens:
    def __init__(self, store: Store, settings: Settings, queues: Queues, archive: Archive, analyses: Analyses) -> None:
        self.store = store
        self.records = store.screens
        self.settings = settings
        self.queues = queues
        self.archive = archive
        self.analyses = analyses  # the client's slots, shared with analyses

    # -- the API's side ---------------------------------------------------------------------------------------

    def screen(self, subject: Subject, asked: int, client: str, wait: float = 0.0) -> dict[str, Any]:
        """The screen of ``subject``'s last ``asked`` finished games: the one asked for before, or a new one
        queued (holding one of ``client``'s slots); with ``wait``, once it is over or after ``wait`` seconds.
        NothingToScreen when the subject has no finished game."""
        if subject.kind == "bot":
            found_games = self.archive.screened_games(asked, bot=subject.name)
        else:
            found_games = self.archive.screened_games(asked, app=subject.app, player=subject.name)
        if not found_games:
            detail = f"No finished game of {subject.kind} {subject.name!r} to screen (among the games this key may read)."
            raise NothingToScreen(detail)
        games = [game_of(g, seats, rules) for g, seats, rules in found_games]
        nodes = self.settings.analysis_nodes
        sid = screen_id(subject, asked, nodes, games)
        found = self.find(sid)
        if found is None or found["status"] == "failed":
            found = self._request(sid, subject, asked, nodes, games, client)
        if wait > 0 and found["status"] in PENDING:
            self.records.wait_over(sid, max(1, int(min(wait, self.settings.max_wait) * 1000)))
            found = self.find(sid) or found
        return found

    def find(self, sid: str) -> dict[str, Any] | None:
        fields = self.records.load(sid)
        if fields is None or fields["status"] == "done":
            return self.archive.screen(sid)
        return pending_screen(sid, fields)

    def _request(self, sid: str, subject: Subject, asked: int, nodes: int, games: list[Game], client: str) -> dict[str, Any]:
        slot = SCREEN_SLOT + sid
        self.analyses.take_slot(client, slot)
        kept = self.archive.readings([g.id for g in games], nodes)
        plan = [(g.id, s) for g in games for s in (*g.seats, *g.partners) if (g.id, s) not in kept]
        fields = {
            "client": client, "nodes": nodes, "subject": subject.key, "app": subject.app or "", "asked": asked,
            "games": orjson.dumps([g.to_dict() for g in games]).decode(), "plan": orjson.dumps(plan).decode(),
        }  # fmt: skip
        if self.records.create(sid, fields) is not None:  # there was one already: the slot goes back
            self.store.client_analyses.release(client, slot)
        else:
            try:
                self.queues.enqueue_fairplay(sid, time.time_ns())
            except Exception:
                self._end(sid, client, "failed", "could not enqueue its job")
                raise
        found = self.find(sid)
        assert found is not None
        return found

    # -- the job ------------------------------------------------------------------------------------------------

    def pending(self, sid: str) -> bool:
        fields = self.records.load(sid)
        return fields is not None and fields["status"] in PENDING

    def run(self, sid: str, record_of: Callable[[str], dict[str, Any]]) -> str:
        """Read the plan's units from the first position not read yet; keep the readings and the screen in the
        archive. ``record_of``: a game's revealed record (GameNotOver for one not revealed yet: an arena's)."""
        fields = self.records.load(sid)
        if fields is None or fields["status"] not in PENDING:
            return f"skipped: {'gone' if fields is None else fields['status']}"
        nodes = int(fields["nodes"])
        work, sealed = self._work(orjson.loads(fields["plan"]), record_of, nodes)
        done = [Tally.from_dict(orjson.loads(t)) for t in self.records.moves(sid)]
        if self.records.progress(sid, len(done), len(work), []) < 0:
            return "skipped: over"
        steps = (read for _, read in work[len(done) :])
        if not work_through(self.records, sid, done, steps, len(work), self.settings.analysis_progress_s):
            return "stopped: another run went on"
        self.archive.write_readings(_by_unit(orjson.loads(fields["plan"]), sealed, work, done, nodes))
        self._finish(sid, fields, sealed)
        return f"done: {len(done)} positions"

    def _work(self, plan: list[list[Any]], record_of: Callable[[str], dict[str, Any]], nodes: int) -> tuple[list[Work], set[str]]:
        """Every position of the plan's units in order, each with its reading to make; and the games not
        revealed yet (skipped)."""
        work: list[Work] = []
        sealed: set[str] = set()
        game_ids = list(dict.fromkeys(g for g, _ in plan))
        analysed = self.archive.analyses(game_ids)
        for game_id in game_ids:
            try:
                record = record_of(game_id)
            except GameNotOver:
                sealed.add(game_id)
                continue
            kept = analysed.get(game_id)
            values = _kept_values(kept) if kept is not None and kept["nodes"] == nodes else {}
            seats = {s for g, s in plan if g == game_id}
            for p in positions(record):
                if p.seat in seats:
                    work.append(((game_id, p.seat), _reader(game_id, p, nodes, values.get(p.version))))
        return work, sealed

    def _finish(self, sid: str, fields: dict[str, str], sealed: set[str]) -> None:
        games = [Game.from_dict(g) for g in orjson.loads(fields["games"])]
        nodes = int(fields["nodes"])
        readings = self.archive.readings([g.id for g in games], nodes)
        doc = done_screen(sid, fields, games, readings, sealed)
        self.archive.write_screen(sid, fields["app"] or None, fields["subject"], float(fields["created_at"]), doc)
        self._end(sid, fields["client"], "done")

    def failed(self, sid: str, error: str) -> None:
        """RQ's failure callback after the last attempt."""
        fields = self.records.load(sid)
        if fields is not None:
            self._end(sid, fields["client"], "failed", error)

    def _end(self, sid: str, client: str, status: str, error: str = "") -> None:
        self.records.end(sid, status, error)
        self.store.client_analyses.release(client, SCREEN_SLOT + sid)


def _kept_values(kept: dict[str, Any]) -> dict[int, Values]:
    """A kept analysis' values by version."""
    return {m["version"]: [(parse_move(v["move"]), float(v["value"])) for v in m["values"]] for m in kept["moves"]}


def _reader(game_id: str, p: Position, nodes: int, values: Values | None) -> Callable[[], Tally]:
    def read() -> Tally:
        info = values if values is not None else [(v.move, v.value) for v in analyse_position(game_id, p, nodes).values]
        return tally([position_choice(p.state, p.played, info, f"fairplay:{game_id}:{p.version}", nodes, p.round_points)])

    return read


def _by_unit(plan: list[list[Any]], sealed: set[str], work: list[Work], done: list[Tally], nodes: int) -> list[Reading]:
    """Each unit's tally (a unit without choice positions too: its reading is an empty tally)."""
    sums: dict[Unit, Tally] = {(g, s): Tally() for g, s in plan if g not in sealed}
    for (unit, _), t in zip(work, done):
        sums[unit] += t
    return [(g, s, nodes, t.to_dict()) for (g, s), t in sums.items()]

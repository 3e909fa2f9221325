"""The application: one :class:`Service` with one method per use case, used by the routes and the jobs alike.

A method checks its arguments, calls the collaborator that does the work, and returns plain data; the routes
render it as HTTP, the jobs return it to RQ. The collaborators get the store, the settings and the queues
(and each other), never the Service.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator
from typing import Any

import domino
from api.archive import Archive, ArchiveUnavailable, Key
from api.config import Settings
from api.service.errors import GameNotOver, Unauthorized
from api.queues import Queues
from api.service import computer
from api.service.app_events import Lifecycle
from api.service.archiving import Archiving
from api.service.arenas.runner import Arenas
from api.service.arenas.spec import ArenaOwner, ArenaRequest
from api.service.bot_events import BotEvents
from api.service.registered_bots import RegisteredBots
from api.service.outbox import DRAIN_BATCH, DRAIN_BUDGET, DRAIN_LINGER, rearm
from api.service.self_service import SelfService
from api.service.analyses import Analyses
from api.service.analysis_calls import AnalysisCalls
from api.service.fairplay import Screens
from api.service.fairplay_calls import FairplayCalls
from api.service.app_calls import AppCalls
from api.service.bot_calls import BotCalls
from api.service.apps import App, Apps
from api.service.commits import Commits
from api.service.create import Created, Creation, GameRequest
from api.service.endings import Endings
from api.service.erasure import Erasure
from api.service.events import Events
from api.service.export import ExportRequest, export, scope_of
from api.service.games import Games
from api.service.hints import Hints
from api.service.lobby import list_waiting
from api.service.matchmaking import Matchmaking
from api.service.matchmaking.calls import MatchmakingCalls
from api.service.matchmaking.rematch import Rematches
from api.service.moves import Moves
from api.service.owned import list_owned, list_to_move
from api.service.ratings import Ratings
from api.service.records import whole_state
from api.service.security import BOT_TOKEN_PREFIX, authenticate, token_bot
from api.service.simulations.calls import SimulationCalls
from api.service.simulations.runner import Simulations
from api.service.sweep import Sweep, SweepReport
from api.service.idle import IdleChecks
from api.service.timer import Timed
from api.service.turns import Turns
from api.service.views import from_archive, render_history, render_view
from api.service.webhooks import Webhooks
from api.store import Store, StoreFull, StoreUnavailable


class Service(AppCalls, BotCalls, MatchmakingCalls, SimulationCalls, AnalysisCalls, FairplayCalls):
    def __init__(self, settings: Settings, store: Store | None = None, archive: Archive | None = None) -> None:
        self.settings = settings
        self.store = store or Store(settings)
        self.archive = archive or Archive(settings.archive_url)
        self.queues = Queues(self.store)
        self.games = Games(self.store, settings, self.archive)
        self.archiving = Archiving(self.store, settings, self.archive, self.queues)
        turns = Turns(self.store, settings, self.queues)
        lifecycle = Lifecycle(self.store, settings, self.queues)
        self.commits = Commits(self.store, settings, self.games, turns, lifecycle)
        self.creation = Creation(self.store, settings, self.commits)
        self.moves = Moves(self.store, settings, self.commits)
        self.hints = Hints(self.store, settings, self.games, self.commits, self.queues)
        self.events = Events(self.store, settings, self.games)
        self.webhooks = Webhooks(self.store, settings, self.games)
        self.ratings = Ratings(self.store, settings)
        self.arenas = Arenas(self.store, settings, self.games, self.creation, self.ratings)
        self.endings = Endings(self.store, settings, self.commits)
        self.timed = Timed(self.store, settings, self.games, self.queues, lifecycle)
        self.idle = IdleChecks(self.store, settings, self.games)
        self.sweeper = Sweep(
            self.store, settings, self.games, self.queues, self.arenas, self.endings, lifecycle, self.archiving,
            self.timed, self.idle,
        )  # fmt: skip
        self.simulations = Simulations(self.store, settings, self.queues)
        self.analyses = Analyses(self.store, settings, self.queues, self.archive)
        self.screens = Screens(self.store, settings, self.queues, self.archive, self.analyses)
        self.registry = RegisteredBots(self.store, settings)
        self.bot_events = BotEvents(self.store, settings, self.registry)
        self.apps = Apps(self.store, settings)
        self.rematches = Rematches(self.store, settings, self.games, self.creation, self.commits)
        self.self_service = SelfService(self.store, settings, self.queues)
        self.erasure = Erasure(self.store, self.archive, self.commits)
        self.matchmaking = Matchmaking(self.store, settings, self.queues, self.creation, lifecycle, self.registry)

    # -- reference data -----------------------------------------------------------------------------------

    @staticmethod
    def variants() -> dict[str, Any]:
        return domino.describe_variants()

    # -- games ----------------------------------------------------------------------------------------------

    def create_game(
        self,
        request: GameRequest,
        client: str,
        idempotency_key: str | None = None,
        token: str | None = None,
        app: App | None = None,
    ) -> Created:
        """(the first human seat's view, else the spectator's; the tokens; the version; the game id).
        ``client`` (the caller's address), or the ``app`` whose key the caller sent, holds one of its game slots
        while the game is on; an app's game belongs to it. An ``idempotency_key`` replays only to the same caller
        (``client``, bearer ``token`` and ``app``)."""
        return self.creation.create(request, client, idempotency_key, token, app)

    def view(
        self, game_id: str, token: str | None = None, unchanged: Callable[[int, bool], bool] = lambda v, a: False
    ) -> tuple[dict[str, Any] | None, int, int | None, bool]:
        """(view, version, seat, archived): the token's seat's view, or the spectator's without a token; no view
        (None) when ``unchanged(version, archived)`` (a 304 for ``If-None-Match``: the token is still checked).
        ``archived``: the archive holds the game (its ETag says so)."""
        game = self.games.read(game_id)
        seat = authenticate(game.doc, token, token_bot(self.store, token))
        if unchanged(game.version, game.archived):
            return None, game.version, seat, game.archived
        return render_view(game.doc, game.version, game.state, seat, game.archived), game.version, seat, game.archived

    def history(self, game_id: str, token: str | None = None) -> dict[str, Any]:
        """Rounds, moves and results. Before the end: what the caller's seat may see; after: everything."""
        game, earlier_rounds = self.games.read_with_rounds(game_id)
        seat = authenticate(game.doc, token, token_bot(self.store, token))
        if game.stored is not None:
            return from_archive(game.stored.record, seat)
        state = whole_state(game.doc, earlier_rounds)
        events = self.store.games.events(game_id)
        return render_history(game.doc, game.version, state, seat, events, game.archived, self.arenas.sealed(game.doc))

    def record(self, game_id: str) -> dict[str, Any]:
        """A game's record (docs/notation.md): its history as everyone reads it once the game is over (every
        deal, draw, the seed and the salt). GameNotOver while it waits or is played: it would reveal the hands."""
        history = self.history(game_id)
        if history["status"] in ("waiting", "playing"):
            raise GameNotOver(f"Game {game_id!r} is not over: its record would reveal the hands.")
        if "seed" not in history:
            raise GameNotOver(f"Game {game_id!r} is over, but its arena still plays its deals: its record comes when the arena ends.")
        del history["archived"]  # the record is the same wherever it is kept
        return history

    def play_move(
        self,
        game_id: str,
        move: dict[str, Any],
        token: str | None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        minimal: bool = False,
    ) -> tuple[dict[str, Any], int]:
        """Play, draw or pass for the token's seat: (its view, or only ``id``, ``variant``, ``version``,
        ``seat`` and ``status`` when ``minimal``; the new version)."""
        return self.moves.play(game_id, move, token, expected_version, idempotency_key, minimal)

    def resign(
        self,
        game_id: str,
        token: str | None,
        expected_version: int | None = None,
        app: App | None = None,
        seat: int | None = None,
    ) -> tuple[dict[str, Any], int]:
        """The token's seat resigns (its view), or, with the owning ``app``'s key, ``seat`` does (the spectator's)."""
        if app is not None:
            return self.endings.resign_seat(app, game_id, seat, expected_version)
        return self.moves.resign(game_id, token, expected_version, seat)

    def hint(self, game_id: str, token: str | None) -> dict[str, Any]:
        """The token's seat, to move in a game with hints: its legal moves valued, best first (a commit)."""
        return self.hints.ask(game_id, token)

    def abort(self, game_id: str, app: App | None, expected_version: int | None = None) -> tuple[dict[str, Any], int]:
        """The owning ``app`` calls its game off (status ``aborted``): (the spectator's view, version)."""
        return self.endings.abort(app, game_id, expected_version)

    def claim_seat(
        self, game_id: str, seat: int, name: str, client: str, expected_version: int | None = None, app: App | None = None
    ) -> tuple[dict[str, Any], str, int]:
        """(that seat's view, its token, version). ``client`` (the caller's address) may hold only so many
        seats of a listed game; a seat naming a ``player`` is claimed only with its ``app``'s key."""
        app_id = app.id if app is not None else None
        return self.moves.claim_seat(game_id, seat, name, client, expected_version, app_id)

    def lobby(self, before: Key | None, limit: int) -> tuple[list[dict[str, Any]], Key | None]:
        """Listed games with an open seat, newest first, before the cursor (created_at, id); the next cursor."""
        return list_waiting(self.store, self.games, before, limit)

    def owned_games(
        self, app: App, status: str | None, player: str | None, before: Key | None, limit: int
    ) -> tuple[list[dict[str, Any]], Key | None]:
        """The games ``app`` created, newest first (of any status, or of ``status``; of ``player``, if given),
        live and archived, before the cursor (created_at, id); the next cursor."""
        return list_owned(self.store, self.games, app, status, player, before, limit)

    def games_to_move(
        self, app: App, player: str, cursor: str | None, limit: int
    ) -> tuple[list[dict[str, Any]], str | None]:
        """``app``'s games in which it is ``player``'s turn, soonest deadline first, after ``cursor``."""
        return list_to_move(self.store, self.games, app, player, cursor, limit)

    def export(self, app: App | None, token: str | None, request: ExportRequest) -> Iterator[list[str]]:
        """The records of the archived games ``app`` (its own, its registered bots'), or else the registered bot
        whose ``token`` this is, may export, in archive order, a page at a time (api/service/export.py)."""
        if app is None and token is None:
            raise Unauthorized("This needs an app key (`Bearer dsk_app_...`) or a registered bot's token (`Bearer dsk_bot_...`).")
        bot = None if app is not None else self.registry.caller(token)
        return export(self.archive, scope_of(self.store, app, bot, request.player), request)

    def erase_player(self, app: App, player: str) -> int:
        """Erase ``player`` from every game of ``app``, live or archived; how many games named it."""
        return self.erasure.erase(app, player)

    # -- events ---------------------------------------------------------------------------------------------

    def stream_ticket(self, game_id: str, token: str | None) -> dict[str, Any]:
        return self.events.ticket(game_id, token)

    def long_poll(
        self, game_id: str, token: str | None, ticket: str | None, cursor: str, wait: float, client: str
    ) -> dict[str, Any]:
        """The events after the stream id ``cursor``, waiting up to ``wait`` s for one; a wait holds one of
        ``client``'s (and the game's) stream slots."""
        return self.events.long_poll(game_id, token, ticket, cursor, wait, client)

    def sse(
        self,
        game_id: str,
        token: str | None,
        ticket: str | None,
        cursor: str,
        client: str,
    ) -> Iterator[bytes]:
        """Server-Sent Events after the stream id ``cursor``, holding one of ``client``'s (and the game's)
        stream slots while open."""
        return self.events.stream(game_id, token, ticket, cursor, client)

    # -- what the workers do ----------------------------------------------------------------------------------

    def play_bot_turn(self, game_id: str, version: int) -> str:
        """Play one computer player's move if the game is still at ``version`` with a bot to move."""
        return self.moves.play_for_seat(game_id, version, computer.bot_move(game_id, version), auto=False)

    def play_timeouts(self, turns: list[tuple[str, int]]) -> str:
        """Move for each seat whose deadline passed at (game id, version) (the fallback strategy, marked
        automatic), the batch at once; what happened, counted. If one fails, the others are played and then
        the job fails: that seat's deadline stays leased, so the timer takes it again."""
        gone = self.store.bots.gone  # a retired bot's seat is moved for before its deadline
        done = self.moves.play_for_seats(turns, lambda g, v: computer.timeout_move(g, v, self.settings, gone), auto=True)
        counted = collections.Counter(done)
        return ", ".join(f"{what} {n}" for what, n in sorted(counted.items()))

    def hint_values(self, game_id: str, version: int, seat: int) -> dict[str, Any]:
        """The job of a hint: ``seat``'s legal moves valued at ``version`` (api/service/hints.py)."""
        return self.hints.values(game_id, version, seat)

    def deliver_webhook(self, game_id: str, version: int, attempt: int) -> str:
        """The job: hand the turn's delivery to this process's deliveries (fair per owner)."""
        return self.webhooks.dispatch(game_id, version, attempt)

    def rate_game(self, game_id: str) -> str:
        """A rated game has ended: update its players' ratings once; an arena's game is also counted in its
        arena, which starts the games that now fit."""
        return self.arenas.game_ended(game_id)

    def deliver_app_events(self) -> str:
        """The drain job: a batch of apps' deliveries out of their outbox to this process's deliveries, which
        POST them; the next job when more wait (api/service/outbox.py)."""
        taken, more = self.webhooks.drain_app_events(DRAIN_BATCH, DRAIN_BUDGET, DRAIN_LINGER)
        if more:
            rearm(self.store, self.queues)
        return f"{taken} taken"

    def archive_games(self) -> str:
        """Archive one batch of the finished games due (api/service/archiving.py)."""
        return self.archiving.drain()

    def migrate_archive(self) -> str:
        """Bring the archive's schema to the newest migration; returns the revision."""
        return self.archive.migrate()

    def sweep(self, now: float | None = None) -> SweepReport:
        report = self.sweeper.run(now)
        self.matchmaking.sweep(now)  # tickets unread expire; tables due to be filled are
        return report

    def sweep_due(self, now: float | None = None) -> SweepReport:
        """Only the turn deadlines and apps' reminders due by ``now``: what the sweep's timer runs."""
        timeouts, reminders = self.timed.drain(now)
        return SweepReport(bots=[], timeouts=timeouts, hooks=[], chunks=[], reminders=reminders)

    def adopt_idle_games(self) -> int:
        """Once per deployment: give live games created before idle checks existed their idle check."""
        return self.idle.adopt()

    def wait_due(self) -> None:
        """Until the next deadline or reminder is due (or a sooner one is marked), at most ``timer_max_wait``."""
        self.timed.wait()

    # -- ratings and arenas ---------------------------------------------------------------------------------

    def leaderboard(
        self, variant: str, limit: int, app: App | None = None, after: tuple[float, str] | None = None
    ) -> tuple[dict[str, Any], tuple[float, str] | None]:
        """A page of the bots rated in ``variant`` (or ``app``'s players), best first (by ordinal), and the
        position of the next page."""
        return self.ratings.leaderboard(variant, limit, app.id if app is not None else None, after)

    def arena_owner(self, app: App | None, token: str | None) -> ArenaOwner:
        """Who calls about arenas: the app of its key, else the registered bot of its token; 401 otherwise."""
        if app is not None:
            return ArenaOwner.of_app(app.id)
        if token is None or not token.startswith(BOT_TOKEN_PREFIX):
            raise Unauthorized("Arenas need an app key or a bot token: `Authorization: Bearer dsk_app_...`.")
        return ArenaOwner.of_bot(self.registry.caller(token))

    def create_arena(self, request: ArenaRequest, owner: ArenaOwner) -> tuple[str, dict[str, Any]]:
        """(its id, the arena with its first games started)."""
        return self.arenas.create(request, owner)

    def arena(self, arena_id: str) -> dict[str, Any]:
        return self.arenas.get(arena_id)

    def owned_arenas(
        self, owner: ArenaOwner, before: tuple[float, str] | None, limit: int
    ) -> tuple[list[dict[str, Any]], tuple[float, str] | None]:
        return self.arenas.owned(owner, before, limit)

    def cancel_arena(self, arena_id: str, owner: ArenaOwner) -> dict[str, Any]:
        return self.arenas.cancel(arena_id, owner)

    # -- operations ---------------------------------------------------------------------------------------------

    def readiness(self) -> tuple[bool, str, dict[str, Any]]:
        """(ready, why not, checks): ready while Redis (games and queues) takes reads and writes, and only
        Redis decides. The workers on each queue and the archive are reported, never a reason to be unready:
        a worker that is missing delays play without refusing anything, and live play goes on without the
        archive (finished games wait in Redis)."""
        checks: dict[str, Any] = {}
        try:
            checks["archive"] = {"ok": True, **self.archive.ping()}
        except ArchiveUnavailable as exc:
            checks["archive"] = {"ok": False, "error": str(exc)}
        try:
            checks["redis"] = {"ok": True, **self.store.ping()}
            workers = self.queues.worker_counts()
        except StoreFull:
            checks["redis"] = {"ok": False, "full": True, "error": "out of memory"}
            return False, "Redis is full: it refuses writes (reads still answer).", checks
        except StoreUnavailable as exc:
            checks.setdefault("redis", {"ok": False, "error": str(exc)})
            return False, "Redis does not answer.", checks
        checks.update({f"{purpose.replace('-', '_')}_workers": n for purpose, n in workers.items()})
        return True, "", checks

    def queue_depths(self) -> dict[str, int]:
        return self.queues.depths()

    def count_request(self, client: str, window_ms: int, n: int = 1) -> tuple[int, int]:
        """Count ``n`` requests of ``client`` for its rate limit: (count in this window, ms until it resets)."""
        return self.store.limits.hit(client, window_ms, n)

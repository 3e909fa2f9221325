"""Redis: the only package that imports redis, builds keys, and makes the connections (RQ's included).

:class:`Store` holds one part per concept: ``games`` (documents, events, idempotent answers, tickets),
``expiry`` (how long a game's keys outlive its last commit), ``rewrites`` (a player's erasure), five
:class:`DueSet` (``bots_due``, ``turns_due``, ``idle_due``, ``hooks_due``, ``app_hooks_due``) and ``app_deliveries`` (apps'
lifecycle deliveries until delivered) with ``app_outbox`` (their tries, taken by batches), ``hook_hosts`` (webhook hosts in back-off),
``lobby``, ``simulations``, ``limits``, ``streams`` (open event streams), ``client_games`` and ``client_sims``
(what each client holds at once), ``apps`` (third-party apps, their keys and the games they own),
``app_games`` (what each app holds at once), ``bots`` (registered bots: records, tokens, availability,
notice streams), ``tickets`` (matchmaking tickets, pools and matches), ``analyses`` (analyses of finished
games queued or running) with ``client_analyses``, ``screens`` (fair-play screens queued or running), ``ratings`` (per-variant ratings of rated games) with ``ratings_due`` (rated games ended and
not yet counted), ``archive_due`` (finished games not yet archived), and ``arenas``.
Every Redis ``ConnectionError``/``TimeoutError`` (and a cluster's own: a slot without a master, no node to
ask) surfaces as :class:`StoreUnavailable` (a fast 503).
"""

from __future__ import annotations

from collections.abc import Sequence

from redis import Redis
from redis.cluster import RedisCluster

from api.config import Settings
from api.store.analyses import AnalysisStore
from api.store.apps import AppStore
from api.store.arenas import ArenaStore
from api.store.bots import BotStore
from api.store.challenges import ChallengeStore
from api.store.connections import (
    Connections, StoreFull, StoreUnavailable, out_of_memory, ping_url, shutdown_url, translated, translating,
)
from api.store.deliveries import AppDeliveries
from api.store.delivery_log import DeliveryLog, LogNote
from api.store.due import Batch, DueSet, DueTimer
from api.store.expiry import GameExpiry
from api.store.whole_games import WholeGame, WholeGames
from api.store.game_events import EventFollower
from api.store.games import Commit, CommitResult, GameStore, StoredGame
from api.store.hosts import WebhookHosts
from api.store.limits import RateLimits
from api.store.lobby import Lobby
from api.store.outbox import AppOutbox
from api.store.ratings import RatingStore
from api.store.rewrites import GameRewrites
from api.store.simulations import SimulationStore
from api.store.slots import ENDED, ClientSlots
from api.store.streams import StreamSlots
from api.store.rematches import RematchStore
from api.store.tickets import TicketStore

__all__ = [
    "AnalysisStore", "AppDeliveries", "AppOutbox", "AppStore", "ArenaStore", "Batch", "BotStore", "ChallengeStore", "ClientSlots", "Commit", "CommitResult", "DueSet", "DueTimer", "EventFollower",
    "GameExpiry", "GameRewrites", "GameStore", "Lobby", "LogNote", "RateLimits", "RatingStore", "SimulationStore", "Store",
    "StoreFull", "StoreUnavailable", "StoredGame", "StreamSlots", "RematchStore", "TicketStore", "WebhookHosts", "WholeGame",
    "out_of_memory", "ping_url", "shutdown_url",
    "translated",
]  # fmt: skip


class Store:
    """The keys and atomic operations of domino-service. Connections are made lazily (no I/O here)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.prefix = prefix = settings.key_prefix
        self.connections = Connections(settings)
        self.queue_redis = queue = self.connections.queue_redis
        self.games = GameStore(self.connections, prefix, settings.idempotency_ttl, settings.replica_wait_ms)
        self.expiry = GameExpiry(self.games)
        self.whole_games = WholeGames(self.games)  # read for the archive
        self.rewrites = GameRewrites(self.games)
        self.bots_due = DueSet(queue, prefix, "bots")
        self.archive_due = DueSet(queue, prefix, "archive")  # finished games the archive does not hold yet
        self.due_timer = DueTimer(self.connections.blocking_queue, prefix)  # wakes the sweep's timer
        self.turns_due = DueSet(queue, prefix, "turns", wake=self.due_timer)
        self.idle_due = DueSet(queue, prefix, "idle")  # live games, due when idle for game_ttl
        self.reminders_due = DueSet(queue, prefix, "reminders", wake=self.due_timer)  # apps' turn reminders, by <game id>:<version>
        self.hooks_due = DueSet(queue, prefix, "hooks")
        self.app_hooks_due = DueSet(queue, prefix, "apphooks")  # apps' lifecycle deliveries, by delivery id
        self.app_deliveries = AppDeliveries(queue, prefix)
        self.app_outbox = AppOutbox(queue, self.connections.blocking_queue, prefix, flag_ttl_s=settings.webhook_timeout)  # their tries, for drain jobs
        self.delivery_log = DeliveryLog(queue, prefix, ttl_s=7 * 86400, max_entries=1000)  # what apps were sent
        self.hook_hosts = WebhookHosts(queue, prefix)
        self.lobby = Lobby(queue, prefix)
        self.simulations = SimulationStore(queue, prefix, settings.simulation_ttl)
        self.limits = RateLimits(queue, prefix)
        self.streams = StreamSlots(queue, prefix)
        self.client_games = ClientSlots(queue, prefix, "games")
        self.client_sims = ClientSlots(queue, prefix, "sims")
        self.client_finished = ClientSlots(queue, prefix, "finished")  # finished games not yet archived, by owner
        self.ratings = RatingStore(queue, prefix, settings.finished_ttl)
        self.ratings_due = DueSet(queue, prefix, "ratings")
        self.arenas = ArenaStore(queue, prefix, settings.finished_ttl)
        self.apps = AppStore(queue, prefix)
        self.app_games = ClientSlots(queue, prefix, "appgames")  # an app's games waiting or playing
        self.bots = BotStore(queue, self.connections.blocking_queue, prefix, settings.bot_stream_max)
        self.tickets = TicketStore(queue, self.connections.blocking_queue, prefix)  # matchmaking
        self.rematches = RematchStore(queue, prefix)  # offers of the same table again
        self.challenges = ChallengeStore(queue, self.connections.blocking_queue, prefix)  # one player's or bot's offer of a game to another
        self.bot_games = ClientSlots(queue, prefix, "botgames")  # a registered bot's games at once (its max_games)
        self.analyses = AnalysisStore(queue, self.connections.blocking_queue, prefix, settings.analysis_ttl)
        self.client_analyses = ClientSlots(queue, prefix, "analyses")  # a client's analyses (and screens) queued or running
        self.screens = AnalysisStore(queue, self.connections.blocking_queue, prefix, settings.analysis_ttl, "fp")  # fair-play screens
        self._ended = queue.register_script(ENDED)

    @property
    def redis(self) -> Redis | RedisCluster:
        """The game state's connection (a cluster client on a cluster; found out at the first use)."""
        return self.connections.redis

    @translating
    def game_ended(
        self, game_id: str, released: Sequence[tuple[ClientSlots, str]], held: tuple[ClientSlots, str] | None, lease_ms: int
    ) -> None:
        """An ended game's slots, in one round trip: released from each (slot set, client) of ``released``, held
        for ``lease_ms`` in ``held``'s (as :meth:`ClientSlots.take` with no cap), and its idle entry cleared."""
        keys = [slots.key(client) for slots, client in released]
        keys += [self.idle_due.due_key, self.idle_due.attempt_key, "" if held is None else held[0].key(held[1])]
        self._ended(keys=keys, args=[game_id, lease_ms, len(released)])

    def batch(self) -> Batch:
        """Writes to the queue connection's keys gathered to go in one round trip, one transaction: due entries
        marked with ``batch=`` (:meth:`DueSet.mark`), sent by ``execute()`` (inside ``translated()``)."""
        return self.queue_redis.pipeline(transaction=True)

    def rq_connection(self) -> Redis:
        """The connection RQ uses (queues, workers) and the cross-game keys live on. Bytes, not strings."""
        return self.queue_redis

    def worker_connection(self) -> Redis:
        return self.connections.worker()

    def ping(self) -> dict[str, float]:
        return self.connections.ping()

    def due_counts(self) -> dict[str, int]:
        """Entries of the due sets (bot turns, turn deadlines, webhooks, apps' deliveries, rated games to count,
        finished games to archive)."""
        return {
            "bots_due": self.bots_due.size(),
            "turns_due": self.turns_due.size(),
            "idle_due": self.idle_due.size(),
            "reminders_due": self.reminders_due.size(),
            "hooks_due": self.hooks_due.size(),
            "app_hooks_due": self.app_hooks_due.size(),
            "app_outbox": self.app_outbox.size(),
            "ratings_due": self.ratings_due.size(),
            "archive_due": self.archive_due.size(),
        }

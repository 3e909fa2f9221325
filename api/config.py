"""Settings from environment variables prefixed ``DOMINO_``.

Every interval is configurable so that tests run in milliseconds. ``Settings`` is a frozen value that the
app, the service and the workers share; ``Settings.from_env()`` reads it, ``replace(settings, ...)``
changes it for a test.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any

PREFIX = "DOMINO_"


# Settings whose empty value is documented to turn something off (no limit, no CORS, no network, nothing
# exempt); any other empty DOMINO_<FIELD> leaves its default.
EMPTY_TURNS_OFF = frozenset({"rate_limit", "app_rate_limit", "rate_limit_exempt", "metrics_allow", "cors_origins"})


@dataclasses.dataclass(frozen=True)
class Settings:
    # Game state (a plain Redis or any node of a Redis Cluster: keys carry the game's hash tag) and the
    # queues and cross-game keys (one plain Redis; it must be another when the game state is a cluster).
    redis_url: str = "redis://127.0.0.1:6379/0"
    queue_url: str | None = None  # defaults to redis_url
    key_prefix: str = "dom"
    bots_queue: str = "bots"

    # Request connections: short timeouts and one retry so Redis trouble becomes a fast 503.
    socket_timeout: float = 0.5
    socket_connect_timeout: float = 0.5
    redis_retries: int = 1
    # On a Redis Cluster, a commit waits at most this long (ms) for the game's replica to have it, so that a
    # failover loses no answered move (0: do not wait).
    replica_wait_ms: int = 100
    # Connections per pool and process (redis-py's default is 100): on gevent one API process serves up to
    # --api-connections requests at once, and each open event stream holds a connection of its own.
    redis_max_connections: int = 2000
    # domino-serve's own Redis (workers/redis_server.py): its maxmemory, with the noeviction policy, so a full
    # Redis refuses writes (503 `storage-full`, Retry-After: storage_full_retry_after) instead of evicting
    # games. docker-compose sets the same. A worker whose job or whose RQ bookkeeping finds Redis full waits
    # full_backoff seconds, doubling up to full_backoff_max, and tries again (workers/full.py).
    redis_maxmemory: str = "1gb"
    storage_full_retry_after: int = 5
    # A server error (5xx) is logged at most once per error_log_interval seconds and kind in each process
    # (api/quietlog.py): a flood refused with 503s would otherwise log a line per request.
    error_log_interval: float = 5.0
    full_backoff: float = 0.1
    full_backoff_max: float = 2.0

    # Decoded game states kept per process (api/service/states.py), by game and version; 0 keeps none.
    state_cache_size: int = 512

    # Expiry (seconds).
    # A waiting or playing game nobody touches (commits do; reads do not) for game_ttl, and that has no deadline,
    # is ended by the sweep (`expired`, or `aborted` if it never started); its keys live at least until its
    # deadline (or that end) plus expiry_margin, so that the sweep always finds it.
    game_ttl: int = 24 * 3600
    finished_ttl: int = 7 * 24 * 3600  # ratings' and arenas' records (a finished game stays until archived)
    idempotency_ttl: int = 24 * 3600

    # The archive (api/archive/, api/service/archiving.py): finished games in SQL, SQLite in a file (a path
    # relative to the working folder) or PostgreSQL (postgresql+psycopg://user:password@host/db). A finished
    # game stays in Redis, without expiry, until a job on archive_queue has written it; its keys then expire in
    # archived_ttl. A batch is leased for archive_lease seconds (a job that died gives it back then); the
    # archive down, its games are tried again archive_retry seconds later. The sweep keeps up to archive_jobs
    # jobs queued while games are due, each archive_delay seconds after the game's end.
    archive_url: str = "sqlite:///var/archive.sqlite3"
    archived_ttl: int = 3600
    archive_queue: str = "archive"
    archive_batch: int = 500
    archive_delay: float = 0.0
    archive_lease: float = 60.0
    archive_retry: float = 5.0
    archive_jobs: int = 4
    archive_job_timeout: int = 300

    # Computer players.
    bot_due_delay: float = 2.0  # a bot turn not played within this is re-enqueued by the sweep
    sweep_interval: float = 2.0
    # The sweep's timer (api/service/timer.py): turn deadlines and apps' turn reminders are taken as they come
    # due, timer_batch at a time; between them it waits for the soonest, woken at once when a nearer one is
    # marked, and looks again at least every timer_max_wait seconds.
    timer_batch: int = 200
    timer_max_wait: float = 1.0
    bot_job_timeout: int = 30
    bot_result_ttl: int = 60
    # Games of computer players only (api/service/bot_games.py): their own queue and worker, and caps (422 beyond).
    bot_games_queue: str = "bot-games"
    bot_game_max_think_ms: int = 250
    bot_game_max_target_score: int = 250
    bot_game_max_rounds: int = 16
    # A game is unattended (its computer turns on the bot-games queue, held over the caps above) unless some
    # seat that is not a computer player made one of its own last this many moves itself.
    unattended_after: int = 3

    # Hints (api/service/hints.py): a `hints: true` game's seat to move asks for its legal moves' values. The
    # search runs on hints_queue's workers, hint_nodes nodes a hint (about 70 ms of CPU; deterministic), never in an
    # API process; the API waits at most hint_wait seconds for the answer (503 beyond: nothing is committed).
    hints_queue: str = "hints"
    hint_nodes: int = 20000
    hint_wait: float = 5.0

    # What one client (its address, as the rate limit sees it) may hold at once; 429 (Retry-After:
    # capacity_retry_after) beyond. Games waiting or playing: each holds its slot until it ends, or at most
    # game_ttl. Seats: of one listed game, so that one client cannot take every open seat (409 beyond).
    games_per_client: int = 20
    # Finished games the archive has not taken yet (each stays in Redis until it has): one client's (or one
    # app's) at most this many, so that when the archive falls behind no client can fill Redis with finished
    # games; a new game beyond is a 429 until the archive catches up.
    finished_games_per_client: int = 100
    simulations_per_client: int = 4  # queued or running
    seats_per_client: int = 1
    capacity_retry_after: int = 30

    # Simulations (api/service/simulations/): chunks of a few seconds on their own queue.
    simulations_queue: str = "simulations"
    simulation_chunk_seconds: float = 2.0  # target work per chunk (estimated from a cost model)
    simulation_max_games: int = 10_000_000
    simulation_max_game_seconds: float = 60.0  # one game (match) estimated above this is refused (422)
    simulation_max_chunks: int = 2000  # bigger chunks past this, so a huge simulation is not 100k jobs
    # Chunks of one simulation queued at once (at least twice the simulation workers): later ones queue behind
    # other simulations' chunks, so that simulations share the workers instead of waiting for each other.
    simulation_window: int = 4
    simulation_search_nodes: int = 0  # Budget(nodes=...) per move for search bots; 0: each bot's calibrated own
    simulation_job_timeout: int = 3600
    simulation_cancel_check: float = 0.5  # a running chunk looks for a cancel this often (seconds)
    # A chunk that has used more CPU than this many times its estimate (or than that many chunk times, if more)
    # stops, and its simulation fails: the cost model was wrong for its rules, and a worker is not held for days.
    simulation_overrun: float = 2.0
    simulation_ttl: int = 7 * 24 * 3600

    # Analyses of finished games (api/service/analyses.py, docs/analysis.md): one job each on their own queue.
    # A client may have analyses_per_client of them queued or running at once (429 beyond); each move with a
    # choice is valued at analysis_nodes simulator moves per position (the default budget); progress is written
    # at least every analysis_progress_s; the record in Redis lives analysis_ttl (the archive keeps the answer).
    analysis_queue: str = "analysis"
    analyses_per_client: int = 4
    analysis_nodes: int = 12000
    analysis_progress_s: float = 1.0
    analysis_job_timeout: int = 3600
    analysis_ttl: int = 24 * 3600

    # Arenas (api/service/arenas/): rated games between bots on the workers, through the real game path. An
    # arena plays at most arena_max_games games of at most arena_max_deals deals (422 beyond), at most
    # arena_games_per_bot of them at once (each seats every bot: that many for each bot, in this arena only);
    # an owner (app key or bot token) has at most arenas_per_owner arenas running (429 beyond).
    arena_games_per_bot: int = 4
    arenas_per_owner: int = 4
    arena_max_deals: int = 100
    arena_max_games: int = 1000

    # Events (api/service/events.py): long polls and Server-Sent Events on a blocking connection of their own.
    max_wait: float = 30.0  # the longest `wait` a long poll may ask for, seconds

    # Matchmaking (api/service/matchmaking): open tickets per holder (an address, an app's player, a registered
    # bot); a waiting ticket nobody reads for ticket_idle seconds expires; a rated ticket's rating range widens
    # by match_widen ordinal points per second waited, on each side.
    max_tickets: int = 3
    # Challenges (api/service/matchmaking/challenges.py): open challenges per challenger (429 beyond), and how
    # long one stays open unless it says (`expires_in_s`).
    max_challenges: int = 5
    challenge_expiry: float = 60.0
    ticket_idle: float = 30.0
    match_widen: float = 0.5
    keepalive_interval: float = 15.0  # an SSE comment at least this often
    stream_ticket_ttl: int = 60  # a stream ticket for EventSource (`?ticket=`) lives this long, seconds
    # Open event streams (SSE, and long polls that wait) at once, counted in Redis across API processes
    # (api/service/streams.py): per client (its address, as the rate limit sees it) and per game; 429 beyond.
    streams_per_client: int = 32
    streams_per_game: int = 256  # spectators' streams; each seat has streams_per_seat of its own besides
    streams_per_seat: int = 4
    stream_lease: float = 60.0  # a slot not renewed for this long is free (a crashed process's); > max_wait
    stream_retry_after: int = 5  # seconds, in the 429's Retry-After

    # Workers stopping (workers/stopping.py): on SIGTERM a worker takes no new job; a forking worker's running job
    # may go on for worker_stop_grace seconds, then it is put back at the front of its queue. A forking worker
    # looks every worker_stop_check seconds while its job runs (whole seconds: RQ's SIGALRM).
    worker_stop_check: int = 1
    worker_stop_grace: float = 3.0
    # Turn timeouts (api/service/turns.py, computer.py): a late human or hosted-bot seat is moved for with this strategy.
    timeout_strategy: str = "greedy"
    min_turn_timeout: float = 1.0  # the smallest `turn_timeout_s` a game may ask for (tests lower it)

    # Hosted bots (api/service/webhooks.py): signed POSTs on the webhooks queue, retried with back-off by the sweep.
    webhooks_queue: str = "webhooks"
    webhook_timeout: float = 3.0  # read, seconds; redirects are never followed
    webhook_connect_timeout: float = 1.0  # DNS, and connect, seconds each
    # A webhook host that does not answer (DNS, connect or read) waits this long before it is called again,
    # by its consecutive failures (seconds; the last repeats); an answer clears it.
    webhook_host_backoff: str = "5,30,120,600"
    webhook_backoff: str = "1,5,15,60"  # seconds before retry 1, 2, ...; then no more tries
    webhook_job_timeout: int = 30
    # Deliveries in flight per webhooks worker process, and of one owner (the app or client that created the
    # game) among them, served owner by owner in turn (api/service/deliveries.py); a host never seen answering
    # gets this read timeout instead of webhook_timeout (seconds).
    webhook_concurrency: int = 64
    webhook_per_owner: int = 4
    webhook_first_timeout: float = 1.0
    # Webhooks reach only public addresses unless allowed (a game's creator must not make our workers call
    # into our own network); tests and a private deployment set it.
    webhook_allow_private: bool = False

    # Registered bots (api/service/registered_bots.py): seated by name, moving with their own token in every game.
    # A registered bot's turn has a deadline even in a game without `turn_timeout_s` (so a silent bot never
    # stalls a game); missing this many deadlines in a row makes it unavailable (not seated in new games)
    # until it is back (its stream reconnects, its webhook answers, its owner updates it).
    bot_turn_timeout: float = 30.0
    bot_max_misses: int = 3
    bot_stream_max: int = 1000  # notices kept in a bot's stream (approximately: XADD MAXLEN ~)
    streams_per_bot: int = 4  # a bot's open streams at once (SSE, waiting long polls); 429 beyond
    # Third-party apps (api/service/apps.py): what `domino-admin apps create` gives an app unless told otherwise,
    # its own rate limit ("<requests>/<seconds>", counted per app instead of per address; "0": none) and its
    # cap of games waiting or playing at once (0: none; 429 `too-many-app-games` beyond). With
    # require_app_key, `POST /v1/games` without an app key is refused (401).
    app_rate_limit: str = "6000/60"
    app_max_games: int = 100
    require_app_key: bool = False
    # An app's lifecycle delivery (api/service/app_events.py) is kept this long, seconds, until it is delivered:
    # far beyond its last retry (webhook_backoff), after which it is dropped.
    app_event_ttl: int = 24 * 3600
    # An app subscribed to `turn.reminder` hears once, in a turn that lasts at least reminder_min_turn seconds,
    # when reminder_fraction of the turn's time is left.
    reminder_fraction: float = 0.2
    reminder_min_turn: float = 600.0

    # HTTP.
    max_body_bytes: int = 16 * 1024
    max_body_depth: int = 32  # arrays and objects nested deeper are refused (422); ours need about 4
    # Slow clients (api/bodyread.py, api/inflight.py). A request's body must arrive within body_timeout seconds
    # of its headers (408 `request-timeout` beyond): a body sent a byte at a time would hold its connection,
    # and a file descriptor, for as long as its sender liked. One client (its address, as the rate limit sees
    # it) may have in_flight_per_client requests being answered at once in each server process, counted in
    # the process (no Redis round trip) until the answer is ready; 429 `too-many-in-flight` beyond.
    body_timeout: float = 10.0
    in_flight_per_client: int = 64
    in_flight_retry_after: int = 1
    # Rate limit per client (its address; see proxy_hops), counted in Redis so it holds across API processes:
    # "<requests>/<seconds>", a fixed window; "" or "0" turns it off. Only liveness is exempt: it does no I/O.
    rate_limit: str = "3000/60"
    rate_limit_exempt: str = "/healthz"
    # An IPv6 client is its /64 (one subscriber's usual allocation): rotating addresses inside it is one client.
    rate_limit_ipv6_prefix: int = 64
    # GET /metrics answers the networks listed here (comma-separated CIDRs; loopback by default) and any
    # client sending `Authorization: Bearer <metrics_token>` (when set); everyone else gets 403.
    metrics_allow: str = "127.0.0.0/8,::1/128"
    metrics_token: str = ""
    proxy_hops: int = 0  # trusted proxies in front: take the client's address from X-Forwarded-For
    cors_origins: str = "*"  # comma-separated origins for browsers ("": no CORS); tokens are headers, not cookies
    conflict_retries: int = 5  # reload-and-revalidate loops on a lost compare-and-set (no version named)

    @property
    def effective_queue_url(self) -> str:
        return self.queue_url or self.redis_url

    @property
    def expiry_margin(self) -> float:
        """How long a live game's keys outlive its deadline (or its idle end): the sweep has time to act on it."""
        return max(self.game_ttl, 10 * self.sweep_interval)

    @property
    def webhook_delays(self) -> tuple[float, ...]:
        """The back-off before each retry of a webhook (``DOMINO_WEBHOOK_BACKOFF="1,5,15,60"``)."""
        return _delays(self.webhook_backoff)

    @property
    def webhook_host_delays(self) -> tuple[float, ...]:
        """A dead webhook host's back-off by consecutive failures (``DOMINO_WEBHOOK_HOST_BACKOFF``)."""
        return _delays(self.webhook_host_backoff)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Read ``DOMINO_<FIELD>`` for every field (``DOMINO_REDIS_URL``, ``DOMINO_SWEEP_INTERVAL``, ...)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for field in dataclasses.fields(cls):
            raw = env.get(PREFIX + field.name.upper())
            if raw is None or (raw == "" and field.name not in EMPTY_TURNS_OFF):
                continue
            default = field.default
            if isinstance(default, bool):
                values[field.name] = raw.lower() in ("1", "true", "yes", "on")
            elif isinstance(default, int):
                values[field.name] = int(raw)
            elif isinstance(default, float):
                values[field.name] = float(raw)
            else:
                values[field.name] = raw
        values.update(overrides)
        return cls(**values)


def _delays(text: str) -> tuple[float, ...]:
    """Seconds, comma-separated (``"1,5,15,60"``)."""
    return tuple(float(x) for x in text.split(",") if x.strip())

"""Console scripts: ``domino-serve`` (everything on one machine) and ``domino-worker`` (RQ workers)."""

from __future__ import annotations

import argparse
import functools
import gc
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, NoReturn

from rq import Queue
from rq.exceptions import StopRequested
from rq.worker import BaseWorker

from api.config import Settings
from api.archive import Archive
from api.queues import ANALYSIS, ARCHIVE, BOT_GAMES, BOTS, HINTS, SERIALIZER, SIMULATIONS, WEBHOOKS
from api.service.service import Service
from workers import jobs
from workers import sweep as sweep_mod
from workers.redis_server import RedisServer
from workers.stopping import ForkingWorker, NonForkingWorker
from workers.supervise import Child, supervise

SWEEP_JOIN_SECONDS = 3.0  # at most this of a worker's 10 s to stop goes to a sweep in progress


def _port_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def _wait_http(url: str, timeout: float, proc: subprocess.Popen[bytes]) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=1) as resp:  # noqa: S310 - our own localhost URL
                if resp.status == 200:
                    return True
        except OSError:
            time.sleep(0.1)
    return False


def _stop(proc: subprocess.Popen[bytes] | None, timeout: float = 10.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="domino-serve", description=serve.__doc__)
    parser.add_argument("--host", default=os.environ.get("DOMINO_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("DOMINO_PORT", "8000")))
    parser.add_argument("--api-processes", type=int, default=2, help="gunicorn worker processes (default 2)")
    parser.add_argument(
        "--api-connections",
        type=int,
        default=2000,
        help="open connections per API process (gevent; default 2000, fewer when the open-files limit holds "
        "fewer: logged at start): an idle event stream holds one, not a thread; streams are capped per client "
        "and per game (DOMINO_STREAMS_PER_CLIENT, DOMINO_STREAMS_PER_GAME)",
    )
    parser.add_argument("--webhook-workers", type=int, default=1, help="RQ workers on the webhooks queue (default 1)")
    parser.add_argument("--bot-workers", type=int, default=1, help="RQ workers on the bots queue (default 1)")
    parser.add_argument(
        "--bot-game-workers",
        type=int,
        default=1,
        help="RQ workers on the bot-games queue, games of computer players only (default 1)",
    )
    parser.add_argument(
        "--simulation-workers", type=int, default=1, help="RQ workers on the simulations queue (default 1)"
    )
    parser.add_argument(
        "--archive-workers", type=int, default=1, help="RQ workers on the archive queue, finished games to SQL (default 1)"
    )
    parser.add_argument(
        "--analysis-workers", type=int, default=1, help="RQ workers on the analysis queue, analyses of finished games (default 1)"
    )
    parser.add_argument(
        "--hint-workers", type=int, default=2, help="RQ workers on the hints queue, hints in practice games (default 2)"
    )
    parser.add_argument("--data-dir", default=os.environ.get("DOMINO_DATA_DIR", "var/redis"), help="Redis data folder")
    parser.add_argument(
        "--start-timeout",
        type=float,
        default=float(os.environ.get("DOMINO_START_TIMEOUT", "120")),
        help="seconds the API may take to answer /healthz before domino-serve gives up (DOMINO_START_TIMEOUT; "
        "default 120: a few seconds on an idle machine, but its processes import and build the app beside the "
        "workers doing the same, and a busy machine took 30 s)",
    )
    parser.add_argument(
        "--archive",
        default=os.environ.get("DOMINO_ARCHIVE_URL", Settings.archive_url),
        metavar="URL",
        help="where finished games go (DOMINO_ARCHIVE_URL; default sqlite:///var/archive.sqlite3, a file under the "
        "working folder, migrated at start; postgresql+psycopg://... for PostgreSQL, migrated by "
        "`domino-admin archive migrate`)",
    )
    return parser


def _start_api(args: argparse.Namespace, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable, "-m", "gunicorn",
            "--workers", str(args.api_processes),
            # One address and no proxy here, so the REST API and the event streams share one gunicorn:
            # gevent, because a long poll (up to 30 s) or an SSE stream (a whole game) waits in XREAD
            # almost all of its life. On gevent a waiting stream is a parked greenlet (a few KiB, no
            # thread, no CPU), so thousands of them take nothing from REST requests, which run on the same
            # loop and wait only for each other's CPU; on gthread each held a thread, and 128 streams
            # took them all. (docker-compose: REST on sync workers, streams on gevent, behind nginx.)
            "--worker-class", "gevent",
            "--worker-connections", str(args.api_connections),
            # Raises the open-files limit at start, and lowers the connections above to what it holds.
            "--config", "python:workers.gunicorn_config",
            "--bind", f"{args.host}:{args.port}",
            "--access-logfile", "-",
            "--logger-class", "workers.accesslog.AccessLogger",  # stream tickets cut short in the log
            "--graceful-timeout", "5",
            "--no-control-socket",  # gunicorn 27's socket is one fixed path per user: two instances clash
            "api.app:serve()",
        ],  # fmt: skip
        env=env,
        start_new_session=True,
    )


def _start_workers(args: argparse.Namespace, env: dict[str, str]) -> list[Child]:
    """The RQ workers: bots (the first with the sweep), bot-games (at a lower CPU priority: on a busy machine
    live play and the API get the CPU first), simulations, webhooks, archive, analysis, hints."""
    commands = [["bots", "--sweep"] if i == 0 else ["bots"] for i in range(args.bot_workers)]
    commands += [["bot-games", "--nice", "10"]] * args.bot_game_workers
    commands += [["simulations"]] * args.simulation_workers
    commands += [["webhooks"]] * args.webhook_workers
    commands += [["archive"]] * args.archive_workers
    commands += [["analysis"]] * args.analysis_workers
    commands += [["hints"]] * args.hint_workers
    return [Child(f"worker {' '.join(command)}", functools.partial(_start_worker, command, env)) for command in commands]


def _start_worker(command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "workers.cli", "worker", *command], env=env, start_new_session=True)


def serve(argv: list[str] | None = None) -> int:
    """Start Redis (unless DOMINO_REDIS_URL is set), the API, a bots worker with the sweep, a worker for games of
    computer players only, a simulations worker, a webhooks worker, an archive worker, an analysis worker and a
    hints worker; start again any of them that exits (workers/supervise.py); stop on Ctrl-C."""
    args = _serve_parser().parse_args(argv)
    if not _port_free(args.host, args.port):
        print(f"domino-serve: port {args.port} on {args.host} is taken; use --port or DOMINO_PORT", file=sys.stderr)
        return 2

    stopping = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    env = dict(os.environ)
    env["DOMINO_ARCHIVE_URL"] = args.archive
    if args.archive.startswith("sqlite"):  # our own file: its schema is ours to bring up to date
        print(f"domino-serve: archive {args.archive} at migration {Archive(args.archive).migrate()}")
    else:
        print(f"domino-serve: archive {args.archive.split('@')[-1]} (migrated by `domino-admin archive migrate`)")
    if not env.get("PROMETHEUS_MULTIPROC_DIR"):
        # GET /metrics sums the counters of every API process and of the workers (prometheus-client's
        # multiprocess mode): a fresh folder per run, since the files of a previous run would be counted.
        env["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="domino-metrics-")
    redis_server = None
    children: list[Child] = []
    try:
        if not env.get("DOMINO_REDIS_URL"):
            maxmemory = Settings.from_env(env).redis_maxmemory
            redis_server = RedisServer(Path(args.data_dir), persistent=True, maxmemory=maxmemory)
            env["DOMINO_REDIS_URL"] = redis_server.start()
            print(f"domino-serve: redis {redis_server.binary} at {env['DOMINO_REDIS_URL']}, data in {redis_server.data_dir}")
        else:
            print(f"domino-serve: using redis at {env['DOMINO_REDIS_URL']}")
        # Each child in its own session: Ctrl-C reaches only us, and we stop them in order (API and
        # workers first, Redis last, after it has saved).
        api = Child("api", functools.partial(_start_api, args, env))
        children = [api, *_start_workers(args, env)]
        base = f"http://{args.host}:{args.port}"
        if not _wait_http(f"{base}/healthz", args.start_timeout, api.proc):
            print(f"domino-serve: the API did not answer within {args.start_timeout:g} s (--start-timeout)", file=sys.stderr)
            return 1
        print(f"\ndomino-service is up: API {base}/v1  docs {base}/docs  (Ctrl-C stops everything)\n", flush=True)
        return supervise(children, stopping)
    finally:
        for child in reversed(children):
            _stop(child.proc)
        if redis_server is not None:
            redis_server.stop()
            print("domino-serve: redis saved and stopped")


def _worker_options() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="domino-worker", description=worker.__doc__)
    parser.add_argument(
        "queues",
        nargs="*",
        default=["bots"],
        help="queue names: bots (computer players in games with a human or hosted seat), bot-games (games of "
        "computer players only: run a worker of its own, so live games never wait behind them), simulations, "
        "webhooks, archive (finished games to the archive, by batches), analysis (analyses of finished games), "
        "hints (hints in practice games: a search of about 70 ms each, while the asking API request waits)",
    )
    parser.add_argument(
        "--sweep",
        action="store_true",
        help="also run the sweep: stalled bot turns, turn timeouts, webhook retries, chunks of dead simulation "
        "workers, archive jobs for the finished games due",
    )
    parser.add_argument("--burst", action="store_true", help="exit when the queues are empty")
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        help="lower this worker's CPU priority by N (domino-serve runs the bot-games worker at 10, so that on a "
        "busy machine live play's workers and the API get the CPU first)",
    )
    parser.add_argument(
        "--fork",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run each job in a forked work horse (default: only when every queue is simulations or analysis)",
    )
    parser.add_argument("--log-level", default=os.environ.get("DOMINO_LOG_LEVEL", "INFO"))
    return parser


def worker(argv: list[str] | None = None) -> NoReturn:
    """Run an RQ worker on the given queues (default: bots), optionally with the bot-turn sweep, until SIGTERM or
    SIGINT (workers/stopping.py); then the process exits."""
    args = _worker_options().parse_args(argv)
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.nice:
        os.nice(args.nice)

    settings = Settings.from_env()
    service = Service(settings)
    jobs.use_service(service)  # one Service per process: the jobs (and the work horses forked) use this one
    settle_heap()
    conn = service.store.worker_connection()
    configured = {
        BOTS: settings.bots_queue,
        BOT_GAMES: settings.bot_games_queue,
        SIMULATIONS: settings.simulations_queue,
        WEBHOOKS: settings.webhooks_queue,
        ARCHIVE: settings.archive_queue,
        ANALYSIS: settings.analysis_queue,
        HINTS: settings.hints_queue,
    }
    names = [configured.get(q, q) for q in args.queues]
    queues = [Queue(name, connection=conn, serializer=SERIALIZER) for name in names]

    stop = threading.Event()
    sweep = sweep_mod.start_thread(service, stop) if args.sweep else None
    rq_worker = _rq_worker(queues, conn, settings, args.fork, args.queues)
    code = 0
    try:
        rq_worker.work(burst=args.burst, logging_level=os.environ.get("DOMINO_RQ_LOG_LEVEL", "WARNING"))
    except StopRequested:
        pass  # a signal during RQ's teardown
    except Exception:
        logging.getLogger("workers.cli").exception("worker failed")
        code = 1
    finally:
        stop.set()
    _exit(code, sweep)


def settle_heap() -> None:
    """What a worker has made by now (modules, its Service and pools: some 150,000 objects) lives as long as
    the process: moved out of the garbage collector's sight, so that the full collections a job's burst of
    objects sets off (the archiving job's batch: two per 2,000 games, 0.1-0.4 s each) walk only what jobs
    made. Forked work horses share those pages untouched, too."""
    gc.collect()
    gc.freeze()


def _rq_worker(queues: list[Queue], conn: Any, settings: Settings, fork: bool | None, purposes: list[str]) -> BaseWorker:
    """The RQ worker of ``queues`` (``purposes``: the names given on the command line): forking or not (``fork``,
    None: by the queues)."""
    # NonForkingWorker runs each job in this process instead of forking a work horse per job. Bot turns are pure
    # and idempotent (a stale or duplicate job is a no-op, and a crashed one is re-enqueued by the sweep), so
    # the fork's isolation buys nothing, while it costs ~14 ms of CPU per job here against ~2 ms without it:
    # most of a computer player's turn would be spent forking.
    #
    # Simulation chunks are the other way round: seconds of CPU each, so a fork (~14 ms) costs under 1%, and in
    # exchange the worker outlives a chunk that crashes or runs out of memory (RQ marks it failed and retries
    # it; it counts once), a search bot's memory is returned after every chunk, the parent keeps the
    # worker's heartbeat while the chunk runs, and on SIGTERM it puts a long chunk back instead of waiting
    # for it (workers/stopping.py). So a worker on the simulations queue alone forks; so does one on the analysis
    # queue (an analysis runs for seconds to a minute, and one put back resumes after the moves it wrote).
    fork = fork if fork is not None else set(purposes) <= {SIMULATIONS, ANALYSIS}
    common: dict[str, Any] = dict(
        connection=conn, serializer=SERIALIZER, full_backoff=settings.full_backoff, full_backoff_max=settings.full_backoff_max
    )
    if fork:
        return ForkingWorker(
            queues, job_monitoring_interval=settings.worker_stop_check, stop_grace=settings.worker_stop_grace, **common
        )
    return NonForkingWorker(queues, **common)


def _exit(code: int, sweep: threading.Thread | None) -> NoReturn:
    """End the process now: let a sweep in progress finish (for at most SWEEP_JOIN_SECONDS), flush the logs,
    and ``os._exit``, so that no thread (the sweep, a library's) keeps the process alive after SIGTERM
    (workers/stopping.py)."""
    if sweep is not None:
        sweep.join(SWEEP_JOIN_SECONDS)
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main() -> int:
    commands = {"serve": serve, "worker": worker}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print("usage: python -m workers.cli {serve,worker} ...", file=sys.stderr)
        return 2
    return commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())

"""Helpers that test modules import by name (``from support import ...``; ``tests/`` is on the path). Not in a
conftest: ``tests/web`` has a conftest of its own, and ``import conftest`` gets whichever was loaded last."""

from __future__ import annotations

import os
import random
import signal
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from rq import SimpleWorker

from api.queues import HINTS, SERIALIZER, WEBHOOKS, Queues
from api.service import deliveries
from api.service.records import game_record, whole_state
from domino.analysis import analyse_position, positions
from domino.analysis.fairplay import Tally, position_choice, tally


class BurstWorker(SimpleWorker):
    """RQ's SimpleWorker, run in burst mode in the test's own thread, without RQ's command channel.

    Nothing sends a command (kill the work horse, shut down) to a worker that runs in the test's thread; and
    the channel costs each ``work()`` call up to a second: RQ subscribes with a listening thread that waits
    60 s per read and joins it for up to 1 s at teardown, which under a lost race it does in full (a third
    of the suite's time went there, in the tests that run one job at a time)."""

    def subscribe(self) -> None:
        """No command channel (see the class)."""

    def unsubscribe(self) -> None:
        """No command channel (see the class)."""

    def _install_signal_handlers(self) -> None:
        """The test process keeps its own SIGINT and SIGTERM handlers: RQ's would stay installed after the burst,
        and a Ctrl-C (or a CI timeout's SIGTERM) would raise RQ's StopRequested in whatever test runs then."""


def work_burst(service, purposes: tuple[str, ...], max_jobs: int | None = None) -> bool:  # type: ignore[no-untyped-def]
    """Run this test's queues of ``purposes`` (``api.queues`` names: bots, bot-games, simulations, webhooks, archive) to
    empty with a real RQ worker in burst mode, at most ``max_jobs`` jobs; returns whether it ran any."""
    by_purpose = Queues(service.store).by_purpose()
    names = [by_purpose[purpose].name for purpose in purposes]
    worker = BurstWorker(names, connection=service.store.worker_connection(), serializer=SERIALIZER)
    worker.last_cleaned_at = _CLEANED_AT.get(tuple(names))
    worked = worker.work(burst=True, max_jobs=max_jobs, logging_level="WARNING")
    _CLEANED_AT[tuple(names)] = worker.last_cleaned_at
    return bool(worked)


# When RQ's maintenance (its registries cleaned) last ran for each set of queues. RQ runs it as a worker starts,
# then every maintenance interval; a burst worker is made per call, and tests call hundreds in a row (one per
# job): here they keep the time, as one worker that kept running would (it was half of each burst's round trips).
_CLEANED_AT: dict[tuple[str, ...], Any] = {}


def play_out(
    client, key: str, seat: dict[str, Any], run_bots, token: str | None = None, rules: dict[str, Any] | None = None,
    variant: str = "draw", players: int = 2,
) -> str:  # type: ignore[no-untyped-def]  # fmt: skip
    """A game of ``variant`` created with the app ``key``: seat 0 is ``seat``, played here with its token (or
    ``token``: a registered bot's) by random legal moves seeded by the game id, the other ``players`` - 1 seats
    greedy (their turns run by ``run_bots``); one round unless ``rules`` say otherwise; played to its end. Its id."""
    seats = [seat] + [{"bot": "greedy"}] * (players - 1)
    body = {"variant": variant, "seats": seats, "rules": rules or {"match_end": "fixed_rounds", "rounds": 1}}
    created = client.post("/v1/games", json=body, headers={"Authorization": f"Bearer {key}"})
    assert created.status_code == 201, created.get_json()
    game_id: str = created.get_json()["game"]["id"]
    auth = {"Authorization": f"Bearer {token or created.get_json()['tokens'][0]['token']}"}
    rng = random.Random(game_id)

    def finished() -> bool:
        view = client.get(f"/v1/games/{game_id}", headers=auth).get_json()
        if view["status"] == "finished":
            return True
        if view["legal_moves"]:
            assert client.post(f"/v1/games/{game_id}/moves", json=rng.choice(view["legal_moves"]), headers=auth).status_code == 200
        else:
            run_bots()
        return False

    eventually(finished, "the game played to its end")
    return game_id


def screened_tally(records: dict[str, dict[str, Any]], seat: int, nodes: int) -> Tally:
    """The pure fair-play screen's tally of ``seat``'s moves in these games (game id -> its record), each position
    read as the service reads it (the analysis' values, then the seeded reading at ``nodes``)."""
    total = Tally()
    for game_id, record in records.items():
        for p in positions(record):
            if p.seat == seat:
                info = [(v.move, v.value) for v in analyse_position(game_id, p, nodes).values]
                seed = f"fairplay:{game_id}:{p.version}"
                total += tally([position_choice(p.state, p.played, info, seed, nodes, p.round_points)])
    return total


def ask_hint(service, client, game_id: str, headers: dict[str, str]):  # type: ignore[no-untyped-def]
    """``POST /v1/games/{game_id}/hint`` with ``headers`` (a Flask test client's), its job run by a burst worker
    here once it is queued, as a hints worker would (the request waits for it in a thread of its own); the
    answer. A request refused before any job is queued answers as it is."""
    answer: list[Any] = []
    asking = threading.Thread(target=lambda: answer.append(client.post(f"/v1/games/{game_id}/hint", headers=headers)))
    asking.start()
    queue = Queues(service.store).by_purpose()[HINTS]
    eventually(lambda: queue.count or not asking.is_alive(), "the hint's job queued, or the answer")
    work_burst(service, (HINTS,))
    asking.join(60)
    assert answer, "the hint request did not answer"
    return answer[0]


def run_webhooks(service) -> bool:  # type: ignore[no-untyped-def]
    """Run this test's webhooks queue (hosted bots' turns, apps' lifecycle events) to empty (``work_burst``),
    then wait for the deliveries the jobs handed to this process's delivery threads to end."""
    ran = work_burst(service, (WEBHOOKS,))
    assert deliveries.wait_idle(60), "the webhook deliveries did not end"
    return ran


def hear(service, deliveries: list[tuple[dict[str, str], bytes]], count: int, what: str) -> None:  # type: ignore[no-untyped-def]
    """Run the test's webhooks until ``deliveries`` (a local webhook endpoint's ``(headers, body)`` pairs) hold
    ``count`` events, each counted once by its `webhook-id` (at least once: one answered after its timeout
    comes again, with its id). Waits for the deliveries themselves: a burst that ran some job is not yet them."""

    def heard() -> bool:
        run_webhooks(service)
        return len({headers["webhook-id"] for headers, _ in deliveries}) >= count

    eventually(heard, what)


PROBLEM = "application/problem+json"


def assert_problem(resp, status: int, slug: str | None = None) -> dict:  # type: ignore[type-arg,no-untyped-def]
    """``resp`` (a Flask test client's) is a problem document with ``status`` and, when given, the type
    ``/problems/<slug>``, about the request's path; its body."""
    assert resp.status_code == status, (resp.status_code, resp.get_data(as_text=True)[:500])
    assert resp.mimetype == PROBLEM
    body = resp.get_json()
    assert body["status"] == status and body["title"] and body["detail"], body
    if slug:
        assert body["type"] == f"/problems/{slug}", body
    assert body["instance"].startswith(resp.request.path + "#"), body
    return body  # type: ignore[no-any-return]


def whole_game_state(service, game_id: str):  # type: ignore[no-untyped-def]
    """(version, the whole state: the live one with every finished round's record)."""
    rec, earlier_rounds = service.store.games.load_with_rounds(game_id)
    return rec.version, whole_state(game_record(rec.doc), earlier_rounds)


def wait_until(condition, seconds: float = 30.0, interval: float = 0.01):  # type: ignore[no-untyped-def]
    """The first truthy value of ``condition()`` within ``seconds`` (checked every ``interval``), else None.

    ``seconds`` is a ceiling, a bound for failing, not a measurement: make it generous (tens of seconds), so
    that a busy machine never fails the test; when the event comes, the wait ends at once."""
    deadline = time.monotonic() + seconds
    while not (value := condition()):
        if time.monotonic() > deadline:
            return None
        time.sleep(interval)
    return value


def eventually(condition, what: str, seconds: float = 30.0, interval: float = 0.01):  # type: ignore[no-untyped-def]
    """``wait_until``, failing the test with ``what`` (the event waited for) when the ceiling passes."""
    value = wait_until(condition, seconds, interval)
    assert value, f"{what}: not within {seconds:g} s"
    return value


def returns_within(seconds: float, call):  # type: ignore[no-untyped-def]
    """``call()``'s result, failing the test if it has not returned within ``seconds`` (it hangs). For a
    behaviour such as "answers at once rather than waiting": give a ceiling well above any honest answer, and
    put a timing target in a bench (bench/), not in a test."""
    outcome: list[tuple[bool, object]] = []
    thread = threading.Thread(target=lambda: outcome.append(_outcome(call)), name="returns-within", daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"{call!r} did not return within {seconds:g} s"
    ok, value = outcome[0]
    if not ok:
        raise value  # type: ignore[misc]
    return value


def _outcome(call):  # type: ignore[no-untyped-def]
    try:
        return True, call()
    except BaseException as exc:  # handed to the test's thread by returns_within
        return False, exc


def blocked_clients(conn, command: str) -> int:  # type: ignore[no-untyped-def]
    """How many clients of ``conn``'s Redis (every node of a cluster) are blocked in ``command`` now (e.g. a
    long poll's ``xread``): wait for a reader to be waiting, rather than sleeping and hoping it is."""
    from redis.cluster import RedisCluster

    if isinstance(conn, RedisCluster):
        lists = list(conn.client_list(target_nodes=RedisCluster.ALL_NODES).values())
    else:
        lists = [conn.client_list()]
    return sum(1 for clients in lists for c in clients if c["cmd"] == command and "b" in c["flags"])


ROOT = Path(__file__).resolve().parents[1]


def start_serve(port: int, data_dir: Path, env: dict[str, str], **popen: Any) -> subprocess.Popen[bytes]:
    """`domino-serve` on 127.0.0.1:``port`` with its API processes only (no simulation, webhook or bot-game
    workers), with ``env`` added to this process's environment; end it with :func:`end_server`."""
    return subprocess.Popen(
        [
            sys.executable, "-m", "workers.cli", "serve", "--port", str(port), "--data-dir", str(data_dir),
            "--simulation-workers", "0", "--webhook-workers", "0", "--bot-game-workers", "0",
        ],  # fmt: skip
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
        **popen,
    )


def serving(base_url: str, process=None, seconds: float = 60.0) -> bool:  # type: ignore[no-untyped-def]
    """Whether a server started at ``base_url`` answers ``GET /healthz`` with 200 within ``seconds``; fails the
    test at once if its ``process`` (a ``subprocess.Popen``) has exited."""

    def healthy() -> bool:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the server of {base_url} exited with {process.returncode}")
        try:
            return httpx.get(f"{base_url}/healthz", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    return bool(wait_until(healthy, seconds, 0.1))


def end_server(process, grace: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    """Stop a server process started for a test (gunicorn, domino-serve, a redis-server): SIGTERM, then after
    ``grace`` seconds SIGKILL (its whole process group when it leads one), and reap it."""
    _terminate(process, grace)


def stop_process(process, seconds: float = 10.0) -> int:  # type: ignore[no-untyped-def]
    """Stop a worker process a test started (``python -m workers.cli worker ...``) and return its exit code:
    SIGTERM, and fail the test if it is still running ``seconds`` later (a worker stops within 10 s of SIGTERM,
    busy or not: workers/stopping.py). Never left behind: then SIGKILL (its process group when it leads one)."""
    return stop_processes([process], seconds)[0]


def stop_processes(processes, seconds: float = 10.0) -> list[int]:  # type: ignore[no-untyped-def]
    """``stop_process`` for several at once (SIGTERM to all, then each waited for): every one is stopped or
    killed before the test fails for any."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    late = [process.args for process in processes if not _terminate(process, seconds)]
    if late:
        raise AssertionError(f"{late!r} still running {seconds:g} s after SIGTERM (killed)")
    return [int(process.returncode) for process in processes]


def _terminate(process, grace: float) -> bool:  # type: ignore[no-untyped-def]
    """SIGTERM, and SIGKILL after ``grace`` seconds; whether it exited on SIGTERM (or had exited already)."""
    if process.poll() is not None:
        return True
    process.terminate()
    try:
        process.wait(grace)
        return True
    except subprocess.TimeoutExpired:
        if os.getpgid(process.pid) == process.pid:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
        process.wait()
        return False


def pause_children(pid: int) -> list[int]:
    """SIGSTOP every child of process ``pid`` (a forking worker's work horse): its job stays where it is until the
    worker kills it (SIGKILL ends a stopped process too). Their pids."""
    children = [int(c) for t in Path(f"/proc/{pid}/task").iterdir() for c in (t / "children").read_text().split()]
    for child in children:
        os.kill(child, signal.SIGSTOP)
    return children


def catches_sigterm(pid: int) -> bool:
    """Whether process ``pid`` has a handler of its own for SIGTERM (its bit in /proc's caught-signals mask): a
    worker installs its own once it listens, before which SIGTERM would just end it."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), 16)
    return bool(caught & (1 << (signal.SIGTERM - 1)))


SMALL_MAXMEMORY = 64 * 1024 * 1024  # a private Redis's limit in the tests of a full Redis


def fill_redis(conn) -> None:  # type: ignore[no-untyped-def]
    """A private Redis (never a shared one) past its limit, as if a flood had filled it: its ``maxmemory``
    lowered to a byte, far under what it holds whatever its buffers do, so that it refuses every write
    (policy ``noeviction``)."""
    conn.config_set("maxmemory", 1)


def free_redis(conn) -> None:  # type: ignore[no-untyped-def]
    """Memory freed: the private Redis's limit back to ``SMALL_MAXMEMORY``."""
    conn.config_set("maxmemory", SMALL_MAXMEMORY)


def tls_for(name: str, tmp_path: Path, monkeypatch) -> tuple[ssl.SSLContext, list[str | None]]:  # type: ignore[no-untyped-def]
    """A receiver's TLS context with a certificate for ``name`` that signs itself (made by openssl), trusted by
    httpx alone for the test (certifi's bundle is that certificate), and the server names (SNI) its handshakes
    were asked for, in order: (context, names)."""
    import certifi

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
         "-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name}", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    names: list[str | None] = []
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda sock, name, ctx: names.append(name)  # type: ignore[assignment,misc,return-value]
    monkeypatch.setattr(certifi, "where", lambda: str(cert))  # httpx's trust store: this certificate only
    return context, names

"""The webhooks worker's CPU per delivered app event (issue 31: the move path with an app subscribed to
``turn.started``), under a steady flow as a busy game server makes one.

A private Redis, an app subscribed to ``turn.started`` whose webhook is a receiver in a process of its own on
127.0.0.1 (HTTP/1.1, answers 204: it keeps a connection open when the caller does, as receivers do), ``--events``
games of the app created (each one's first ``turn.started`` is a delivery). Their tries are then taken out of
the outbox and handed back (``api.service.outbox.hand_over``, as a commit does) at ``--rate`` a second, to a real
``domino-worker webhooks`` process; when every one is delivered, the bench prints the worker's CPU time (/proc:
all its threads) and the receiver's, per delivered event.

    python bench/webhook_cpu.py [--events 2000] [--rate 150] [--runs 3] [--profile FILE] [--py-spy FILE]

``--py-spy FILE``: py-spy (if installed in the venv) samples the worker's threads on CPU while it delivers, as
collapsed stacks in FILE (it adds its own cost to the figures). ``--profile FILE``: instead of the worker process, this process runs the drain jobs (a thread, as the worker
would) and the deliveries, each under cProfile (the drain jobs' thread and every delivery thread's ``send``),
and writes the merged profile to FILE, printing its top entries: where the CPU goes, not how much (cProfile
multiplies it).
"""

from __future__ import annotations

import argparse
import cProfile
import http.server
import os
import pstats
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

TWO = [{"name": "Ana", "player": "u-ana"}, {"name": "Bo", "player": "u-bo"}]


def serve_receiver() -> None:
    """The receiver (run as ``--receiver``): 204 to each POST, HTTP/1.1; ``GET /count``: POSTs so far."""
    count = [0]
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            with lock:
                count[0] += 1
            self.send_response(204)
            self.end_headers()

        def do_GET(self) -> None:  # noqa: N802
            body = str(count[0]).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def received(port: int) -> int:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/count")
    return int(conn.getresponse().read())


def make_tries(service: Any, key: str, count: int) -> list[tuple[str, int]]:
    """``count`` games of the app: their first turns' deliveries, taken back out of the outbox."""
    from api.app import create_app

    flask_app = create_app({"DOMINO": service.settings, "TESTING": True})
    client = flask_app.test_client()
    auth = {"Authorization": f"Bearer {key}"}
    for _ in range(count):
        assert client.post("/v1/games", json={"variant": "draw", "seats": TWO}, headers=auth).status_code == 201
    tries = flask_app.extensions["domino.service"].store.app_outbox.take(count)
    assert len(tries) == count, len(tries)
    service.store.app_outbox.release()
    return tries


def feed(service: Any, tries: list[tuple[str, int]], rate: float) -> float:
    """Hand ``tries`` over at ``rate`` a second; this thread's CPU seconds."""
    from api.service.outbox import hand_over

    cpu0, t0 = time.thread_time(), time.monotonic()
    for i, one in enumerate(tries):
        time.sleep(max(0.0, t0 + i / rate - time.monotonic()))
        hand_over(service.store, service.queues, [one])
    return time.thread_time() - cpu0


def wait_delivered(service: Any, port: int, target: int) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if received(port) >= target and service.store.app_hooks_due.size() == 0:
            return
        time.sleep(0.05)
    raise RuntimeError(f"delivered {received(port)} of {target}")


def one_run(service: Any, env: dict[str, str], key: str, port: int, receiver_pid: int, args: argparse.Namespace) -> dict[str, float]:
    tries = make_tries(service, key, args.events)
    before = received(port)
    worker = subprocess.Popen(
        [sys.executable, "-m", "workers.cli", "worker", "webhooks", "--log-level", "WARNING"], env=env, cwd=ROOT, start_new_session=True
    )
    try:
        time.sleep(3)  # started and idle
        spy = None
        if args.py_spy:  # on-CPU samples of the worker's threads while it delivers
            spy = subprocess.Popen([str(Path(sys.executable).parent / "py-spy"), "record", "-p", str(worker.pid), "-r", "250",
                                    "-f", "raw", "-o", args.py_spy, "--nonblocking"], stdout=subprocess.DEVNULL)  # fmt: skip
            time.sleep(1)
        w0, r0, t0 = cpu_seconds(worker.pid), cpu_seconds(receiver_pid), time.monotonic()
        feed(service, tries, args.rate)
        wait_delivered(service, port, before + len(tries))
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(30)
        elapsed = time.monotonic() - t0
        w, r = cpu_seconds(worker.pid) - w0, cpu_seconds(receiver_pid) - r0
    finally:
        worker.terminate()
        worker.wait(30)
    n = len(tries)
    figures = {"worker CPU ms/event": w / n * 1000, "receiver CPU ms/event": r / n * 1000}
    print(f"  {n} events at {args.rate:.0f}/s, delivered in {elapsed:.1f} s: webhooks worker CPU {figures['worker CPU ms/event']:.3f} ms "
          f"an event, receiver {figures['receiver CPU ms/event']:.3f} ms; load average {os.getloadavg()[0]:.2f}", flush=True)
    return figures


def profile_run(service: Any, key: str, port: int, args: argparse.Namespace) -> None:
    from api.service import deliveries
    from api.service.webhooks import Webhooks

    tries = make_tries(service, key, args.events)
    before = received(port)
    profiles: list[cProfile.Profile] = []
    local = threading.local()
    send = Webhooks.send

    def profiled_send(self: Webhooks, out: Any) -> str:
        if not hasattr(local, "p"):
            local.p = cProfile.Profile(time.thread_time)
            profiles.append(local.p)
        local.p.enable()
        try:
            return send(self, out)
        finally:
            local.p.disable()

    Webhooks.send = profiled_send  # type: ignore[method-assign]
    wake = threading.Semaphore(0)
    stop = threading.Event()

    def drains() -> None:
        p = cProfile.Profile(time.thread_time)
        profiles.append(p)
        while not stop.is_set():
            if wake.acquire(timeout=0.1):
                p.enable()
                service.deliver_app_events()
                p.disable()

    service.queues.enqueue = lambda *a, **k: wake.release()  # the drain jobs' "queue": this process's thread
    runner = threading.Thread(target=drains, daemon=True)
    runner.start()
    cpu0 = time.process_time()
    fed = feed(service, tries, args.rate)
    wait_delivered(service, port, before + len(tries))
    deliveries.wait_idle(60)
    cpu = time.process_time() - cpu0 - fed
    stop.set()
    runner.join()
    Webhooks.send = send  # type: ignore[method-assign]
    stats = pstats.Stats(profiles[0])
    for p in profiles[1:]:
        stats.add(p)
    stats.dump_stats(args.profile)
    print(f"profiled: {len(tries)} events, this process's CPU (under cProfile, the feeder's aside) {cpu / len(tries) * 1000:.3f} ms an event")
    stats.sort_stats("cumulative").print_stats(60)
    stats.sort_stats("tottime").print_stats(40)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=150.0, help="events handed over a second")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--profile", metavar="FILE")
    parser.add_argument("--py-spy", metavar="FILE", help="py-spy's on-CPU samples of the worker (collapsed stacks) to FILE")
    parser.add_argument("--receiver", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.receiver:
        serve_receiver()
        return 0

    from api.config import Settings
    from api.service.service import Service
    from workers.redis_server import RedisServer

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stopped: its Redis and receiver too
    with tempfile.TemporaryDirectory() as tmp:
        redis_server = RedisServer(Path(tmp) / "redis", persistent=False)
        url = redis_server.start()
        receiver = subprocess.Popen([sys.executable, __file__, "--receiver"], stdout=subprocess.PIPE, start_new_session=True)
        try:
            port = int(receiver.stdout.readline())  # type: ignore[union-attr]
            env = dict(os.environ, DOMINO_REDIS_URL=url, DOMINO_RATE_LIMIT="100000000/60", DOMINO_GAMES_PER_CLIENT="0",
                       DOMINO_WEBHOOK_ALLOW_PRIVATE="1", DOMINO_DATA_DIR=tmp, PYTHONPATH=str(ROOT))  # fmt: skip
            service = Service(Settings.from_env(env))
            key = service.create_app("bench-app", f"http://127.0.0.1:{port}/hooks", "100000000/60", 0, "turn.started").key
            print(f"webhooks worker CPU per delivered turn.started event: {args.events} events a run at {args.rate:.0f}/s, "
                  f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}", flush=True)
            if args.profile:
                profile_run(service, key, port, args)
                return 0
            figures = [one_run(service, env, key, port, receiver.pid, args) for _ in range(args.runs)]
            if args.runs > 1:
                for name in figures[0]:
                    values = [f[name] for f in figures]
                    print(f"  {name}: median {statistics.median(values):.3f} [{min(values):.3f}, {max(values):.3f}]")
            return 0
        finally:
            receiver.terminate()
            receiver.wait(10)
            redis_server.stop()


if __name__ == "__main__":
    sys.exit(main())

"""Start a ``domino-worker`` process of one kind, idle or busy, send it SIGTERM and see what happens: how long it
took to exit, with which code, whether its job finished or went back to the front of its queue, and whether
anything (a work horse) was left behind. Used by ``test_worker_stop.py`` and ``bench/worker_stop.py``.

Busy means a job is running when SIGTERM comes: on the non-forking kinds, a queue of short jobs (a fraction of
a second each, as their jobs are); on ``simulations``, a job far longer than the 10 s a worker has to stop,
which must go back to the front of its queue.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from rq import Queue, Worker
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry

from api.queues import SERIALIZER

# Each kind as domino-serve runs it, with the queue its busy jobs go to.
KINDS = {
    "bots --sweep": (["bots", "--sweep"], "bots"),
    "bots": (["bots"], "bots"),
    "bot-games": (["bot-games", "--nice", "10"], "bot-games"),
    "webhooks": (["webhooks"], "webhooks"),
    "simulations": (["simulations"], "simulations"),
    "archive": (["archive"], "archive"),  # its batches are short; a killed one's comes back with its lease
}
LONG_JOB_KINDS = {"simulations"}  # the forking workers: a running job is put back, not waited for
SHORT_JOB_SECONDS = 0.3
LONG_JOB_SECONDS = 120.0
STOP_CEILING = 10.0  # the promise: every worker exits within 10 s of SIGTERM


@dataclass
class Outcome:
    kind: str
    busy: bool
    seconds: float | None  # from SIGTERM to exit; None: still running at the ceiling (then killed)
    exit_code: int | None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.seconds is not None and not self.problems

    def __str__(self) -> str:
        took = f"{self.seconds:.2f} s" if self.seconds is not None else f"not within {STOP_CEILING:g} s"
        state = "busy" if self.busy else "idle"
        return f"{self.kind} ({state}): {took}, exit {self.exit_code}" + "".join(f"; {p}" for p in self.problems)


def environment(redis_url: str) -> dict[str, str]:
    """The environment of the workers of one run: its own key prefix and queue names on ``redis_url``."""
    tag = uuid.uuid4().hex[:8]
    return {
        **os.environ,
        "DOMINO_REDIS_URL": redis_url,
        "DOMINO_KEY_PREFIX": f"stop-{tag}",
        "DOMINO_BOTS_QUEUE": f"bots-{tag}",
        "DOMINO_BOT_GAMES_QUEUE": f"bot-games-{tag}",
        "DOMINO_SIMULATIONS_QUEUE": f"simulations-{tag}",
        "DOMINO_WEBHOOKS_QUEUE": f"webhooks-{tag}",
        "DOMINO_ARCHIVE_QUEUE": f"archive-{tag}",
        "DOMINO_LOG_LEVEL": "WARNING",
        "DOMINO_RQ_LOG_LEVEL": "WARNING",
        "PYTHONFAULTHANDLER": "1",
    }


def queue_of(env: dict[str, str], kind: str, conn) -> Queue:  # type: ignore[no-untyped-def]
    purpose = KINDS[kind][1]
    return Queue(
        env[f"DOMINO_{purpose.upper().replace('-', '_')}_QUEUE"],
        connection=conn,
        serializer=SERIALIZER,
    )


def cpu_hogs(n: int = 2) -> list[subprocess.Popen[bytes]]:
    """``n`` CPU-bound processes, the load the workers are stopped beside."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(n)]


def end_hogs(hogs: list[subprocess.Popen[bytes]]) -> None:
    for hog in hogs:
        hog.kill()
        hog.wait()


def catches_sigterm(pid: int) -> bool:
    """Whether the process has a handler of its own for SIGTERM (its bit in /proc's caught-signals mask)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = int(
        next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")),
        16,
    )
    return bool(caught & (1 << (signal.SIGTERM - 1)))


def children(pid: int) -> set[int]:
    """The live child processes of ``pid`` (a forking worker's work horse)."""
    found: set[int] = set()
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            found.update(int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split())
    except OSError:
        pass
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, which has exited, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait(condition, seconds: float, what: str, proc: subprocess.Popen[bytes]):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not (value := condition()):
        if proc.poll() is not None:
            raise RuntimeError(f"the worker exited with {proc.returncode} before {what}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {seconds:g} s")
        time.sleep(0.02)
    return value


def stop_once(env: dict[str, str], kind: str, busy: bool, conn, log_dir: str | None = None) -> Outcome:  # type: ignore[no-untyped-def]
    """Start a worker of ``kind``, make it busy or leave it idle, SIGTERM it and report (see the module)."""
    queue = queue_of(env, kind, conn)
    queue.empty()
    log = tempfile.NamedTemporaryFile(prefix="worker-stop-", suffix=".log", dir=log_dir, delete=False)  # noqa: SIM115
    cmd = [
        sys.executable,
        "-m",
        "workers.cli",
        "worker",
        *KINDS[kind][0],
        "--log-level",
        "WARNING",
    ]
    proc = subprocess.Popen(
        cmd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    horses: set[int] = set()
    jobs: list[Job] = []
    try:
        # Listening (registered on its queue) and stoppable (its own SIGTERM handler installed).
        _wait(
            lambda: any(w.pid == proc.pid for w in Worker.all(queue=queue)),
            60,
            "registered",
            proc,
        )
        _wait(lambda: catches_sigterm(proc.pid), 60, "a SIGTERM handler", proc)
        if busy:
            jobs = _make_busy(kind, queue, proc)
            horses = children(proc.pid)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(STOP_CEILING)
            seconds: float | None = time.monotonic() - t0
        except subprocess.TimeoutExpired:
            seconds = None
            os.killpg(proc.pid, signal.SIGABRT)  # PYTHONFAULTHANDLER: its threads' stacks go to the log
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        outcome = Outcome(kind, busy, seconds, proc.returncode)
        outcome.problems += _check_after(outcome, queue, jobs, horses, proc.pid)
        if not outcome.ok:
            outcome.problems.append(f"log {log.name}: {Path(log.name).read_text()[-3000:]!r}")
        else:
            os.unlink(log.name)
        return outcome
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for horse in horses:
            if alive(horse):
                os.kill(horse, signal.SIGKILL)
        log.close()
        for job in jobs:
            job.delete(remove_from_queue=True)


def _make_busy(kind: str, queue: Queue, proc: subprocess.Popen[bytes]) -> list[Job]:
    """Queue the jobs that keep a worker of ``kind`` busy, and wait until it runs the first."""
    if kind in LONG_JOB_KINDS:
        jobs = [queue.enqueue("time.sleep", LONG_JOB_SECONDS, job_timeout=600)]
    else:
        jobs = [queue.enqueue("time.sleep", SHORT_JOB_SECONDS, job_timeout=60) for _ in range(20)]
    registry = StartedJobRegistry(queue=queue)
    _wait(lambda: registry.get_job_ids(), 60, "a job started", proc)
    if kind in LONG_JOB_KINDS:
        _wait(lambda: children(proc.pid), 60, "a work horse", proc)
    return jobs


def _check_after(outcome: Outcome, queue: Queue, jobs: list[Job], horses: set[int], pid: int) -> list[str]:
    problems = []
    if outcome.exit_code != 0 and outcome.seconds is not None:
        problems.append(f"exit code {outcome.exit_code}, not 0")
    if any(w.pid == pid for w in Worker.all(queue=queue)):
        problems.append("still registered")
    left = [h for h in horses if alive(h)]
    if left:
        problems.append(f"work horse(s) {left} left behind")
    if not jobs or outcome.seconds is None:
        return problems
    statuses = [job.get_status(refresh=True) for job in jobs]
    started = [job.id for job, status in zip(jobs, statuses) if status == JobStatus.STARTED]
    if started:
        problems.append(f"job(s) {started} left started")
    if outcome.kind in LONG_JOB_KINDS:
        if queue.job_ids[:1] != [jobs[0].id] or statuses[0] != JobStatus.QUEUED:
            problems.append(f"the long job is {statuses[0]}, queue head {queue.job_ids[:1]}: not back at the front")
    elif JobStatus.FINISHED not in statuses:
        problems.append("the running short job did not finish")
    return problems

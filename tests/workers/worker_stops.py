"""Start ``domino-worker`` processes of every kind, some idle and some busy, send them SIGTERM together and see
what happens to each: how long it took to exit, with which code, whether its job finished or went back to the
front of its queue, whether it deregistered, and whether anything (a work horse) was left behind. Used by
``test_worker_stop.py`` and ``bench/worker_stop.py``.

Busy means a job is running when SIGTERM comes: on the non-forking kinds, a queue of short jobs (a fraction of a
second each, as their jobs are), of which the running one must finish; on ``simulations`` and ``analysis``, a job far longer
than the 10 s a worker has to stop, which must go back to the front of its queue. Each process has queues of
its own, so that its jobs are its own.
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

from rq import Queue, Retry, Worker
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry
from support import catches_sigterm

from api.queues import SERIALIZER

# Each kind as domino-serve runs it, with the queue its busy jobs go to.
KINDS = {
    "bots --sweep": (["bots", "--sweep"], "bots"),
    "bots": (["bots"], "bots"),
    "bot-games": (["bot-games", "--nice", "10"], "bot-games"),
    "webhooks": (["webhooks"], "webhooks"),
    "simulations": (["simulations"], "simulations"),
    "archive": (["archive"], "archive"),
    "hints": (["hints"], "hints"),
    "analysis": (["analysis"], "analysis"),
}
LONG_JOB_KINDS = {"simulations", "analysis"}  # the forking workers: a running job is put back, not waited for
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


def cpu_hogs(n: int = 2) -> list[subprocess.Popen[bytes]]:
    """``n`` CPU-bound processes, the load the workers are stopped beside."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(n)]


def end_hogs(hogs: list[subprocess.Popen[bytes]]) -> None:
    for hog in hogs:
        hog.kill()
        hog.wait()


def children(pid: int) -> set[int]:
    """The child processes of ``pid`` (a forking worker's work horse)."""
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


class Started:
    """One worker process of ``kind`` on queues of its own, its log in a temporary file."""

    def __init__(self, redis_url: str, conn, kind: str, busy: bool) -> None:  # type: ignore[no-untyped-def]
        self.kind, self.busy = kind, busy
        tag = uuid.uuid4().hex[:8]
        self.archive = Path(tempfile.gettempdir()) / f"worker-stop-{tag}.sqlite3"
        self.env = {
            **os.environ,
            "DOMINO_REDIS_URL": redis_url,
            "DOMINO_KEY_PREFIX": f"stop-{tag}",
            "DOMINO_BOTS_QUEUE": f"bots-{tag}",
            "DOMINO_BOT_GAMES_QUEUE": f"bot-games-{tag}",
            "DOMINO_SIMULATIONS_QUEUE": f"simulations-{tag}",
            "DOMINO_WEBHOOKS_QUEUE": f"webhooks-{tag}",
            "DOMINO_ARCHIVE_QUEUE": f"archive-{tag}",
            "DOMINO_ANALYSIS_QUEUE": f"analysis-{tag}",
            "DOMINO_HINTS_QUEUE": f"hints-{tag}",
            "DOMINO_ARCHIVE_URL": f"sqlite:///{self.archive}",
            "DOMINO_LOG_LEVEL": "WARNING",
            "DOMINO_RQ_LOG_LEVEL": "WARNING",
            "PYTHONFAULTHANDLER": "1",  # SIGABRT, sent when it does not stop, writes every thread's stack
        }
        purpose = KINDS[kind][1]
        name = self.env[f"DOMINO_{purpose.upper().replace('-', '_')}_QUEUE"]
        self.queue = Queue(name, connection=conn, serializer=SERIALIZER)
        self.jobs: list[Job] = []
        self.horses: set[int] = set()
        self.log = tempfile.NamedTemporaryFile(prefix="worker-stop-", suffix=".log", delete=False)  # noqa: SIM115
        cmd = [sys.executable, "-m", "workers.cli", "worker", *KINDS[kind][0], "--log-level", "WARNING"]
        self.proc = subprocess.Popen(cmd, env=self.env, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, start_new_session=True)  # fmt: skip
        self.signalled_at = 0.0
        self.exited_at: float | None = None

    def ready(self) -> bool:
        """Listening (registered on its queue) and stoppable (its own SIGTERM handler installed)."""
        self._check_running("it was ready")
        return catches_sigterm(self.proc.pid) and any(w.pid == self.proc.pid for w in Worker.all(queue=self.queue))

    def make_busy(self) -> None:
        """Queue the jobs that keep it busy (see the module)."""
        if self.kind in LONG_JOB_KINDS:
            self.jobs = [self.queue.enqueue("time.sleep", LONG_JOB_SECONDS, job_timeout=600, retry=Retry(max=2))]
        else:
            self.jobs = [self.queue.enqueue("time.sleep", SHORT_JOB_SECONDS, job_timeout=60) for _ in range(20)]

    def working(self) -> bool:
        """Whether its first job has started (and, when it forks, its work horse runs)."""
        self._check_running("its job started")
        if not StartedJobRegistry(queue=self.queue).get_job_ids():
            return False
        if self.kind in LONG_JOB_KINDS:
            self.horses = children(self.proc.pid)
            return bool(self.horses)
        return True

    def terminate(self) -> None:
        self.signalled_at = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)

    def exited(self) -> bool:
        """Whether it has exited (its time noted the first time it is seen so)."""
        if self.exited_at is None and self.proc.poll() is not None:
            self.exited_at = time.monotonic()
        return self.exited_at is not None

    def outcome(self) -> Outcome:
        """How it went: killed (and its stacks logged) if it has not exited STOP_CEILING after its SIGTERM."""
        if not self.exited():
            self._kill()
        seconds = None if self.exited_at is None else self.exited_at - self.signalled_at
        if seconds is not None and seconds > STOP_CEILING:
            seconds = None
        outcome = Outcome(self.kind, self.busy, seconds, self.proc.returncode)
        outcome.problems += self._problems(outcome)
        return outcome

    def close(self, keep_log: bool) -> str:
        """Kill whatever is left, delete its jobs; its log's text (kept on disk when ``keep_log``)."""
        self._kill()
        for horse in self.horses:
            if alive(horse):
                os.kill(horse, signal.SIGKILL)
        for job in self.jobs:
            job.delete(remove_from_queue=True)
        self.log.close()
        self.archive.unlink(missing_ok=True)
        text = Path(self.log.name).read_text(errors="replace")
        if not keep_log:
            os.unlink(self.log.name)
        return text

    def _check_running(self, what: str) -> None:
        if self.proc.poll() is not None:
            raise RuntimeError(f"{self.kind}: the worker exited with {self.proc.returncode} before {what}")

    def _kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGABRT)  # its threads' stacks to the log (PYTHONFAULTHANDLER)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def _problems(self, outcome: Outcome) -> list[str]:
        problems = []
        if outcome.exit_code != 0 and outcome.seconds is not None:
            problems.append(f"exit code {outcome.exit_code}, not 0")
        if any(w.pid == self.proc.pid for w in Worker.all(queue=self.queue)):
            problems.append("still registered")
        left = [h for h in self.horses if alive(h)]
        if left:
            problems.append(f"work horse(s) {left} left behind")
        if not self.jobs or outcome.seconds is None:
            return problems
        statuses = [job.get_status(refresh=True) for job in self.jobs]
        started = [job.id for job, status in zip(self.jobs, statuses) if status == JobStatus.STARTED]
        if started:
            problems.append(f"job(s) {started} left started")
        if self.kind in LONG_JOB_KINDS:
            if self.queue.job_ids[:1] != [self.jobs[0].id] or statuses[0] != JobStatus.QUEUED:
                problems.append(f"the long job is {statuses[0]}, not queued first")
            elif Job.fetch(self.jobs[0].id, connection=self.queue.connection, serializer=SERIALIZER).retries_left != 2:
                problems.append("the long job lost a retry")
        elif JobStatus.FINISHED not in statuses:
            problems.append("the running short job did not finish")
        return problems


def stop_together(redis_url: str, conn, plan: list[tuple[str, bool]]) -> list[Outcome]:  # type: ignore[no-untyped-def]
    """Start a worker for each ``(kind, busy)`` of ``plan`` at once, make the busy ones busy, SIGTERM them all
    at once (as domino-serve and docker compose do), and report on each (failures with its log's end)."""
    started = [Started(redis_url, conn, kind, busy) for kind, busy in plan]
    outcomes: list[Outcome] = []
    try:
        _wait_all(started, Started.ready, "ready")
        busy = [s for s in started if s.busy]
        for s in busy:
            s.make_busy()
        _wait_all(busy, Started.working, "busy")
        for s in started:
            s.terminate()
        _wait_all(started, Started.exited, "exited", STOP_CEILING, interval=0.005, fail=False)
        outcomes = [s.outcome() for s in started]
    finally:
        for i, s in enumerate(started):
            ok = i < len(outcomes) and outcomes[i].ok
            log = s.close(keep_log=not ok)
            if i < len(outcomes) and not ok:
                outcomes[i].problems.append(f"log {s.log.name} ends: {log[-3000:]!r}")
    return outcomes


def _wait_all(started: list[Started], condition, what: str, seconds: float = 120.0, interval: float = 0.02, fail: bool = True) -> None:  # type: ignore[no-untyped-def]
    """Until ``condition`` holds for every one (a ceiling: the machine may be busy), all watched at once."""
    deadline = time.monotonic() + seconds
    waiting = list(started)
    while waiting:
        waiting = [s for s in waiting if not condition(s)]
        if waiting and time.monotonic() > deadline:
            if fail:
                raise RuntimeError(f"{[s.kind for s in waiting]}: not {what} within {seconds:g} s")
            return
        time.sleep(interval)

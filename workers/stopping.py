"""How a worker process stops on SIGTERM (or SIGINT): within seconds, whatever it is doing (issue 36).

RQ's own handling did not always end the process:
- At its teardown RQ 3 stops the thread of its command channel (a pub/sub subscription) with redis-py 8's
  ``PubSubWorkerThread.stop()``, which joins the thread without a limit while that thread waits up to 60 s for
  a message: about one stop in five hung there, idle or busy, on every kind of worker. Ours have no command
  channel (nothing sends them RQ commands; signals stop them), so there is no such thread.
- A forking worker waited for its work horse however long the job (a simulation chunk may run for minutes);
  a second signal killed the horse and left the job "started" until its heartbeat lapsed and the sweep handed
  it back, counting a retry.
- RQ's handler writes to Redis inside the signal handler; ours only sets flags.

Here the first signal stops the worker taking jobs, and an idle worker leaves its blocking read at once. A
non-forking worker finishes its running job (bot turns and deliveries are short, bounded by their own
timeouts). A forking worker gives its running job ``DOMINO_WORKER_STOP_GRACE`` seconds, looking every
``DOMINO_WORKER_STOP_CHECK`` seconds; then it kills the horse and puts the job back at the front of its queue,
as if never started (no retry counted), where another worker takes it up. ``workers.cli`` then ends the
process with ``os._exit``, so no thread keeps it alive.
"""

from __future__ import annotations

import time
from types import FrameType
from typing import Any

from rq import Queue, SimpleWorker, Worker
from rq.exceptions import StopRequested
from rq.executions import Execution
from rq.job import Job
from rq.worker import BaseWorker, WorkerStatus

from workers import full
from workers.full import OutlastingFull


def stop_after_current_job(worker: BaseWorker) -> None:
    """Make RQ's work loop end before it takes another job. The one RQ internal used here (``_stop_requested``,
    which ``BaseWorker.work`` checks between jobs in rq 3.0); tests/workers/test_stopping.py guards it."""
    worker._stop_requested = True


class _Stopping:
    """What our two worker classes share (first among their bases, before RQ's class)."""

    stop_signalled_at: float | None = None  # time.monotonic() of the first SIGTERM or SIGINT

    def request_stop(self: Any, signum: int, frame: FrameType | None) -> None:
        """The SIGTERM and SIGINT handler (RQ installs ``request_stop``): flags, and no I/O, which a handler
        must not start on a connection its main thread may be using."""
        if self.stop_signalled_at is not None:
            return  # already stopping: a second signal changes nothing
        self.stop_signalled_at = time.monotonic()
        full.STOPPING.set()  # a wait for room in a full Redis ends
        stop_after_current_job(self)
        if self.get_state() != WorkerStatus.BUSY:
            raise StopRequested()  # out of the blocking dequeue; RQ's work loop ends on it

    def subscribe(self) -> None:
        """No command channel (see the module)."""

    def unsubscribe(self) -> None:
        """No command channel (see the module)."""


class NonForkingWorker(_Stopping, OutlastingFull, SimpleWorker):
    """Runs each job in its own process (bots, bot-games, webhooks: short jobs); on a signal, finishes it."""


class ForkingWorker(_Stopping, OutlastingFull, Worker):
    """Runs each job in a forked work horse (simulations: long jobs); on a signal, gives the running job
    ``stop_grace`` seconds, then puts it back at the front of its queue. Give it ``job_monitoring_interval``:
    how often it looks (``DOMINO_WORKER_STOP_CHECK``)."""

    def __init__(self, *args: Any, stop_grace: float = 3.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stop_grace = stop_grace
        self.putting_back: str | None = None  # the id of the job whose horse we killed to stop

    def maintain_heartbeats(self, job: Job, execution: Execution) -> None:
        """Called by RQ every ``job_monitoring_interval`` while the horse runs: also the stop check."""
        super().maintain_heartbeats(job, execution)
        signalled = self.stop_signalled_at
        if signalled is not None and time.monotonic() - signalled >= self.stop_grace and self.horse_pid:
            self.putting_back = job.id
            self.kill_horse()  # SIGKILL to its process group: RQ's wait for the horse then ends

    def handle_job_failure(
        self,
        job: Job,
        queue: Queue,
        started_job_registry: Any = None,
        exc_string: str = "",
        execution: Execution | None = None,
    ) -> None:
        """RQ's handling of a horse that died, except for the one we killed to stop: that job goes back."""
        if job.id != self.putting_back:
            super().handle_job_failure(job, queue, started_job_registry, exc_string, execution)
            return
        self.putting_back = None
        put_back(self, job, queue, execution)
        self.log.warning(
            "Worker %s: stopping; job %s put back at the front of %s",
            self.name,
            job.id,
            queue.name,
        )


def put_back(worker: BaseWorker, job: Job, queue: Queue, execution: Execution | None) -> None:
    """``job`` at the front of ``queue`` as if it had not started, its retries untouched (it did not fail: its
    worker stopped). Queued first, then its execution dropped from the started jobs: a crash between the two
    leaves it queued, never lost (another worker may take it at once; its own execution is another)."""
    job.started_at = job.ended_at = None
    queue.enqueue_job(job, at_front=True)  # its own transaction: RQ's enqueue wants a fresh pipeline
    with worker.connection.pipeline() as pipe:
        worker.cleanup_execution(job, pipeline=pipe, execution=execution)
        pipe.execute()

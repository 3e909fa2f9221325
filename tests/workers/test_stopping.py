"""workers/stopping.py against the RQ it was written for: each test guards one thing it relies on, and fails
with a message that says what an RQ upgrade changed. The stops themselves (processes, signals, beside busy
CPUs) are test_worker_stop.py's, in the slow tier."""

from __future__ import annotations

import inspect
import signal

from rq import Queue, Worker
from rq.registry import StartedJobRegistry

from api.queues import SERIALIZER, Queues
from workers.stopping import ForkingWorker, NonForkingWorker, put_back, stop_after_current_job


def _queue(service) -> Queue:  # type: ignore[no-untyped-def]
    return Queues(service.store).simulations


def test_rq_installs_request_stop_as_the_sigterm_and_sigint_handler(service) -> None:
    worker = NonForkingWorker([_queue(service)], connection=service.store.worker_connection(), serializer=SERIALIZER)
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        worker._install_signal_handlers()  # what BaseWorker.work calls before its loop
        for sig in before:
            assert signal.getsignal(sig) == worker.request_stop, (
                f"RQ no longer installs Worker.request_stop for {sig.name}: workers/stopping.py's handler is not called"
            )
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def test_rq_work_loop_ends_on_the_stop_flag_before_taking_a_job(service) -> None:
    queue = _queue(service)
    queue.enqueue("time.sleep", 0)
    worker = NonForkingWorker([queue], connection=service.store.worker_connection(), serializer=SERIALIZER)
    worker.subscribe()  # no command channel: nothing to start
    stop_after_current_job(worker)
    worked = worker.work(burst=True, logging_level="WARNING")
    assert not worked and queue.count == 1, (
        "RQ's work loop no longer ends on `_stop_requested` (workers.stopping.stop_after_current_job)"
    )


def test_rq_forking_worker_calls_the_hooks_the_stop_uses() -> None:
    monitor = inspect.getsource(Worker.monitor_work_horse)
    for hook in ("maintain_heartbeats", "handle_job_failure", "job_monitoring_interval"):
        assert hook in monitor, f"RQ's Worker.monitor_work_horse no longer uses {hook}: ForkingWorker cannot stop a job"
    assert list(inspect.signature(Worker.handle_job_failure).parameters) == [
        "self", "job", "queue", "started_job_registry", "exc_string", "execution",
    ], "RQ's Worker.handle_job_failure changed its parameters: ForkingWorker overrides it"  # fmt: skip


def test_a_job_put_back_is_first_in_its_queue_not_started_and_keeps_its_retries(service) -> None:
    from rq import Retry

    queue = _queue(service)
    conn = service.store.worker_connection()
    worker = ForkingWorker([queue], connection=conn, serializer=SERIALIZER)
    worker.register_birth()
    try:
        long = queue.enqueue("time.sleep", 60, retry=Retry(max=2))
        later = queue.enqueue("time.sleep", 0)
        job, _ = Queue.dequeue_any([queue], None, connection=conn, serializer=SERIALIZER)
        assert job.id == long.id
        execution = worker.prepare_execution(job)
        registry = StartedJobRegistry(queue=queue)
        assert registry.get_job_ids() == [long.id]

        put_back(worker, job, queue, execution)

        assert queue.job_ids == [long.id, later.id]
        assert registry.get_job_ids() == []
        again = queue.fetch_job(long.id)
        assert again is not None and again.get_status() == "queued" and again.retries_left == 2
    finally:
        worker.register_death()

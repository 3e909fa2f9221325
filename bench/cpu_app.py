"""The API and the floor as bench/api_load.py serves them: each answer says what CPU time it cost the server.

``gunicorn 'cpu_app:api()'`` (with ``--pythonpath bench``) serves ``api.app:serve()``, and
``gunicorn 'cpu_app:floor()'`` serves bench/floor_app.py (its objects frozen out of the cyclic collector
as ``serve()`` freezes the API's), behind a WSGI wrapper that adds
``Server-Timing: cpu;dur=<ms>``: the CPU time of the thread that handled the request (a gunicorn
sync worker handles one request at a time on one thread), from the moment the request reached the app until
its answer was built (Flask builds it before it returns; for a streamed answer, only until the stream
starts). Gunicorn's own parsing and socket writes are outside it, and so are Redis' and the event streams'
work (the bench measures those from /proc over the whole run). Only the bench serves this: the product's
answers never carry it.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable
from typing import Any

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def with_server_cpu(app: WSGIApp) -> WSGIApp:
    def measured(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        t0 = time.thread_time_ns()
        started: list[tuple[Any, ...]] = []
        body = app(environ, lambda *args: started.append(args))
        status, headers, *exc_info = started[0]
        cpu_ms = (time.thread_time_ns() - t0) / 1e6
        start_response(status, [*headers, ("Server-Timing", f"cpu;dur={cpu_ms:.3f}")], *exc_info)
        return body

    return measured


def api() -> WSGIApp:
    from api.app import serve

    return with_server_cpu(serve())


def floor() -> WSGIApp:
    from floor_app import app

    gc.freeze()  # as api.app.serve() freezes the API's
    return with_server_cpu(app)

"""Every request's hooks, as steps the app (:class:`api.framework.App`) calls in a fixed order.

Flask calls each registered hook through layers of its own; the steps, called directly, cost less on every
move. Before the view: the cap on a client's requests in flight (first: it costs no Redis round trip), the
rate limit (before the guard: requests the guard refuses count too), the operation's credentials and query
parameters, the body guard, the metrics' timer
(started only for a request let in). After it, on every answer:
the HTML pages' policy, the metrics, CORS, ``X-Request-ID``, the ``RateLimit`` headers.
"""

from __future__ import annotations

from typing import Any

import flask
import orjson
from apispec import APISpec
from werkzeug.wsgi import get_content_length

from api import bodyread, cors, errors, inflight, metrics, operations, ratelimit, web
from api.config import Settings
from api.extensions import PROBLEM_JSON, problem_response, request_id
from api.framework import App, Before
from api.wrappers import ApiRequest
from api.jsonbody import nesting_depth, repeated_key
from domino.notation import MEDIA_TYPE as RECORD_TEXT

BODY_METHODS = frozenset(("POST", "PUT", "PATCH"))


def install(app: App, settings: Settings, spec: APISpec) -> None:
    """The steps, in their order (after the routes: ``/metrics`` is one). Under Flask, WSGI layers: from the
    outside in, who the client is (``ProxyFix``), its requests in flight, the body's deadline. An operation's
    credentials and query (:mod:`api.operations`) are checked before its body."""
    bodyread.install(app, settings)
    in_flight = inflight.install(app, settings)
    limiter = ratelimit.setup(app, settings)
    observer = metrics.install(app)
    guard = body_guard(app, settings.max_body_depth, settings.body_timeout)
    app.before_steps = (in_flight, limiter.before, operations.checks(app, spec), guard, observer.start)
    answer = (web.protect, observer.observe, cors.answer_headers(settings), request_id_header, limiter.after)
    app.after_steps = tuple(step for step in answer if step)


def request_id_header(req: ApiRequest, resp: flask.Response) -> None:
    resp.headers.add("X-Request-ID", request_id(req))  # no view sets it: no need to look for it first


def _offered(req: flask.Request) -> tuple[str, ...]:
    if req.path.endswith("/events"):
        return ("application/json", PROBLEM_JSON, "text/event-stream")
    if req.path.endswith("/record"):
        return ("application/json", PROBLEM_JSON, RECORD_TEXT)
    if req.path == "/v1/games/export":
        return ("application/x-ndjson", PROBLEM_JSON, RECORD_TEXT)
    return ("application/json", PROBLEM_JSON)


def _acceptable(req: flask.Request) -> bool:
    return req.accept_mimetypes.best_match(_offered(req)) is not None


def body_guard(app: flask.Flask, max_depth: int, timeout: float) -> Before:
    """Before any view: API answers must be acceptable (406), bodies JSON (415), at most the limit (413), in
    within ``timeout`` seconds (408, :mod:`api.bodyread`), and parse (400).

    The body is parsed once, here, with orjson, which also refuses what JSON does not allow (NaN,
    Infinity, nesting deeper than 1024, invalid UTF-8); nesting deeper than ``max_depth`` is a 422.
    :class:`api.extensions.BodyParser` hands the result to webargs."""

    def guard(req: ApiRequest) -> flask.Response | None:
        if req.path.startswith("/v1/") and "HTTP_ACCEPT" in req.environ and req.accept_mimetypes and not _acceptable(req):
            return problem_response(
                errors.NOT_ACCEPTABLE, f"This answers {' or '.join(_offered(req))}, not {req.headers['Accept']!r}."
            )
        if req.method not in BODY_METHODS or req.url_rule is None:
            return None
        length = get_content_length(req.environ)  # req.content_length, read from the environ directly
        view = app.view_functions.get(req.endpoint or "")
        if getattr(view, "takes_no_body", False) and not length and "HTTP_TRANSFER_ENCODING" not in req.environ:
            return None  # e.g. POST .../resign: nothing to send, so no Content-Type either
        limit = app.config["MAX_CONTENT_LENGTH"]
        if length is not None and length > limit:
            return problem_response(errors.PAYLOAD_TOO_LARGE, f"The body is over {limit} bytes.")
        content_type = req.environ.get("CONTENT_TYPE")
        mimetype = content_type if content_type == "application/json" else req.mimetype or ""  # parsed if need be
        if mimetype != "application/json" and not (mimetype.startswith("application/") and mimetype.endswith("+json")):
            return problem_response(
                errors.UNSUPPORTED_MEDIA_TYPE, f"Send the body as application/json (got {mimetype or 'none'!r})."
            )
        req.max_content_length = limit  # what Flask would look up in the app's config, twice, to read the body
        try:
            raw = req.get_data(cache=True)
            more = length is None and len(raw) >= limit and req.input_stream.read(1)
        except bodyread.BodyTimeout:
            return problem_response(errors.REQUEST_TIMEOUT, f"The body did not arrive within {timeout:g} s.")
        except Exception:  # noqa: BLE001  # the server's body reader (gunicorn's errors are its own types): a
            # malformed chunked body (bad size, missing CRLF) or one cut short is the client's, not a bug
            detail = "The body could not be read: its chunked encoding is malformed, or it was cut short."
            return problem_response(errors.BAD_REQUEST, detail)
        if more:
            # A chunked body (no Content-Length) is cut at the limit by werkzeug, silently: more was sent.
            return problem_response(errors.PAYLOAD_TOO_LARGE, f"The body is over {limit} bytes.")
        body = _parsed(raw, max_depth)
        if isinstance(body, flask.Response):
            return body
        if getattr(view, "takes_no_body", False) and not getattr(view, "body_optional", False) and body != {}:
            detail = "This operation takes no body: send none, or {}."
            return problem_response(errors.INVALID_REQUEST, detail, {"errors": {"json": {"_schema": [detail]}}})
        req.json_body = body
        return None

    return guard


def _parsed(raw: bytes, max_depth: int) -> Any:
    """The body parsed (any JSON value), or the problem that answers it (a ``flask.Response``): not JSON (400),
    a number past a float (422), nested deeper than ``max_depth`` (422), a key repeated in an object (400)."""
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if str(exc).startswith("number is infinity"):  # 1e999: valid JSON, but no number of ours
            detail = "Numbers must be finite."
            return problem_response(errors.INVALID_REQUEST, detail, {"errors": {"json": {"_schema": [detail]}}})
        return problem_response(errors.BAD_REQUEST, "The body is not valid JSON.")
    depth = nesting_depth(body)
    if depth > max_depth:
        # Deep nesting is valid JSON but no request of ours; unchecked, it overflows recursive code later.
        detail = f"Arrays and objects may be nested at most {max_depth} deep."
        return problem_response(errors.INVALID_REQUEST, detail, {"errors": {"json": {"_schema": [detail]}}})
    repeated = repeated_key(raw, body) if depth else None
    if repeated is not None:
        # orjson keeps the last of repeated keys silently; two readers of one body must not disagree.
        return problem_response(errors.BAD_REQUEST, f"The body repeats the key {repeated[:40]!r} in one object.")
    return body

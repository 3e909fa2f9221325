"""The app's request class: what the hooks and the routes work out once per request, kept on the request
itself. (Its response class, and the request read without a proxy, are in :mod:`api.framework`.)"""

from __future__ import annotations

from typing import Any

import flask

from api.service.apps import App

NOT_PARSED = object()  # a body the body guard has not parsed (no body, or a request it let through unread)


class ApiRequest(flask.Request):
    """Flask's request (the app's ``request_class``), carrying what the hooks and the routes work out once per
    request as plain attributes: a read of ``flask.g`` costs a proxy and a context lookup every time."""

    json_body: Any = NOT_PARSED  # the body as the body guard parsed it
    caller: App | None = None  # the app whose key it carries, once caller_known (api.callers)
    caller_known = False
    request_id: str | None = None
    rate_limit_headers: dict[str, str] | None = None  # set when the request was counted and let in
    metrics_start: float | None = None  # set when the request was let in to its view

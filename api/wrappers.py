"""The app's request and response classes: what the hooks and the routes work out once per request, kept on
the request itself, and answers whose headers go out without a second copy."""

from __future__ import annotations

from typing import Any

import flask
from flask.globals import request_ctx
from werkzeug.datastructures import Headers

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


class ApiResponse(flask.Response):
    """Flask's response (the app's ``response_class``; our JSON answers and problems are made as one)."""

    def get_wsgi_headers(self, environ: dict[str, Any]) -> Headers:
        """werkzeug's, which copies the headers (each one checked again) to fix a few of them up; an answer
        with its length, a status that keeps it, and no location to resolve has nothing to fix: its own
        headers go out as they are."""
        status = self.status_code
        if status < 200 or status in (204, 304):
            return super().get_wsgi_headers(environ)
        sized = False
        for key, _value in self.headers:
            lower = key.lower()
            if lower == "content-length":
                sized = True
            elif lower in ("location", "content-location"):
                return super().get_wsgi_headers(environ)
        return self.headers if sized else super().get_wsgi_headers(environ)


def current_request() -> ApiRequest:
    """This request itself, without a proxy in between (``create_app`` makes every request an ApiRequest): the
    context's own object, asked of its proxy directly, as Flask does itself."""
    return request_ctx._get_current_object().request  # type: ignore[attr-defined,no-any-return]

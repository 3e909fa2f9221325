"""Who calls: an app, by its key (``Authorization: Bearer dsk_app_...``), or an anonymous client.

:func:`calling_app` resolves the key once per request (the rate limit does it first of all, since an app has
a limit of its own) and keeps the answer on the request. A bearer token with the app-key prefix that names
no current key is a 401 ``unauthorized``, never an anonymous request; any other bearer token (a seat's) is
not an app key, and the routes read it with ``bearer_token()``.
"""

from __future__ import annotations

from api.service.errors import Unauthorized
from api.extensions import current_service
from api.framework import current_request
from api.wrappers import ApiRequest
from api.service.apps import App, is_app_key


def presented_app_key(req: ApiRequest) -> str | None:
    """The app key of ``Authorization: Bearer <key>``, if that is what the header carries."""
    header = req.environ.get("HTTP_AUTHORIZATION")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and is_app_key(token) else None


def calling_app(req: ApiRequest | None = None) -> App | None:
    """The app whose key this request (``req``, or the current one) carries (None: no app key); Unauthorized
    for an unknown, rotated or revoked one."""
    req = req or current_request()
    if not req.caller_known:
        key = presented_app_key(req)
        req.caller = None if key is None else current_service().authenticate_app(key)
        req.caller_known = True
    return req.caller


def required_app() -> App:
    """The calling app; Unauthorized when the request carries no app key."""
    app = calling_app()
    if app is None:
        raise Unauthorized("This needs an app key: `Authorization: Bearer dsk_app_...`.")
    return app

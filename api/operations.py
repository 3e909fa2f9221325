"""What every API operation checks before its view, read from the OpenAPI document itself, so that an operation
added later is covered without a list to keep: credentials first (an operation whose `security` needs one
answers 401 to a request without a well-formed ``Authorization: Bearer <token>``, before it looks at anything
else), then the query (a parameter the operation does not document is a 422 ``invalid-request``, never
silently ignored). Pages that are not operations of the document (``/docs``, ``/play``, static files) are not
checked."""

from __future__ import annotations

import re
from typing import Any

import flask
from apispec import APISpec

from api import errors
from api.extensions import problem_response
from api.framework import Before
from api.wrappers import ApiRequest

_RULE_PARAMETER = re.compile(r"<(?:[^<>:]+:)?([^<>]+)>")  # Flask's `<int:seat>` is the document's `{seat}`
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
UNKNOWN_QUERY = "An unknown query parameter is a 422 `invalid-request` naming it (never silently ignored)."


class Operation:
    """One documented operation's checks: whether it needs credentials, and the query parameters it takes."""

    __slots__ = ("needs_credentials", "query")

    def __init__(self, needs_credentials: bool, query: frozenset[str]) -> None:
        self.needs_credentials = needs_credentials
        self.query = query


def operations(app: flask.Flask, spec: APISpec) -> dict[tuple[str, str], Operation]:
    """(Flask rule, method) -> its checks, for every route the document describes."""
    document = spec.to_dict()
    shared = document.get("components", {}).get("parameters", {})
    default_security = document.get("security", [])
    table: dict[tuple[str, str], Operation] = {}
    for rule in app.url_map.iter_rules():
        item = document["paths"].get(_RULE_PARAMETER.sub(r"{\1}", rule.rule))
        if item is None:
            continue
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            parameters = [_resolved(p, shared) for p in [*item.get("parameters", []), *operation.get("parameters", [])]]
            security = operation.get("security", default_security)
            needs = bool(security) and {} not in security
            query = frozenset(p["name"] for p in parameters if p.get("in") == "query")
            table[(rule.rule, method.upper())] = Operation(needs, query)
            if method == "get":  # HEAD is answered by the GET view
                table[(rule.rule, "HEAD")] = table[(rule.rule, "GET")]
    return table


def _resolved(parameter: dict[str, Any], shared: dict[str, Any]) -> dict[str, Any]:
    ref = parameter.get("$ref")
    return shared[ref.rsplit("/", 1)[-1]] if isinstance(ref, str) else parameter


def well_formed_bearer(header: str | None) -> bool:
    """``Bearer <token>``: the scheme (any case) and a token of at most 200 characters."""
    if header is None:
        return False
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    return scheme.lower() == "bearer" and 0 < len(token) <= 200


def checks(app: flask.Flask, spec: APISpec) -> Before:
    """The before-step: credentials, then the query, of the operation a request is routed to."""
    table: dict[tuple[str, str], Operation] | None = None

    def check(req: ApiRequest) -> flask.Response | None:
        nonlocal table
        if req.url_rule is None:
            return None
        if table is None:  # the document is complete once the app serves: built on the first request
            table = operations(app, spec)
        operation = table.get((req.url_rule.rule, req.method))
        if operation is None:
            return None
        if operation.needs_credentials and not well_formed_bearer(req.environ.get("HTTP_AUTHORIZATION")):
            return problem_response(errors.UNAUTHORIZED, "Send your credentials as `Authorization: Bearer <token>`.")
        if not req.environ.get("QUERY_STRING"):
            return None  # no query: nothing to parse (most requests, every move)
        unknown = sorted(name for name in req.args if name not in operation.query)
        if unknown:
            names = [name[:100] for name in unknown[:20]]  # the client's own words, bounded
            detail = f"Unknown query parameter{'s' if len(unknown) > 1 else ''}: {', '.join(names)}."
            members = {"errors": {"query": {name: ["unknown parameter"] for name in names}}}
            return problem_response(errors.INVALID_REQUEST, detail, members)
        return None

    return check

"""flask-smorest subclasses: RFC 9457 problem details for every error, helpers to document them, and
:func:`current_service` (the app's one Service, for routes and hooks). What they take of the libraries'
internals goes through :mod:`api.framework`."""

from __future__ import annotations

import http
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import flask
import flask_smorest
import marshmallow as ma
import orjson
from werkzeug.exceptions import HTTPException, InternalServerError
from werkzeug.routing import IntegerConverter

from api import errors
from api.service.errors import InvalidRequest
from api.resources.moves.schemas import MoveSchema
from api.service.service import Service
from api.framework import (
    ApiResponse, PreparsedJsonParser, SmorestApi, add_responses, current_app_object, current_request,
    doc_response_schema, documenting_only,
)  # fmt: skip
from api.wrappers import ApiRequest

log = logging.getLogger("api")

PROBLEM_JSON = "application/problem+json"

F = TypeVar("F", bound=Callable[..., Any])


class LastMoveSchema(ma.Schema):
    version = ma.fields.Integer(required=True, metadata={"description": "the version the move produced"})
    move = ma.fields.Nested(MoveSchema, required=True)


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details, one shape for every error: the five standard members, and the members a type
    adds (`errors` on every 422; `legal_moves`, `options`, `current_version`, `last_move`, `checks` where named)."""

    class Meta:
        unknown = ma.INCLUDE  # RFC 9457 extension members: the document allows more than those named here

    type = ma.fields.String(required=True, metadata={"description": "`/problems/<slug>`", "example": "/problems/illegal-move"})
    title = ma.fields.String(required=True)
    status = ma.fields.Integer(required=True)
    detail = ma.fields.String(required=True)
    instance = ma.fields.String(required=True, metadata={"description": "request path and `#` request id"})
    errors = ma.fields.Dict(
        metadata={
            "description": "422 (always there): where validation failed, by location (`json`, `query`, "
            "`headers`) and member, down to lists of messages"
        }
    )
    legal_moves = ma.fields.List(
        ma.fields.Nested(MoveSchema), metadata={"description": "illegal-move: the seat's own legal moves"}
    )
    options = ma.fields.List(ma.fields.Nested(MoveSchema), metadata={"description": "ambiguous-move: the places that fit"})
    current_version = ma.fields.Integer(metadata={"description": "version-mismatch: the game's version"})
    last_move = ma.fields.Nested(
        LastMoveSchema,
        allow_none=True,
        metadata={"description": "version-mismatch: the seat's last accepted move (null: none yet)"},
    )
    checks = ma.fields.Dict(metadata={"description": "readiness: what was checked"})


def current_service() -> Service:
    """The Service of the app handling this request (``create_app`` puts one in ``app.extensions``)."""
    return current_app_object().extensions["domino.service"]  # type: ignore[no-any-return]


def documented_as(converter: Any, field: ma.fields.Field[Any], ret: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """apispec attribute function: a field with ``metadata={"schema": {...}}`` is documented as exactly that
    (a union, a reference to a named type) instead of what apispec derives from its marshmallow type."""
    schema = field.metadata.get("schema")
    if schema is None:
        return {}
    ret.clear()
    return dict(schema)


def request_id(req: ApiRequest) -> str:
    rid = req.request_id
    if rid is None:
        rid = req.request_id = os.urandom(8).hex()  # secrets.token_hex(8), without its two calls in between
    return rid


def problem_response(
    ptype: errors.ProblemType, detail: str, members: dict[str, Any] | None = None, headers: dict[str, str] | None = None
) -> flask.Response:
    instance = ""
    if flask.has_request_context():
        req = current_request()
        instance = f"{req.path}#{request_id(req)}"
    body: dict[str, Any] = {
        "type": ptype.type,
        "title": ptype.title,
        "status": ptype.status,
        "detail": detail,
        "instance": instance,
    }
    if members:
        body.update({k: v for k, v in members.items() if k not in body})
    resp = ApiResponse(orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS), status=ptype.status, mimetype=PROBLEM_JSON)
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def _http_problem_type(code: int | None, name: str) -> errors.ProblemType:
    if code in errors.BY_STATUS:
        return errors.BY_STATUS[code]
    code = code or 500
    slug = name.lower().replace(" ", "-").replace("'", "")
    return errors.ProblemType(code, slug, name, name)


class Api(SmorestApi):
    """Answers every error as problem details and documents them so."""

    ERROR_SCHEMA = ProblemSchema
    ERROR_CONTENT_TYPE = PROBLEM_JSON  # the standard error responses, documented as problem details
    DEFAULT_ERROR_RESPONSE_NAME = None  # each operation documents its own errors
    FIELD_DOCUMENTERS = (documented_as,)

    def register_error_handlers(self, app: flask.Flask) -> None:
        app.register_error_handler(HTTPException, self.handle_http_exception)
        for cls in errors.MAPPED:
            app.register_error_handler(cls, self.handle_mapped_exception)

    def handle_mapped_exception(self, exc: BaseException) -> flask.Response:
        found = errors.problem_for(exc)
        assert found is not None
        ptype, detail, members = found
        if ptype.status >= 500:
            flask.current_app.extensions["domino.error_log"].warning(ptype.slug, "%s %s: %s", flask.request.method, flask.request.path, exc)
        headers = getattr(exc, "headers", None)
        if ptype is errors.STORAGE_FULL:
            headers = {"Retry-After": str(current_service().settings.storage_full_retry_after)}
        return problem_response(ptype, detail, members, headers)

    def handle_http_exception(self, error: HTTPException) -> flask.Response:
        data = getattr(error, "data", None) or {}
        ptype = _http_problem_type(error.code, error.name)
        members: dict[str, Any] = {}
        headers: dict[str, str] = dict(data.get("headers") or {})
        detail = data.get("message") or error.description or ptype.title
        if "errors" in data:
            members["errors"] = data["errors"]
        elif "messages" in data:
            members["errors"] = data["messages"]
        if error.code == 400 and "messages" in data:
            detail = "The body is not valid JSON."
            members.pop("errors", None)
        if error.code == 422 and "message" not in data:
            detail = "The request failed validation; see `errors`."
        if error.code == 405:
            valid = getattr(error, "valid_methods", None)
            if valid:
                headers["Allow"] = ", ".join(valid)
        if isinstance(error, InternalServerError):
            original = getattr(error, "original_exception", None)
            if original is not None:
                log.exception("unhandled error on %s %s", flask.request.method, flask.request.path, exc_info=original)
            detail = errors.INTERNAL.description
        return problem_response(ptype, detail, members, headers)


def _example(ptype: errors.ProblemType, path: str) -> dict[str, Any]:
    ex: dict[str, Any] = {
        "type": ptype.type,
        "title": ptype.title,
        "status": ptype.status,
        "detail": ptype.description,
        "instance": f"{path}#3f9c0d1e2a4b5c6d",
    }
    if ptype is errors.ILLEGAL_MOVE:
        ex["legal_moves"] = [{"type": "play", "tile": "5-2", "end": "left"}, {"type": "draw"}]
    elif ptype is errors.AMBIGUOUS_MOVE:
        ex["options"] = [{"type": "play", "tile": "6-4", "end": "left"}, {"type": "play", "tile": "6-4", "end": "right"}]
    elif ptype is errors.VERSION_MISMATCH:
        ex["current_version"] = 18
        ex["last_move"] = {"version": 17, "move": {"type": "play", "tile": "6-4", "end": "left"}}
    elif ptype is errors.INVALID_REQUEST:
        ex["errors"] = {"json": {"tile": ["'6-x' is not a tile"]}}
    return ex


class BodyParser(PreparsedJsonParser):
    """webargs' Flask parser, given the body the body guard (:mod:`api.hooks`) parsed.

    Numbers in the query must be written in ASCII: Python reads "٥" as the number 5."""

    def load_querystring(self, req: flask.Request, schema: ma.Schema) -> Any:
        numbers = {f.data_key or name for name, f in schema.fields.items() if isinstance(f, ma.fields.Number)}
        wrong = sorted({name for name, value in req.args.items(multi=True) if name in numbers and not value.isascii()})
        if wrong:
            raise InvalidRequest(
                "Numbers are written in ASCII digits.", errors={"query": {name: ["ASCII digits only"] for name in wrong}}
            )
        return super().load_querystring(req, schema)


class AsciiIntegerConverter(IntegerConverter):
    """``<int:...>`` in paths, ASCII digits only (werkzeug's ``\\d`` also takes "٥" and reads it as 5)."""

    regex = r"[0-9]+"


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]  # flask-smorest ships no types: Any to mypy
    """flask-smorest's, with ``doc`` and ``response`` for the document only: every view returns its own
    ``flask.Response``, so their wrappers (a call layer each, on every request) had nothing to do; and
    ``arguments(..., parse=False)`` for a view that reads its body itself."""

    ARGUMENTS_PARSER = BodyParser()

    def arguments(
        self,
        schema: type[ma.Schema] | ma.Schema,
        *,
        parse: bool = True,
        location: str = "json",
        example: Any = None,
        examples: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Callable[[F], F]:
        decorator = super().arguments(schema, location=location, example=example, examples=examples, **kwargs)
        if parse:
            return decorator  # type: ignore[no-any-return]
        return lambda func: documenting_only(decorator, func)

    def response(
        self,
        status_code: int | str | http.HTTPStatus,
        schema: type[ma.Schema] | ma.Schema | dict[str, Any] | None = None,
        *,
        description: str | None = None,
        example: Any = None,
        examples: dict[str, Any] | None = None,
        headers: dict[str, Any] | None = None,
    ) -> Callable[[F], F]:
        decorator = super().response(
            status_code, schema, description=description, example=example, examples=examples, headers=headers
        )
        return lambda func: documenting_only(decorator, func)

    @staticmethod
    def doc(**kwargs: Any) -> Callable[[F], F]:
        return lambda func: documenting_only(flask_smorest.Blueprint.doc(**kwargs), func)

    if TYPE_CHECKING:
        # flask-smorest 0.47's decorators, typed for mypy only (at run time they are flask-smorest's own). Each
        # returns the view or a wrapper flask calls in its place, so the view keeps its own type: nothing of ours
        # calls a view directly, and its body is checked as written.
        def route(
            self, rule: str, *, parameters: list[Any] | None = None, tags: list[str] | None = None, **options: Any
        ) -> Callable[[F], F]: ...

        def alt_response(
            self,
            status_code: int | str | http.HTTPStatus,
            response: str | None = None,
            *,
            schema: type[ma.Schema] | ma.Schema | None = None,
            content_type: str | None = None,
            description: str | None = None,
            example: Any = None,
            examples: dict[str, Any] | None = None,
            headers: dict[str, Any] | None = None,
            success: bool = False,
        ) -> Callable[[F], F]: ...

    def problems(self, *ptypes: errors.ProblemType, path: str = "/v1/...") -> Callable[[F], F]:
        """Document the problem responses an operation can answer (several slugs may share a status).

        Documentation only: ``alt_response`` would wrap the view once per status, a call layer on every
        request; this adds the responses to what is documented of the view and returns the view itself."""
        if path.startswith("/v1/"):
            ptypes = (*ptypes, errors.NOT_ACCEPTABLE)  # every API operation answers JSON only (the body guard)
        by_status: dict[int, list[errors.ProblemType]] = {}
        for p in ptypes:
            by_status.setdefault(p.status, []).append(p)
        schema = doc_response_schema(self, ProblemSchema)
        responses = {
            status: {
                "schema": schema,
                "description": "; ".join(f"`{p.slug}`: {p.description}" for p in group),
                "examples": {p.slug: {"value": _example(p, path)} for p in group},
                "content_type": PROBLEM_JSON,
            }
            for status, group in sorted(by_status.items(), reverse=True)
        }
        return lambda func: add_responses(func, responses)


def document_everywhere(
    spec: Any,
    ptype: errors.ProblemType,
    methods: frozenset[str],
    headers: dict[str, Any] | None = None,
    exempt: frozenset[str] = frozenset(),
) -> None:
    """Document ``ptype`` on every operation of ``methods`` (``"get"``, ``"post"``, ...) but those of the paths
    ``exempt``, beside whatever the operation documents already with that status (unless it documents this
    problem already): for an answer a hook gives before any view (the spec is built at registration, so call
    this after the blueprints)."""
    key = str(ptype.status)
    description = f"`{ptype.slug}`: {ptype.description}"
    for path, operations in spec._paths.items():
        if path in exempt:
            continue
        for method, operation in operations.items():
            if method not in methods or not isinstance(operation, dict):
                continue
            responses = operation.setdefault("responses", {})
            example = {"value": _example(ptype, path)}
            entry = responses.get(key)
            if entry is not None and description in entry["description"]:
                continue
            if entry is None:
                content = {"schema": {"$ref": "#/components/schemas/Problem"}, "examples": {ptype.slug: example}}
                responses[key] = {"description": description, "content": {PROBLEM_JSON: content}}
                if headers:
                    responses[key]["headers"] = headers
                continue
            entry["description"] = f"{entry['description']}; {description}"
            if headers:
                entry["headers"] = {**entry.get("headers", {}), **headers}
            content = entry["content"][PROBLEM_JSON]
            examples = content.setdefault("examples", {})
            if "example" in content:  # one example so far: OpenAPI allows `example` or `examples`, not both
                single = content.pop("example")
                examples[single["type"].rpartition("/")[2]] = {"value": single}
            examples[ptype.slug] = example


RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait", "schema": {"type": "string"}}}
WRITES = frozenset(("post", "put", "patch", "delete"))


def document_storage_full(spec: Any) -> None:
    """A full Redis refuses every write (the rate limit's count first); reads are let through."""
    document_everywhere(spec, errors.STORAGE_FULL, WRITES, RETRY_AFTER)


COMMON_PROBLEMS: tuple[errors.ProblemType, ...] = (errors.UNAVAILABLE,)
BODY_PROBLEMS: tuple[errors.ProblemType, ...] = (
    errors.BAD_REQUEST,
    errors.PAYLOAD_TOO_LARGE,
    errors.UNSUPPORTED_MEDIA_TYPE,
    errors.INVALID_REQUEST,
)


def no_body(func: Any) -> Any:
    """Mark a POST that takes no body: an empty request needs no ``Content-Type`` (the body guard, api.hooks)."""
    func.takes_no_body = True
    return func


def optional_body(func: Any) -> Any:
    """Mark a POST whose body is optional: an empty request needs no ``Content-Type``; a body is read as usual."""
    func.takes_no_body = True
    func.body_optional = True
    return func

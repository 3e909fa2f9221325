"""Where the app reaches into its web libraries' internals: every such use is in this module, and nowhere else.

Each is named in :data:`INTERNALS` with what it is for; ``tests/test_seams.py`` checks each against the
installed libraries (and that it still does what it is used for), so an upgrade that removes or changes one
fails there with its name, not somewhere in a request. The versions tested are pinned as ranges in
``pyproject.toml``; a new version is taken by widening a range once that test passes on it.

- Flask's request handling (:class:`App`): the before and after steps called directly, and Flask's own
  per-blueprint lookups skipped when nothing is registered with them. ``request_ctx._get_current_object()``
  and ``current_app._get_current_object()``: the request and the app without a proxy on every read.
- werkzeug's ``Response.get_wsgi_headers`` (:class:`ApiResponse`): headers sent without its copy when it would
  fix nothing. ``Rule._compile_builder`` (:class:`SharedBuilderRule`): a rule's URL builders made once per
  process for each rule's shape (its ``_trace`` and converters), and shared by the later apps' rules.
- flask-smorest's private hooks (:class:`SmorestApi`): the spec's set-up, its error handlers, its documented
  responses and its pagination header; the blueprint-to-Api map its ``register_blueprint`` fills, filled by
  :meth:`SmorestApi.register_documented` when a process's later apps share the document (a test checks
  ``current_api`` still finds it); a view's ``_apidoc`` (:func:`documenting_only`, :func:`add_responses`)
  and ``Blueprint._make_doc_response_schema``, so that decorators document without wrapping the view.
- apispec's marshmallow converter (``ma_plugin.converter.add_attribute_function``): fields documented as
  exactly the schema their metadata names.
- webargs' ``FlaskParser._raw_load_json`` (:class:`PreparsedJsonParser`): the body parsed once, by the body
  guard, not again.
"""

from __future__ import annotations

import dataclasses
import http
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

import flask
import flask_smorest
import marshmallow as ma
from flask.globals import request_ctx
from flask.signals import request_tearing_down
from flask.typing import ResponseReturnValue
from flask_smorest.utils import prepare_response
from webargs.flaskparser import FlaskParser
from werkzeug.datastructures import Headers
from werkzeug.routing import Rule

from api.wrappers import NOT_PARSED, ApiRequest

F = TypeVar("F", bound=Callable[..., Any])
Before = Callable[[ApiRequest], flask.Response | None]
After = Callable[[ApiRequest, flask.Response], None]


@dataclasses.dataclass(frozen=True)
class Internal:
    """A library's name this module uses although the library does not promise it."""

    module: str  # where it lives (imported by the guard test)
    name: str  # a dotted path from there
    why: str


INTERNALS: tuple[Internal, ...] = (
    Internal("flask", "Flask.preprocess_request", "App: the before steps, then Flask's own only if registered"),
    Internal("flask", "Flask.process_response", "App: the after steps, then Flask's own only if registered"),
    Internal("flask", "Flask.do_teardown_request", "App: the teardown signal without the lookups"),
    Internal("flask", "Flask.ensure_sync", "App: the coroutine check once per function"),
    Internal("flask.globals", "request_ctx._get_current_object", "current_request: the request without its proxy"),
    Internal("flask", "current_app._get_current_object", "current_app_object: the app without its proxy"),
    Internal("werkzeug.wrappers", "Response.get_wsgi_headers", "ApiResponse: headers sent without a copy"),
    Internal("werkzeug.routing", "Rule._compile_builder", "SharedBuilderRule: a rule's URL builders made once"),
    Internal("flask_smorest", "Api._init_spec", "SmorestApi: the field documenters added to apispec's converter"),
    Internal("flask_smorest", "Api._register_error_handlers", "SmorestApi: our error handlers instead"),
    Internal("flask_smorest", "Api._register_responses", "SmorestApi: the standard responses as problem details"),
    Internal("flask_smorest", "Api._register_pagination_header", "SmorestApi: no pagination header (cursors)"),
    Internal("flask_smorest", "Api._app", "SmorestApi: the app the error handlers go on"),
    Internal("flask_smorest.utils", "prepare_response", "SmorestApi: a documented response in the spec's form"),
    Internal("flask_smorest", "Blueprint._make_doc_response_schema", "doc_response_schema"),
    Internal("flask_smorest", "Blueprint.doc", "documenting_only: it leaves what it documents in _apidoc"),
    Internal("webargs.flaskparser", "FlaskParser._raw_load_json", "PreparsedJsonParser: the body parsed once"),
)


# -- Flask and werkzeug ---------------------------------------------------------------------------------------


def current_request() -> ApiRequest:
    """This request itself, without a proxy in between (``App`` makes every request an ApiRequest): the
    context's own object, asked of its proxy directly, as Flask does itself."""
    return request_ctx._get_current_object().request  # type: ignore[attr-defined,no-any-return]


def current_app_object() -> flask.Flask:
    """The app handling this request, one proxy step instead of one per attribute read."""
    return flask.current_app._get_current_object()  # type: ignore[attr-defined,no-any-return]


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


class SharedBuilderRule(Rule):
    """werkzeug's Rule, its two URL builders (Python code werkzeug generates and compiles for every rule of every
    app: 90% of making an app once the document is shared) made once per process for each rule's shape and
    shared by the same rule of the later apps. A builder takes its rule as its first argument (werkzeug binds
    it to the rule) and reads the rule's converters through it, so a shared one builds each app's URLs."""

    def _compile_builder(self, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        converters = tuple((name, type(converter)) for name, converter in self._converters.items())
        defaults = repr(sorted((self.defaults or {}).items()))
        key = (self.rule, tuple(self._trace), converters, defaults, append_unknown)
        built = _BUILDERS.get(key)
        if built is None:
            built = _BUILDERS[key] = super()._compile_builder(append_unknown)
        return built


_BUILDERS: dict[Hashable, Callable[..., tuple[str, str]]] = {}  # SharedBuilderRule: each shape's builder


class App(flask.Flask):
    """Flask, calling the steps of :func:`api.hooks.install` itself: before the view, and after it on every
    answer.

    Flask looked for its before- and after-request functions by blueprint through the request's proxy, and
    asked ``inspect`` whether each of them and the view is a coroutine function, on every request. Here the
    steps are called directly, that question is asked once per function, and Flask's own lookups run only
    when something is registered with ``before_request``, ``url_value_preprocessor`` or ``after_request``
    (after the steps); likewise for ``teardown_request``. ``after_this_request`` is not used in this app: it
    would need those lookups back."""

    request_class = ApiRequest
    response_class = ApiResponse
    url_rule_class = SharedBuilderRule
    before_steps: tuple[Before, ...] = ()
    after_steps: tuple[After, ...] = ()

    def __init__(self, import_name: str) -> None:
        super().__init__(import_name)
        self.sync_functions: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        sync = self.sync_functions.get(func)
        if sync is None:
            sync = self.sync_functions[func] = super().ensure_sync(func)
        return sync

    def preprocess_request(self) -> ResponseReturnValue | None:
        req = current_request()
        for step in self.before_steps:
            resp = step(req)
            if resp is not None:
                return resp
        if any(self.before_request_funcs.values()) or any(self.url_value_preprocessors.values()):
            return super().preprocess_request()
        return None

    def process_response(self, response: flask.Response) -> flask.Response:
        req = current_request()
        for step in self.after_steps:
            step(req, response)
        if any(self.after_request_funcs.values()):
            return super().process_response(response)
        return response

    def do_teardown_request(self, *exc: BaseException | None) -> None:
        """Flask's, without its look for teardown functions by blueprint when none is registered (ours are none):
        only the signal is sent."""
        if exc and not any(self.teardown_request_funcs.values()):
            request_tearing_down.send(self, _async_wrapper=self.ensure_sync, exc=exc[0])
        else:
            super().do_teardown_request(*exc)


# -- flask-smorest, apispec, webargs ---------------------------------------------------------------------------


class SmorestApi(flask_smorest.Api):  # type: ignore[misc]  # flask-smorest ships no types: Any to mypy
    """flask-smorest's Api, its private set-up hooks turned into what a subclass says:
    ``FIELD_DOCUMENTERS`` (apispec attribute functions), :meth:`register_error_handlers`, and the standard
    responses documented with ``ERROR_SCHEMA`` as ``ERROR_CONTENT_TYPE``; no pagination header."""

    FIELD_DOCUMENTERS: tuple[Callable[..., dict[str, Any]], ...] = ()
    spec: Any  # apispec's APISpec: made by _init_spec, or shared (register_documented)
    ERROR_CONTENT_TYPE = "application/json"

    def __init__(self, app: flask.Flask, document_key: Hashable) -> None:
        """``document_key``: all the app's document depends on besides the code (see :meth:`register_documented`)."""
        self.document_key = document_key
        super().__init__(app)

    def register_error_handlers(self, app: flask.Flask) -> None:
        """Called where flask-smorest would register its own error handler."""

    def _init_spec(self, *args: Any, **kwargs: Any) -> None:
        super()._init_spec(*args, **kwargs)
        for documenter in self.FIELD_DOCUMENTERS:
            self.ma_plugin.converter.add_attribute_function(documenter)

    def _register_pagination_header(self) -> None:
        """Our lists page with cursors of their own: flask-smorest's pagination header is not used."""

    def _register_error_handlers(self) -> None:
        self.register_error_handlers(self._app)

    def register_documented(
        self, blueprints: Sequence[flask_smorest.Blueprint], document: Callable[[Any], None]
    ) -> None:
        """Register ``blueprints`` on the app, with the document: their operations, then what ``document`` adds
        to the spec. The document is built once per process for each ``document_key`` and the later apps share
        it, read only: building it is most of an app's making (0.1 s of CPU), and a test run makes hundreds of
        apps."""
        built = _DOCUMENTS.get(self.document_key)
        if built is None:
            for blueprint in blueprints:
                self.register_blueprint(blueprint)
            document(self.spec)
            _DOCUMENTS[self.document_key] = self.spec
            return
        self.spec = built
        for blueprint in blueprints:  # flask-smorest's register_blueprint but for the document
            self._app.extensions["flask-smorest"]["blp_name_to_api"][blueprint.name] = self
            self._app.register_blueprint(blueprint)

    def _register_responses(self) -> None:
        if self.document_key in _DOCUMENTS:
            return  # the spec is replaced by the shared one, which has them (40% of a later app's making)
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, self.ERROR_CONTENT_TYPE)
            self.spec.components.response(status.name, response, lazy=True)


_DOCUMENTS: dict[Hashable, Any] = {}  # SmorestApi.register_documented: the spec built for each key


def documenting_only(decorator: Callable[[F], Any], func: F) -> F:
    """What a flask-smorest ``decorator`` documents (the ``_apidoc`` of its wrapper), put on ``func`` itself:
    no wrapper, no call layer on every request."""
    func.__dict__["_apidoc"] = decorator(func)._apidoc
    return func


def add_responses(func: F, responses: dict[int, dict[str, Any]]) -> F:
    """Add documented responses (by status) to what flask-smorest documents of ``func``, without wrapping it
    once per status as ``alt_response`` would."""
    documented = func.__dict__.setdefault("_apidoc", {}).setdefault("response", {}).setdefault("responses", {})
    for status, response in responses.items():
        documented.setdefault(status, []).append(response)
    return func


def doc_response_schema(blueprint: flask_smorest.Blueprint, schema: type[ma.Schema]) -> Any:
    """The schema as flask-smorest documents a response with it."""
    return blueprint._make_doc_response_schema(schema)


class PreparsedJsonParser(FlaskParser):
    """webargs' Flask parser, given the body the body guard (:mod:`api.hooks`) parsed instead of parsing it
    again (``ApiRequest.json_body``)."""

    def _raw_load_json(self, req: flask.Request) -> Any:
        body = getattr(req, "json_body", NOT_PARSED)
        return super()._raw_load_json(req) if body is NOT_PARSED else body

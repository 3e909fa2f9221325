"""The seams with libraries: what ``api/framework.py`` (Flask, werkzeug, flask-smorest, apispec, webargs) and
``api/store/wire.py`` (redis-py, hiredis) take of their internals is still there, and still does what they use
it for, in the installed versions; and those versions are pinned as ranges in ``pyproject.toml``.

A failure here after an upgrade names the library, its version and what of it is gone: adapt the seam module,
then widen the range."""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import tomllib
from pathlib import Path
from typing import Any

import flask
import flask_smorest
import marshmallow as ma
import pytest
import redis
from packaging.requirements import Requirement

from api import errors, framework
from api.extensions import Api, Blueprint, BodyParser
from api.store import wire
from api.wrappers import ApiRequest

ROOT = Path(__file__).resolve().parents[1]

# The distributions whose internals the seams use: each pinned with an upper bound.
SEAM_DISTRIBUTIONS = ("flask", "werkzeug", "flask-smorest", "apispec", "webargs", "marshmallow", "redis", "hiredis")
DISTRIBUTION = {"flask_smorest": "flask-smorest", "webargs": "webargs", "werkzeug": "werkzeug", "flask": "flask"}


def _distribution(module: str) -> str:
    top = module.split(".", 1)[0]
    return DISTRIBUTION.get(top, top)


def _mini_api() -> tuple[flask.Flask, Any]:
    """An app as create_app builds one, with one documented route: what the seams are used for, in small."""
    app = framework.App(__name__)
    app.config.update(API_TITLE="t", API_VERSION="1", OPENAPI_VERSION="3.1.0")
    api = Api(app, object())  # a document of its own
    blp = Blueprint("things", __name__, url_prefix="/v1")

    class Thing(ma.Schema):
        kind = ma.fields.String(metadata={"schema": {"$ref": "#/components/schemas/Kind"}})

    @blp.route("/things", methods=["POST"])
    @blp.arguments(Thing, parse=False)
    @blp.response(201, Thing)
    @blp.doc(summary="Make a thing")
    @blp.problems(errors.SEAT_TAKEN)
    def make() -> flask.Response:
        return framework.ApiResponse(b"{}", status=201, mimetype="application/json")

    api.register_blueprint(blp)
    return app, api


def _resolve(module: str, name: str, instances: dict[str, Any]) -> Any:
    obj: Any = importlib.import_module(module)
    parts = name.split(".")
    for i, part in enumerate(parts):
        if not hasattr(obj, part) and i == len(parts) - 1 and parts[0] in instances:
            obj = instances[parts[0]]  # an attribute set on instances (flask-smorest's Api._app)
        obj = getattr(obj, part)
    return obj


def _gone(module: str, name: str, why: str, seam: str) -> str:
    dist = _distribution(module)
    return (
        f"{dist} {importlib.metadata.version(dist)}: `{module}.{name}` is gone or changed; {seam} uses it for "
        f"{why}. Adapt {seam} to this version, then widen the range of {dist} in pyproject.toml."
    )


@pytest.mark.parametrize("internal", framework.INTERNALS, ids=lambda i: f"{i.module}.{i.name}")
def test_what_the_framework_seam_takes_is_there(internal: framework.Internal) -> None:
    _, api = _mini_api()
    try:
        _resolve(internal.module, internal.name, {"Api": api})
    except AttributeError:
        pytest.fail(_gone(internal.module, internal.name, internal.why, "api/framework.py"))


@pytest.mark.parametrize("internal", wire.INTERNALS, ids=lambda i: f"{i[0]}.{i[1]}")
def test_what_the_wire_seam_takes_is_there(internal: tuple[str, str, str]) -> None:
    module, name, why = internal
    try:
        _resolve(module, name, {})
    except AttributeError:
        pytest.fail(_gone(module, name, why, "api/store/wire.py"))


def _stepping_app(seen: list[str]) -> framework.App:
    def before(req: ApiRequest) -> None:
        seen.append(f"before {type(req).__name__}")

    def after(req: ApiRequest, resp: flask.Response) -> None:
        seen.append(f"after {resp.status_code}")

    app = framework.App(__name__)
    app.before_steps, app.after_steps = (before,), (after,)
    app.get("/x")(lambda: "ok")
    return app


def test_the_steps_run_and_flasks_own_hooks_still_do_when_registered() -> None:
    seen: list[str] = []
    _stepping_app(seen).test_client().get("/x")
    assert seen == ["before ApiRequest", "after 200"], "flask: App's steps are no longer called (preprocess_request)"
    seen.clear()
    app = _stepping_app(seen)
    app.before_request(lambda: seen.append("flask before"))  # type: ignore[func-returns-value]
    app.after_request(lambda resp: seen.append("flask after") or resp)  # type: ignore[func-returns-value]
    app.teardown_request(lambda exc: seen.append("flask teardown"))  # type: ignore[func-returns-value]
    app.test_client().get("/x")
    assert seen == ["before ApiRequest", "flask before", "after 200", "flask after", "flask teardown"]


def test_the_request_and_the_app_are_read_without_their_proxies() -> None:
    app = framework.App(__name__)
    with app.test_request_context("/x"):
        assert framework.current_request() is flask.request._get_current_object()  # type: ignore[attr-defined]
        assert isinstance(framework.current_request(), ApiRequest)
        assert framework.current_app_object() is app


def test_a_sized_answer_sends_its_own_headers() -> None:
    resp = framework.ApiResponse(b"{}", mimetype="application/json")
    assert resp.get_wsgi_headers({}) is resp.headers, "werkzeug: get_wsgi_headers no longer takes our headers"
    moved = framework.ApiResponse(b"{}", status=201, headers={"Location": "/v1/x"})
    environ = {"wsgi.url_scheme": "http", "SERVER_NAME": "h", "SERVER_PORT": "80"}
    assert moved.get_wsgi_headers(environ) is not moved.headers, "a location to resolve: werkzeug's own"


def test_the_decorators_document_without_wrapping_and_the_spec_says_so() -> None:
    app, api = _mini_api()
    view = app.view_functions["things.make"]
    assert view.__name__ == "make" and not hasattr(view, "__wrapped__"), "flask-smorest: a decorator wraps the view"
    spec = api.spec.to_dict()
    operation = spec["paths"]["/v1/things"]["post"]
    assert operation["summary"] == "Make a thing", "flask-smorest: Blueprint.doc no longer leaves `_apidoc`"
    assert "201" in operation["responses"] and "requestBody" in operation, "flask-smorest: `_apidoc` not read"
    problem = operation["responses"]["409"]["content"]["application/problem+json"]
    assert "seat-taken" in problem["examples"], "flask-smorest: responses added to `_apidoc` are not documented"
    kind = spec["components"]["schemas"]["Thing"]["properties"]["kind"]
    assert kind == {"$ref": "#/components/schemas/Kind"}, "apispec: the attribute function is no longer called"
    invalid = spec["components"]["responses"]["UNPROCESSABLE_ENTITY"]["content"]
    assert list(invalid) == ["application/problem+json"], "flask-smorest: _register_responses no longer used"


def test_the_later_apps_of_a_process_share_the_document_and_flask_smorest_still_finds_their_api() -> None:
    blueprint = _mini_api()[0].blueprints["things"]
    apis = []
    for _ in range(2):
        app = framework.App(__name__)
        app.config.update(API_TITLE="t", API_VERSION="1", OPENAPI_VERSION="3.1.0")
        api = Api(app, ("seams", id(blueprint)))
        api.register_documented([blueprint], lambda spec: spec.components.schema("Extra", {"type": "string"}))
        apis.append(api)
    first, second = apis
    assert second.spec is first.spec, "the second app builds the document again"
    spec = second.spec.to_dict()
    assert "Extra" in spec["components"]["schemas"] and "/v1/things" in spec["paths"]
    assert app.test_client().post("/v1/things", json={}).status_code == 201
    with app.test_request_context("/v1/things", method="POST"):
        assert flask_smorest.current_api._get_current_object() is second, (
            "flask-smorest: current_api no longer finds the Api in the blueprint-to-Api map "
            "(SmorestApi.register_documented fills it)"
        )


def test_the_later_apps_of_a_process_share_their_rules_url_builders_and_build_their_own_urls() -> None:
    rules = []
    for host in ("a.example", "b.example"):
        app = framework.App(__name__)
        app.config["SERVER_NAME"] = host
        turns = lambda name, turn, page: "ok"  # noqa: E731
        app.get("/v1/seams/<name>/turns/<int:turn>", defaults={"page": 1}, endpoint="turns")(turns)
        app.get("/v1/seams/<name>/turns/<int:turn>/pages/<int:page>", endpoint="turns")(turns)
        with app.app_context():
            built = flask.url_for("turns", name="x y", turn=7, page=1, q="1"), flask.url_for("turns", name="x", turn=7, page=2)
            assert built == (f"http://{host}/v1/seams/x%20y/turns/7?q=1", f"http://{host}/v1/seams/x/turns/7/pages/2"), (
                "werkzeug: a shared builder no longer builds the app's own URL"
            )
        rules.append(next(r for r in app.url_map.iter_rules() if r.rule == "/v1/seams/<name>/turns/<int:turn>"))
    first, second = rules
    assert second._build.__func__ is first._build.__func__, "the second app compiles the builder again"
    assert second._build.__self__ is second, "werkzeug: a builder is no longer bound to its own rule"


def test_the_parser_takes_the_body_the_guard_parsed() -> None:
    app = framework.App(__name__)

    class One(ma.Schema):
        a = ma.fields.Integer()

    with app.test_request_context("/x", method="POST", data=b"not json", content_type="application/json"):
        framework.current_request().json_body = {"a": 1}
        assert BodyParser().parse(One(), location="json") == {"a": 1}, "webargs: _raw_load_json is no longer used"


def test_round_trips_and_a_held_connection_speak_the_protocol(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    trips = wire.RoundTrips(retries=1)
    commands = [("SET", "seams:k", "v"), ("GET", "seams:k"), ("INCR", "seams:k")]
    replies = trips.roundtrip(lambda: client.connection_pool, commands)
    assert replies[:2] == [b"OK", b"v"] and isinstance(replies[2], redis.ResponseError)
    assert trips.roundtrip(lambda: client.connection_pool, [("DEL", "seams:k")]) == [1], "the connection is reused"
    held = wire.Held(client.connection_pool)
    assert held.exchange(wire.packed([("PING",), ("ECHO", "x")]), 2) == [b"PONG", b"x"]
    with pytest.raises(redis.ResponseError):
        held.exchange(wire.packed([("INCR",)]), 1)
    assert held.conn is None, "a failed exchange gives its connection back"


def _pins() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {(r := Requirement(line)).name.lower(): r for line in project["dependencies"]}


@pytest.mark.parametrize("dist", SEAM_DISTRIBUTIONS)
def test_the_versions_the_seams_were_tested_with_are_pinned_as_ranges(dist: str) -> None:
    pins = _pins()
    assert dist in pins, f"pyproject.toml: pin {dist} (a seam uses its internals) as a range: >=tested,<next major"
    spec = pins[dist].specifier
    assert any(s.operator == "<" for s in spec) and any(s.operator == ">=" for s in spec), f"{dist}: {spec} is no range"
    installed = importlib.metadata.version(dist)
    assert spec.contains(installed), f"{dist} {installed} is outside {spec}: run this test on it, then widen the range"


def test_no_other_module_takes_these_internals() -> None:
    """The seams are the only places: a private name of these libraries elsewhere is a seam that grew back."""
    private = re.compile(
        r"\._(apidoc|get_current_object|raw_load_json|make_doc_response_schema|init_spec|register_\w+)\b"
        r"|send_packed_command|read_response|make_connection|get_connection\(|pack_command"
    )
    seams = {ROOT / "api" / "framework.py", ROOT / "api" / "store" / "wire.py"}
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for package in ("api", "workers")
        for path in sorted((ROOT / package).rglob("*.py"))
        if path not in seams
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if private.search(line)
    ]
    assert found == []

"""Every operation of the document checks, before anything else, that a credential it needs was sent (401), then
that the query holds only the parameters it documents (422 `invalid-request` naming the others). Both are
read from the document, so these tests walk every operation it has, whichever are added later."""

from __future__ import annotations

import re

import pytest

from conftest import openapi_document

DOC = openapi_document()
OPERATIONS = [
    (method, path, operation)
    for path, item in DOC["paths"].items()
    for method, operation in item.items()
    if method in ("get", "post", "put", "patch", "delete")
]


def _url(path: str) -> str:
    # A path parameter the server will not find: each check comes before the lookup.
    return re.sub(r"\{(\w+)\}", lambda m: "0" if m[1] == "seat" else "h4k2mzq7c3x9b2rt", path)


def _needs_credentials(operation: dict) -> bool:  # type: ignore[type-arg]
    security = operation.get("security", DOC.get("security", []))
    return bool(security) and {} not in security


def test_an_unknown_query_parameter_is_a_422_naming_it(client) -> None:  # type: ignore[no-untyped-def]
    for method, path, operation in OPERATIONS:
        _unknown_query_is_refused(client, method, path, operation)


def _unknown_query_is_refused(client, method: str, path: str, operation: dict) -> None:  # type: ignore[no-untyped-def, type-arg]
    documented = [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
    headers = {"Authorization": "Bearer dsk_bot_not-a-real-token"}
    resp = client.open(_url(path) + "?colour=blue&limit_=3", method=method.upper(), headers=headers)
    assert resp.status_code == 422, (method, path, resp.status_code, resp.get_data(as_text=True)[:300])
    problem = resp.get_json()
    assert problem["type"] == "/problems/invalid-request"
    assert set(problem["errors"]["query"]) == {"colour", "limit_"}
    assert "colour" in problem["detail"]
    for name in documented:  # a documented one is never "unknown", whatever its value
        resp = client.open(_url(path) + f"?{name}=x", method=method.upper(), headers=headers)
        query_errors = ((resp.get_json() or {}).get("errors") or {}).get("query", {})
        assert query_errors.get(name) != ["unknown parameter"], (name, resp.get_json())


def test_the_document_says_so() -> None:
    assert "unknown query parameter is a 422" in DOC["info"]["description"]


@pytest.mark.parametrize("url", ["/docs?colour=blue", "/play?colour=blue", "/openapi.json?v=2", "/?utm_source=x",
                                 "/docs/assets/swagger-ui.css?v=5"])  # fmt: skip
def test_pages_that_are_not_operations_take_any_query(client, url) -> None:  # type: ignore[no-untyped-def]
    assert client.get(url).status_code == 200


@pytest.mark.parametrize("authorization", [None, "", "Basic dXNlcjpwdw==", "Bearer", "Bearer " + "x" * 201])
def test_missing_credentials_are_401_before_anything_else(client, authorization) -> None:  # type: ignore[no-untyped-def]
    # A malformed If-Match, an unknown query parameter and a body that is no JSON: each would be a 4xx of its
    # own, but the credential is judged first.
    headers = {"If-Match": "17", "Content-Type": "text/plain"}
    if authorization is not None:
        headers["Authorization"] = authorization
    needing = [(method, path) for method, path, operation in OPERATIONS if _needs_credentials(operation)]
    assert len(needing) >= 8  # moves, resign, abort, tickets, the app, bots, bot events, simulations
    for method, path in needing:
        resp = client.open(_url(path) + "?colour=blue", method=method.upper(), headers=headers, data="{")
        assert resp.status_code == 401, (method, path, resp.status_code, resp.get_data(as_text=True)[:300])
        assert resp.get_json()["type"] == "/problems/unauthorized"


def test_resign_with_a_malformed_if_match_and_no_authorization_is_401(client, create_game) -> None:  # type: ignore[no-untyped-def]
    data, players, _ = create_game([{"name": "Ana"}, {"name": "Bo"}])
    url = f"/v1/games/{data['game']['id']}/resign"
    assert client.post(url, headers={"If-Match": "17"}).status_code == 401
    assert client.post(url, headers={"If-Match": "17", **players[0].headers}).status_code == 422
    assert client.post(url, headers={"If-Match": f'"{data["game"]["version"]}"', **players[0].headers}).status_code == 200

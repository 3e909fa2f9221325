"""deploy/nginx.conf sends every operation the OpenAPI marks ``x-streaming: true`` (today's and any added later)
to the streaming server with a read timeout of at least 60 s, and everything else to the REST server; its
connections are not nginx's default 512. Locations are matched as nginx matches them: an exact ``=``
location, else the first regular expression that matches, else the longest prefix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import openapi_document

ROOT = Path(__file__).resolve().parents[2]
CONF = (ROOT / "deploy" / "nginx.conf").read_text()
LOCATION = re.compile(r"^\s*location\s+(=|~\*?|\^~)?\s*(\S+)\s*\{(.*?)\}", re.MULTILINE | re.DOTALL)
SECONDS = {"s": 1, "m": 60, "h": 3600}


def locations() -> list[tuple[str, str, str]]:
    """(modifier, pattern, body) of every location, in order."""
    return [(m.group(1) or "", m.group(2), m.group(3)) for m in LOCATION.finditer(re.sub(r"#[^\n]*", "", CONF))]


def matching(path: str) -> str:
    """The body of the location nginx picks for ``path``."""
    prefixes = []
    for modifier, pattern, body in locations():
        if modifier == "=" and path == pattern:
            return body
        if modifier in ("", "^~") and path.startswith(pattern):
            prefixes.append((len(pattern), modifier, body))
    longest = max(prefixes, key=lambda p: p[0]) if prefixes else None
    if longest and longest[1] == "^~":
        return longest[2]
    for modifier, pattern, body in locations():
        if modifier.startswith("~") and re.search(pattern, path, re.IGNORECASE if modifier == "~*" else 0):
            return body
    assert longest, f"no location for {path}"
    return longest[2]


def directive(body: str, name: str) -> str | None:
    found = re.search(rf"\b{name}\s+([^;]+);", body)
    return found.group(1).strip() if found else None


def read_timeout(body: str) -> float:
    value = directive(body, "proxy_read_timeout") or "60s"  # nginx's default
    number, unit = re.fullmatch(r"(\d+)([smh]?)", value).groups()  # type: ignore[union-attr]
    return int(number) * SECONDS[unit or "s"]


def operations() -> list[tuple[str, str, bool]]:
    """(method, a concrete path, streaming) for every operation of the OpenAPI document."""
    out = []
    for path, ops in openapi_document()["paths"].items():
        concrete = re.sub(r"\{[^}]+\}", "h4k2mzq7c3x9b2rt", path)
        for method, op in ops.items():
            if isinstance(op, dict) and "responses" in op:
                out.append((method, concrete, bool(op.get("x-streaming"))))
    return out


def test_the_document_marks_the_event_streams():
    streaming = {path for _, path, streams in operations() if streams}
    assert {"/v1/games/h4k2mzq7c3x9b2rt/events", "/v1/bot/events"} <= streaming


@pytest.mark.parametrize(("method", "path", "streaming"), operations())
def test_each_operation_goes_to_its_server(method, path, streaming):
    body = matching(path)
    streaming_paths = {p for _, p, streams in operations() if streams}
    if streaming:
        assert directive(body, "proxy_pass") == "http://streams", (method, path)
        assert read_timeout(body) >= 60, (method, path)
        assert directive(body, "proxy_buffering") == "off", (method, path)
    elif path not in streaming_paths:  # nginx routes by path: a short call on a streaming path (cancelling a
        # ticket) goes with it to the streaming server, which answers every operation too
        assert directive(body, "proxy_pass") == "http://api", (method, path)


def test_the_proxy_holds_thousands_of_connections():
    assert int(directive(CONF, "worker_connections") or 512) >= 4096
    assert int(directive(CONF, "worker_rlimit_nofile") or 0) >= 2 * int(directive(CONF, "worker_connections") or 0)

"""The web client's static files (issue 9): served by the service itself, linked from the root."""

from __future__ import annotations

import re

from api.web import PLAY_DIR


def test_play_answers_html(client):  # type: ignore[no-untyped-def]
    for path in ("/play", "/play/", "/play/watch?game=abc", "/play/replay?game=abc&v=3"):
        resp = client.get(path)
        assert resp.status_code == 200, path
        assert resp.mimetype == "text/html"
        body = resp.get_data(as_text=True)
        assert '<script type="module" src="/play/play.js">' in body
        assert '<link rel="icon"' in body  # no favicon.ico 404 in the console


MODULES = sorted(p.name for p in PLAY_DIR.glob("*.js"))


def test_assets_and_root(client):  # type: ignore[no-untyped-def]
    """Every module is served as JavaScript (a module script of another type is refused by the browser)."""
    assert "play.js" in MODULES and len(MODULES) > 5
    for path, mimetype in (
        *((f"/play/{name}", "text/javascript") for name in MODULES),
        ("/play/play.css", "text/css"),
        ("/play/favicon.svg", "image/svg+xml"),
    ):
        resp = client.get(path)
        assert resp.status_code == 200, path
        assert resp.mimetype == mimetype, (path, resp.mimetype)
    root = client.get("/")
    assert root.status_code == 200 and root.mimetype == "text/html"
    assert 'href="/play"' in root.get_data(as_text=True)
    assert client.get("/play/nope.js").status_code == 404
    assert client.get("/play/../app.py").status_code == 404


def test_the_client_uses_only_documented_endpoints(client):  # type: ignore[no-untyped-def]
    """Every /v1 path the page's modules call is an operation of the OpenAPI document."""
    spec = client.get("/openapi.json").get_json()
    documented = [re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", p) + "$") for p in spec["paths"]]
    source = "".join(client.get(f"/play/{name}").get_data(as_text=True) for name in MODULES)
    called = set(re.findall(r"`(/v1/[^`?]*)", source)) | set(re.findall(r"'(/v1/[^'?]*)", source))
    assert called, "the client calls the API"
    for path in called:
        concrete = re.sub(r"\$\{[^}]+\}", "x", path)
        assert any(p.match(concrete) for p in documented), path


def test_pages_send_a_content_security_policy_and_refuse_framing(client):  # type: ignore[no-untyped-def]
    for path in ("/", "/play", "/play/watch?game=abc", "/play/replay?game=abc", "/docs"):
        resp = client.get(path)
        policy = resp.headers.get("Content-Security-Policy", "")
        assert "frame-ancestors 'none'" in policy and resp.headers.get("X-Frame-Options") == "DENY", path
        assert "default-src 'self'" in policy and "object-src 'none'" in policy, path
        scripts = re.search(r"script-src ([^;]*)", policy)
        assert scripts is not None and "'unsafe-inline'" not in scripts.group(1) and "unsafe-eval" not in policy, path
    # /play's policy allows no inline code at all: every script and style is a file of its own.
    play = client.get("/play").headers["Content-Security-Policy"]
    assert "script-src 'self';" in play and "style-src 'self';" in play

"""The web client's modules tested one by one in headless Chromium, as the page runs them: each
``tests/web/js/*.test.js`` imports modules from ``api/static/play/`` and asserts on their pure functions
(text, state, board layout, the connection's state machine with a fake EventSource, keyed drawing).

The browser loads them from a made-up origin on a closed local port, every request answered from the files
here by the test (nothing reaches a network): ``/play/<module>`` from the client's folder, ``/unit/<file>``
from ``tests/web/js/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from api.web import PLAY_DIR

JS_DIR = Path(__file__).resolve().parent / "js"
ORIGIN = "http://127.0.0.1:9"  # the discard port: a request the test does not answer fails at once
HARNESS = """<!doctype html><meta charset="utf-8"><title>{module}</title><body>
<script type="module">
import {{ run }} from '/unit/runner.js';
try {{
  await import('/unit/{module}');
}} catch (err) {{
  window.unitResults = {{ done: true, results: [{{ name: 'import {module}', ok: false, error: String(err.stack || err) }}] }};
  throw err;
}}
await run();
</script>"""


def _serve(module: str) -> Any:
    def answer(route: Any) -> None:
        path = route.request.url[len(ORIGIN) :].split("?", 1)[0]
        folder, _, name = path.lstrip("/").partition("/")
        base = {"play": PLAY_DIR, "unit": JS_DIR}.get(folder)
        if path == "/":
            route.fulfill(status=200, content_type="text/html", body=HARNESS.format(module=module))
        elif base is not None and "/" not in name and (base / name).is_file():
            route.fulfill(status=200, content_type="text/javascript", body=(base / name).read_text())
        else:
            route.fulfill(status=404, body="")

    return answer


@pytest.mark.parametrize("module", sorted(p.name for p in JS_DIR.glob("*.test.js")))
def test_the_modules_pure_functions_in_chromium(new_page, module: str) -> None:  # type: ignore[no-untyped-def]
    p = new_page()
    p.page.route(f"{ORIGIN}/**", _serve(module))
    p.page.goto(f"{ORIGIN}/")
    p.page.wait_for_function("() => window.unitResults && window.unitResults.done")
    results = p.page.evaluate("() => window.unitResults.results")
    failed = [f"{r['name']}\n{r['error']}" for r in results if not r["ok"]]
    assert results and not failed, "\n\n".join(failed)
    assert p.console_errors == []

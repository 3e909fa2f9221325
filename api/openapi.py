"""Export the OpenAPI document the app serves: ``python -m api.openapi openapi/openapi.json``.

A test fails when ``openapi/openapi.json`` differs from what the app serves at ``/openapi.json``."""

from __future__ import annotations

import json
import sys
from typing import Any

from api.app import create_app


def spec() -> dict[str, Any]:
    app = create_app()
    return app.test_client().get("/openapi.json").get_json()  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = json.dumps(spec(), indent=2, ensure_ascii=False) + "\n"
    if not args or args[0] == "-":
        sys.stdout.write(text)
    else:
        with open(args[0], "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

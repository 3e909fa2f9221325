"""gunicorn's access log, with stream tickets cut short: a ticket in a URL (``?ticket=``, for ``EventSource``)
is a credential until it is used, so the log keeps only its first characters (enough to tell two apart). An
app key (``dsk_app_...``) belongs in the ``Authorization`` header, which the log does not show; one pasted
into a URL by mistake is cut to its prefix all the same."""

from __future__ import annotations

import re
from typing import Any

from gunicorn.glogging import Logger  # type: ignore[import-untyped]

_TICKET = re.compile(r"((?:^|[?&])ticket=)([^&\s]*)")
_APP_KEY = re.compile(r"dsk_app_[A-Za-z0-9_%-]*")
KEPT = 4


def redact(text: str) -> str:
    text = _APP_KEY.sub("dsk_app_...", text)
    return _TICKET.sub(lambda m: m.group(1) + m.group(2)[:KEPT] + ("..." if len(m.group(2)) > KEPT else ""), text)


class AccessLogger(Logger):  # type: ignore[misc]  # gunicorn ships no types
    def atoms(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> dict[str, Any]:
        atoms: dict[str, Any] = super().atoms(resp, req, environ, request_time)
        for key in ("r", "q"):
            if isinstance(atoms.get(key), str):
                atoms[key] = redact(atoms[key])
        return atoms

"""What the routes share: OpenAPI parameters and headers, schema fields' validators, tokens from headers, fast
JSON responses, version headers."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import flask
import marshmallow as ma
import orjson

from api.errors import InvalidRequest, Unauthorized

SEAT_AUTH: list[dict[str, list[str]]] = [{"seatToken": []}, {}]  # a token is optional: without it, the spectator's
IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "maxLength": 255},
    "description": "A retry with the same key gets the first answer.",
}
VIEW_HEADERS = {
    "ETag": {"description": 'Strong: `"<version>"`', "schema": {"type": "string"}},
    "Vary": {"description": "`Authorization`", "schema": {"type": "string"}},
    "Cache-Control": {"description": "`private, no-store` on a seat's view", "schema": {"type": "string"}},
}
# The ends a move may name (the engine parses the same): a line's four, Mexican Train's own train and trains.
END = re.compile(r"^(left|right|up|down|mexican|train:\d{1,2})$")


def no_control_chars(value: str) -> None:
    """A validator for names: printable, not blank."""
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") for c in value):
        raise ma.ValidationError("must not contain control or format characters")
    if not value.strip():
        raise ma.ValidationError("must not be blank")


def bearer_token() -> str | None:
    """The seat token of ``Authorization: Bearer <token>``; None without the header."""
    header = flask.request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 200:
        raise Unauthorized("Send a seat token as `Authorization: Bearer <token>`.")
    return token


def idempotency_key() -> str | None:
    key = flask.request.headers.get("Idempotency-Key")
    if key is None:
        return None
    key = key.strip().strip('"')
    if not key or len(key) > 255:
        raise InvalidRequest("`Idempotency-Key` must be 1-255 characters.", errors={"headers": {"Idempotency-Key": ["1-255 characters"]}})
    return key


def etag(version: int) -> str:
    return f'"{version}"'


def parse_if_match(header: str | None) -> int | None:
    """The version an ``If-Match`` names (``"17"``); None without the header or with ``*``."""
    if header is None:
        return None
    header = header.strip()
    if header == "*":
        return None
    tags = [t.strip() for t in header.split(",") if t.strip()]
    if len(tags) == 1:
        tag = tags[0]
        if tag.startswith('"') and tag.endswith('"') and tag[1:-1].isdigit() and len(tag) < 20:
            return int(tag[1:-1])
    raise InvalidRequest(
        'If-Match must be one strong ETag of a version, like "17".', errors={"headers": {"If-Match": ["not a version ETag"]}}
    )


def if_none_match_hits(version: int) -> bool:
    header = flask.request.headers.get("If-None-Match")
    if not header:
        return False
    tags = {t.strip().removeprefix("W/") for t in header.split(",")}
    return "*" in tags or etag(version) in tags


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> flask.Response:
    resp = flask.Response(orjson.dumps(body), status=status, mimetype="application/json")
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def view_headers(version: int, seat: int | None) -> dict[str, str]:
    headers = {"ETag": etag(version), "Vary": "Authorization"}
    if seat is not None:
        headers["Cache-Control"] = "private, no-store"
    else:
        headers["Cache-Control"] = "no-cache"
    return headers

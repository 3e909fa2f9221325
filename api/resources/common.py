"""Helpers shared by the routes: tokens from headers, fast JSON responses, version headers."""

from __future__ import annotations

from typing import Any

import flask
import orjson

from api.errors import InvalidRequest, Unauthorized


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

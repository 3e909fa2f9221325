"""What the routes and schemas share: OpenAPI parameters and headers, tokens from headers, fast JSON responses,
version headers, and body fields exactly as strict as the OpenAPI document says (a JSON boolean is
`true`/`false`, never `1`)."""

from __future__ import annotations

import re
from typing import Any

import flask
import marshmallow as ma
import orjson

import domino.bots

from api.service.errors import InvalidRequest, Unauthorized
from api.framework import ApiResponse
from api.service.apps import is_app_key


# Security of the operations: a seat token required, or optional (without it, the spectator's answer).
SEAT_TOKEN: list[dict[str, list[str]]] = [{"bearer": []}]
SEAT_TOKEN_OPTIONAL: list[dict[str, list[str]]] = [{}, {"bearer": []}]
BOT_TOKEN: list[dict[str, list[str]]] = [{"botToken": []}]  # a registered bot's own token
# An app key (`dsk_app_...`) required. Where it is optional (creating and listing games) the operation says so in
# its description: a generated client would otherwise need a credential for anonymous calls.
APP_KEY: list[dict[str, list[str]]] = [{"appKey": []}]
# An operation that holds its request open (a long poll, a stream): `@blp.doc(**STREAMING)`. A proxy in front
# sends every such operation to the streaming server (deploy/nginx.conf; a test reads both).
STREAMING: dict[str, bool] = {"x-streaming": True}


def wants_sse() -> bool:
    """The client asks for Server-Sent Events (``Accept: text/event-stream`` preferred to JSON)."""
    best = flask.request.accept_mimetypes.best_match(["application/json", "text/event-stream"])
    return best == "text/event-stream"

# A human's name: 1-40 characters, not all spaces, none of Unicode's control, format or line/paragraph separator
# characters (categories Cc, Cf, Zl, Zp of the Basic Multilingual Plane; JSON bodies carry no lone surrogates).
# The same pattern is checked here and published in the document, so a client can check a name before sending it.
_NOT_IN_NAMES = (
    r"\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f"
    r"\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
)
# Spaces, the first character that is none, then anything allowed: the first two classes share no character, so a
# match takes time linear in the name's length (with `[^...]*` first, a 16 KiB name that fails at its end took
# quadratic time, seconds of a server process with the interpreter's lock held).
NAME_PATTERN = rf"^[^{_NOT_IN_NAMES}\S]*[^{_NOT_IN_NAMES}\s][^{_NOT_IN_NAMES}]*$"


def name_field(description: str, example: str, **kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=[ma.validate.Length(min=1, max=40), ma.validate.Regexp(re.compile(NAME_PATTERN), error="must not be blank "
                  "or contain control or format characters")],
        metadata={"description": description, "example": example, "pattern": NAME_PATTERN},
        **kwargs,
    )  # fmt: skip


def bot_ids() -> list[str]:
    """The computer players' strategy ids (`GET /v1/bots`): an enum in the document."""
    return [bot["id"] for bot in domino.bots.catalog()]


class StrictBoolean(ma.fields.Boolean):
    """A JSON boolean only (marshmallow's also takes 1, "yes", "on", ...)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class WholeNumber(ma.fields.Integer):
    """A JSON integer: `17`, or `17.0`, which JSON Schema counts as an integer too; no string, no boolean."""

    def _validated(self, value: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


class StrictFloat(ma.fields.Float):
    """A JSON number only (marshmallow's also takes "1.5"; it refuses booleans itself)."""

    def _validated(self, value: Any) -> float:
        if not isinstance(value, (int, float)):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


def bearer_token(req: flask.Request | None = None) -> str | None:
    """The seat token of ``Authorization: Bearer <token>`` of ``req`` (or this request); None without the
    header, or when it carries an app key (``api.callers.calling_app`` reads that one)."""
    header = (req or flask.request).environ.get("HTTP_AUTHORIZATION")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 200:
        raise Unauthorized("Send a seat token as `Authorization: Bearer <token>`.")
    return None if is_app_key(token) else token


METADATA_MAX_BYTES = 1024
PLAYER_PATTERN = r"^[A-Za-z0-9._:@-]{1,64}$"


class Metadata(ma.fields.Dict):
    """An app's own JSON object, stored and returned as given, never interpreted: at most 1 KB as JSON."""

    def __init__(self, what: str, **kwargs: Any) -> None:
        description = (
            f"{what}: any JSON object of yours, at most {METADATA_MAX_BYTES} bytes as compact JSON; returned in "
            "views, history, events and webhooks, never interpreted (422 naming the field when larger)"
        )
        super().__init__(
            keys=ma.fields.String(),
            validate=small_json,
            metadata={"description": description, "example": {"table": "t-17"}},
            **kwargs,
        )


def small_json(value: Any) -> None:
    if len(orjson.dumps(value)) > METADATA_MAX_BYTES:
        raise ma.ValidationError(f"at most {METADATA_MAX_BYTES} bytes as JSON")


def one_clock(data: dict[str, Any], what: str) -> None:
    """A request's time per move is a `clock` or a `turn_timeout_s`, never both (``what``: "a game", ...)."""
    if data.get("clock") is not None and data.get("turn_timeout_s") is not None:
        raise ma.ValidationError(f"{what} has a `clock` or a `turn_timeout_s`, not both", "clock")


def player_field(description: str | None = None, required: bool = False) -> ma.fields.String:
    """A seat's ``player`` (with an example), or with ``description`` the listing's filter (without one: an
    example run of the document sends it alone, where it needs ``owner=me``)."""
    doc: dict[str, Any] = {"pattern": PLAYER_PATTERN}
    if description is None:
        doc.update(
            description="your app's own id of this seat's user (1-64 of `A-Za-z0-9._:@-`): list the games of a "
            "player with `GET /v1/games?owner=me&player=<id>`",
            example="user:4711",
        )
    else:
        doc["description"] = description
    return ma.fields.String(
        validate=ma.validate.Regexp(re.compile(PLAYER_PATTERN), error="1-64 of A-Z a-z 0-9 . _ : @ -"), metadata=doc,
        required=required,
    )


IDEMPOTENCY_KEY_PATTERN = r"^[!-~]([ -~]{0,253}[!-~])?$"  # 1-255 printable ASCII characters, no outer space
_IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)


def header_parameter(name: str, pattern: str, example: str, description: str) -> dict[str, Any]:
    """An optional request header of the document, with the pattern its value must match."""
    return {
        "name": name,
        "in": "header",
        "required": False,
        "schema": {"type": "string", "pattern": pattern},
        "example": example,
        "description": description,
    }


IDEMPOTENCY_KEY = header_parameter(
    "Idempotency-Key",
    IDEMPOTENCY_KEY_PATTERN,
    "8e0f6d1c-create-1",
    "A retry with the same key from the same caller (address and `Authorization`) gets the first answer.",
)
VIEW_HEADERS = {
    "ETag": {
        "description": 'Strong: `"<version>"`, or `"<version>.a"` once the archive holds the finished game',
        "schema": {"type": "string"},
    },
    "Vary": {"description": "`Authorization`", "schema": {"type": "string"}},
    "Cache-Control": {"description": "`private, no-store` on a seat's view", "schema": {"type": "string"}},
}


def idempotency_key(req: flask.Request | None = None) -> str | None:
    """The ``Idempotency-Key`` of ``req`` (or this request)."""
    key: str | None = (req or flask.request).environ.get("HTTP_IDEMPOTENCY_KEY")
    if key is None:
        return None
    if not _IDEMPOTENCY_KEY.fullmatch(key):
        raise InvalidRequest(
            "`Idempotency-Key` must be 1-255 printable ASCII characters.",
            errors={"headers": {"Idempotency-Key": ["1-255 printable ASCII characters"]}},
        )
    return key


def etag(version: int, archived: bool = False) -> str:
    """``"<version>"``; ``"<version>.a"`` once the archive holds the game (which changes a view with no new
    version: ``archived`` becomes true)."""
    return f'"{version}.a"' if archived else f'"{version}"'


IF_MATCH_PATTERN = r'^(\*|"[0-9]{1,16}")$'
_IF_MATCH = re.compile(IF_MATCH_PATTERN)
IF_MATCH = header_parameter(
    "If-Match",
    IF_MATCH_PATTERN,
    '"17"',
    'The version the change expects (`"17"`, the view\'s `ETag`): on any other, 412; `*`: any version.',
)


def parse_if_match(header: str | None) -> int | None:
    """The version an ``If-Match`` names (``"17"``); None without the header or with ``*``. Anything else,
    an empty header too, is what the document's pattern refuses: a 422."""
    if header is None:
        return None
    if _IF_MATCH.fullmatch(header.strip()):
        return None if header.strip() == "*" else int(header.strip()[1:-1])
    raise InvalidRequest(
        'If-Match must be one strong ETag of a version, like "17".', errors={"headers": {"If-Match": ["not a version ETag"]}}
    )


def if_none_match_hits(version: int, archived: bool = False) -> bool:
    header = flask.request.headers.get("If-None-Match")
    if not header:
        return False
    tags = {t.strip().removeprefix("W/") for t in header.split(",")}
    return "*" in tags or etag(version, archived) in tags


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> flask.Response:
    """``headers`` are added after ``Content-Type`` (none of them is already there: no look for one)."""
    resp = ApiResponse(orjson.dumps(body), status=status, content_type="application/json")
    if headers:
        add = resp.headers.add
        for name, value in headers.items():
            add(name, value)
    return resp


def view_headers(version: int, seat: int | None, archived: bool = False) -> dict[str, str]:
    headers = {"ETag": etag(version, archived), "Vary": "Authorization"}
    if seat is not None:
        headers["Cache-Control"] = "private, no-store"
    else:
        headers["Cache-Control"] = "no-cache"
    return headers

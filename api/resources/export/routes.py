from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import flask
import orjson

import domino
from api import errors as E
from api.callers import calling_app
from api.extensions import Blueprint, current_service
from api.resources.common import APP_KEY, BOT_TOKEN, STREAMING, bearer_token
from api.resources.export.schemas import ExportQuerySchema
from api.resources.games.record_example import RECORD_EXAMPLE, TEXT_EXAMPLE
from api.service.export import ExportRequest

blp = Blueprint("export", __name__, url_prefix="/v1/games", description="Export archived games' records in bulk.")

NDJSON = "application/x-ndjson"
RECORD_TEXT = domino.notation.MEDIA_TYPE
EXPORTED = {
    "description": "The records, in the archive's order, as the archive is read (the answer streams)",
    "headers": {"Vary": {"description": "`Authorization, Accept`", "schema": {"type": "string"}}},
    "content": {
        NDJSON: {
            "schema": {
                "type": "string",
                "description": "one JSON record a line (each as `GET /v1/games/{id}/record` answers it: the "
                "`History` schema), each line ended by a line feed",
            },
            "example": orjson.dumps(RECORD_EXAMPLE).decode() + "\n",
        },
        RECORD_TEXT: {
            "schema": {"type": "string", "description": "the text records (docs/notation.md), each followed by a blank line"},
            "example": TEXT_EXAMPLE + "\n",
        },
    },
}


@blp.route("/export")
@blp.doc(operationId="exportGames", **STREAMING, security=[*APP_KEY, *BOT_TOKEN], responses={200: EXPORTED})
@blp.arguments(ExportQuerySchema(), location="query", as_kwargs=True)
@blp.problems(E.UNAUTHORIZED, E.INVALID_REQUEST, E.UNAVAILABLE, path="/v1/games/export")
def export_games(**query: Any) -> flask.Response:
    """Export the records of archived games: NDJSON, or text records with `Accept: text/x-domino-record`

    With an app key: the app's games and the games its registered bots sit in; with a bot token
    (`dsk_bot_...`): the games that bot sits in. Only games the archive holds (finished or aborted, usually
    within seconds of their end), filtered by `since`/`until` (when they ended), `variant`, `player` and
    `rated`. Each record is the game's JSON record (`GET /v1/games/{id}/record`) on one line
    (`application/x-ndjson`, the default), or its text form followed by a blank line.

    The records come in the archive's order, read in short pages as the answer streams: the export of any
    number of games starts at once and holds little memory. To resume an export that stopped (a dropped
    connection, or `limit` reached), send the same query with `after` = the `id` of the last record received:
    no game is sent twice or skipped, and games archived since then follow. An export that ends early (the
    archive stopped answering) ends without its final chunk, so a client sees it cut short."""
    pages = current_service().export(calling_app(), bearer_token(), ExportRequest(**query))
    headers = {"Cache-Control": "private, no-store", "Vary": "Authorization, Accept"}
    if flask.request.accept_mimetypes.best_match([NDJSON, RECORD_TEXT]) == RECORD_TEXT:
        return flask.Response(_texts(pages), content_type=f"{RECORD_TEXT}; charset=utf-8", headers=headers)
    return flask.Response(_lines(pages), mimetype=NDJSON, headers=headers)


def _lines(pages: Iterator[list[str]]) -> Iterator[bytes]:
    for page in pages:
        yield "".join(f"{record}\n" for record in page).encode()


def _texts(pages: Iterator[list[str]]) -> Iterator[bytes]:
    for page in pages:
        yield "".join(domino.notation.write_text(orjson.loads(record)) + "\n" for record in page).encode()

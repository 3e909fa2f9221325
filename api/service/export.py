"""Bulk export (``GET /v1/games/export``): the records of archived games, in the archive's order, read in short
keyset pages while the answer streams, so neither the process nor the database holds the whole answer.

An app key exports the app's games and those in which its registered bots sit (with ``player``: only the
app's games with a seat of that player); a bot token, the games that bot sits in. ``after`` (a game id: the
last record received) resumes an export where it stopped: the archive numbers its games in commit order, so
nothing archived before that game is met again and nothing after it is skipped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from api.archive import Archive, Scope, Since
from api.service.apps import App
from api.service.errors import InvalidRequest
from api.store import Store

PAGE = 100  # games per query: a page of records is about a megabyte


@dataclasses.dataclass(frozen=True)
class ExportRequest:
    since: float | None = None
    until: float | None = None
    variant: str | None = None
    player: str | None = None
    rated: bool | None = None
    after: str | None = None  # a game id: the export goes on after it
    limit: int | None = None  # at most this many games (None: every one)


def scope_of(store: Store, app: App | None, bot: str | None, player: str | None) -> Scope:
    """The games an app (its own, its registered bots') or a registered bot may export."""
    if app is None:
        if player is not None:
            why = "only with an app key: a player is an app's own id of its user"
            raise InvalidRequest(f"`player` goes {why}.", errors={"query": {"player": [why]}})
        return Scope(bots=(str(bot),))
    if player is not None:
        return Scope(app=app.id, player=player)
    bots = tuple(sorted(record["name"] for record, _ in store.bots.all() if record.get("owner") == app.id))
    return Scope(app=app.id, bots=bots)


def export(archive: Archive, scope: Scope, request: ExportRequest) -> Iterator[list[str]]:
    """The records (JSON texts, as ``GET /v1/games/{id}/record`` answers them: the archive keeps them so) in
    archive order, a page at a time. The cursor
    and the first page are read before this returns, so a bad cursor or an archive that is down is an error
    answer, not a broken stream."""
    after = 0
    if request.after is not None:
        found = archive.position(request.after)
        if found is None:
            why = "the id of an archived game (the last record received)"
            raise InvalidRequest(f"`after` is not {why}.", errors={"query": {"after": [why]}})
        after = found
    only = Since(request.since, request.until, request.variant, request.rated)
    left = request.limit
    first = archive.export(scope, only, after, PAGE if left is None else min(PAGE, left))
    return _pages(archive, scope, only, first, left)


def _pages(
    archive: Archive, scope: Scope, only: Since, page: list[tuple[int, str, str]], left: int | None
) -> Iterator[list[str]]:
    while page:
        yield [raw for _, _, raw in page]
        if left is not None:
            left -= len(page)
        want = PAGE if left is None else min(PAGE, left)
        if len(page) < PAGE or want == 0:
            return
        page = archive.export(scope, only, page[-1][0], want)

"""Live games nobody touches: when each is looked at again, what it holds meanwhile, and the games that have no
idle check yet.

Every live game has an entry in ``<prefix>:idle:due`` (marked by its creation), due when it has been left
idle for ``game_ttl`` (counted from its last commit, or its deadline when that is later); the sweep ends it
then, or moves the entry on. Until that moment plus ``expiry_margin`` the game keeps its keys and its
creator's (or its app's) slot of the games-at-once cap: a correspondence game that lives for weeks holds its
slot for weeks, and a game that ends releases it (:class:`api.service.commits.Commits`).

Games created before idle checks existed have no entry; :meth:`IdleChecks.adopt` (run once by the sweep, then
remembered in Redis) finds them by a scan of the game keys and gives each one its entry, keys and slot.
"""

from __future__ import annotations

import logging
import math
import time

from api.config import Settings
from api.service.games import Games
from api.service.records import REGISTERED, GameRecord
from api.store import Store

log = logging.getLogger("api.service.idle")

ADOPTED = "adopted"  # the one-off step that gave every older live game an idle check
SCAN_BATCH = 500


def idle_at(doc: GameRecord, game_ttl: float) -> float:
    """When a live game with this record is idle for ``game_ttl``: after its last touch, or its deadline."""
    touched = max(doc.get("touched_at") or doc["created_at"], doc.get("deadline") or 0.0)
    return touched + game_ttl


class IdleChecks:
    def __init__(self, store: Store, settings: Settings, games: Games) -> None:
        self.store = store
        self.settings = settings
        self.games = games

    def hold_until(self, doc: GameRecord, until: float) -> None:
        """The creator's (or app's) slot for this live game, and its registered bots', are held until ``until``
        plus the margin."""
        lease_ms = math.ceil((until - time.time() + self.settings.expiry_margin) * 1000)
        if lease_ms <= 0:
            return
        if "app" in doc:
            self.store.app_games.take(doc["app"], doc["id"], 0, lease_ms)
        elif "creator" in doc:
            self.store.client_games.take(doc["creator"], doc["id"], 0, lease_ms)
        for seat in doc["seats"]:  # and each registered bot's (its max_games)
            if seat["kind"] == REGISTERED:
                self.store.bot_games.take(seat["bot"], doc["id"], 0, lease_ms)

    def adopt(self) -> int:
        """Give each live game without an idle check one (and its keys and slot until then plus the margin);
        once done, never again. Returns how many games it adopted."""
        due = self.store.idle_due
        if due.done(ADOPTED):
            return 0
        adopted = 0
        for ids in self.store.games.scan_ids(SCAN_BATCH):
            pending = due.pending(ids)
            found = self.games.find_live([game_id for game_id in ids if game_id not in pending])
            for game in found.values():
                if game.state.finished:
                    continue
                at = idle_at(game.doc, self.settings.game_ttl)
                due.mark(game.id, at, only_new=True)
                self.store.expiry.keep(game.id, at - time.time() + self.settings.expiry_margin)
                self.hold_until(game.doc, at)
                adopted += 1
        due.complete(ADOPTED)
        if adopted:
            log.info("gave %s live games created before idle checks their idle check", adopted)
        return adopted

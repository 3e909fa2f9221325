"""How long a game's keys live once nothing commits to it: kept while a seat's turn is held or late (the game
is ended when idle, so its keys must outlive that), and the short grace of a game the archive holds.

A live game's keys get their expiry with each commit (:meth:`api.store.games.GameStore.commit`); a finished
game's keys do not expire until the archive holds it, then live ``DOMINO_ARCHIVED_TTL``."""

from __future__ import annotations

from collections.abc import Sequence


from api.store.connections import translating
from api.store.games import GameStore

# KEYS: state, events, idem.  ARGV: ttl.  Flags a game that is still here as archived, and sets the expiry of
# each of its keys (one script: a game is never flagged without its expiry).
_MARK_ARCHIVED = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'a', '1')
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[1]) end
return 1
"""


class GameExpiry:
    def __init__(self, games: GameStore) -> None:
        self.games = games

    def keep(self, game_id: str, ttl: float) -> None:
        """The game's state and events live at least ``ttl`` more seconds (a longer expiry stays)."""
        self.keep_many([game_id], ttl)

    @translating
    def keep_many(self, game_ids: Sequence[str], ttl: float) -> None:
        """:meth:`keep` for each of ``game_ids``, in one pipeline."""
        pipe = self.games.redis.pipeline(transaction=False)
        for game_id in game_ids:
            for key in (self.games.state_key(game_id), self.games.events_key(game_id)):
                pipe.expire(key, max(1, round(ttl)), gt=True)
        if game_ids:
            pipe.execute()

    @translating
    def mark_archived(self, game_ids: Sequence[str], ttl: int) -> None:
        """The archive holds these games: flag them (views say so) and let their keys expire in ``ttl``."""
        keyed = [(self.games.state_key(g), self.games.events_key(g), self.games.idem_key(g)) for g in game_ids]
        if self.games.connections.cluster:  # a cluster pipeline takes no scripts: one call per game, on its node
            for keys in keyed:
                self.games.redis.eval(_MARK_ARCHIVED, 3, *keys, ttl)
            return
        if not keyed:
            return
        self.games.connections.eval_each(_MARK_ARCHIVED, [(keys, [ttl]) for keys in keyed])

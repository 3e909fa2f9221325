"""Rewriting a game's keys in place, without a new version: only to erase a player's personal data (an app's
deletion request, :mod:`api.service.erasure`). A stream's entries cannot be edited, so the events stream is
written again whole, with the same ids and its expiry, in one script (readers never see it missing)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import orjson

from api.store.connections import translating
from api.store.games import GameStore

# KEYS: state, events.  ARGV: the version the document must be at ("": leave the document), the new document,
# then pairs of (stream id, the entry's new payload).  Returns 1 when done, 0 when the version moved on, -1
# when the game is gone.
_REWRITE = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if ARGV[1] ~= '' then
  if v ~= ARGV[1] then return 0 end
  redis.call('HSET', KEYS[1], 'doc', ARGV[2])
end
if #ARGV > 2 then
  local new = {}
  for i = 3, #ARGV, 2 do new[ARGV[i]] = ARGV[i + 1] end
  local ttl = redis.call('PTTL', KEYS[2])
  local entries = redis.call('XRANGE', KEYS[2], '-', '+')
  redis.call('DEL', KEYS[2])
  for _, entry in ipairs(entries) do
    redis.call('XADD', KEYS[2], entry[1], 'e', new[entry[1]] or entry[2][2])
  end
  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
end
return 1
"""


class GameRewrites:
    def __init__(self, games: GameStore) -> None:
        self.games = games

    @translating
    def rewrite(self, game_id: str, version: int | None, doc: Any, events: Mapping[str, Any]) -> bool | None:
        """Replace the document (when ``version`` is given: only at that version) and the events of
        ``events`` (stream id -> stored event). False when the version moved on, None when the game is gone."""
        keys = (self.games.state_key(game_id), self.games.events_key(game_id))
        args: list[Any] = ["" if version is None else version, b"" if version is None else orjson.dumps(doc)]
        for stream_id, event in events.items():
            args += [stream_id, orjson.dumps(event)]
        done = int(cast(Any, self.games.redis.eval(_REWRITE, 2, *keys, *args)))
        return None if done < 0 else done == 1

"""Ratings of rated games, per variant, on the queue connection (one plain node: each update is one script
over several keys).

- ``<prefix>:rating:<variant>``: hash, rated player (``builtin:greedy``, ``registered:<name>``,
  ``player:<app>:<player>``) -> its rating as JSON (``mu``, ``sigma``, ``games``, and who it is);
- ``<prefix>:rating:<variant>:board:<scope>``: sorted set, rated player -> ordinal (``mu - 3 sigma``), one per
  leaderboard (``bots``; ``app:<app id>`` for an app's players), so a page of a leaderboard is one range read;
- ``<prefix>:rated:<game>``: string with the finished games' expiry, the mark of a game whose ratings were
  updated. It is written by the same script as the new ratings, so a worker dying anywhere leaves either
  both or neither, and a game is counted once however many times (or how concurrently) its job runs.
"""

from __future__ import annotations

import dataclasses
from typing import cast

import redis

from api.store.connections import translating

# KEYS: ratings hash, the game's mark, then one leaderboard per entry.  ARGV: the mark's ttl (s), then per
# entry: field, its value as read ('' when it had none), its new value, its new ordinal, '1' when it is listed
# ('0': a retired bot, kept off its leaderboard). Returns 1 (written), 0 (the game was rated already: nothing
# written), -1 (a rating changed since it was read: nothing written).
_RATE = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local n = (#ARGV - 1) / 5
for i = 0, n - 1 do
  local current = redis.call('HGET', KEYS[1], ARGV[2 + 5 * i]) or ''
  if current ~= ARGV[3 + 5 * i] then return -1 end
end
for i = 0, n - 1 do
  redis.call('HSET', KEYS[1], ARGV[2 + 5 * i], ARGV[4 + 5 * i])
  if ARGV[6 + 5 * i] == '1' then
    redis.call('ZADD', KEYS[3 + i], ARGV[5 + 5 * i], ARGV[2 + 5 * i])
  else
    redis.call('ZREM', KEYS[3 + i], ARGV[2 + 5 * i])
  end
end
redis.call('SET', KEYS[2], '1', 'EX', ARGV[1])
return 1
"""

RATED, ALREADY_RATED, CHANGED = 1, 0, -1


@dataclasses.dataclass(frozen=True)
class RatingWrite:
    """One player's new rating, written only if its stored value is still ``read`` (None: it had none)."""

    player: str
    board: str  # the leaderboard it is listed on (``bots``, ``app:<id>``)
    read: str | None
    value: str
    ordinal: float
    listed: bool = True  # on its leaderboard (not a retired bot)


class RatingStore:
    def __init__(self, conn: redis.Redis, prefix: str, mark_ttl: int) -> None:
        self.conn = conn
        self.prefix = prefix
        self.mark_ttl = mark_ttl
        self._rate = conn.register_script(_RATE)

    def key(self, variant: str) -> str:
        return f"{self.prefix}:rating:{variant}"

    def board_key(self, variant: str, board: str) -> str:
        return f"{self.prefix}:rating:{variant}:board:{board}"

    def mark_key(self, game_id: str) -> str:
        return f"{self.prefix}:rated:{game_id}"

    @translating
    def read(self, variant: str, players: list[str]) -> list[str | None]:
        """Each player's stored rating (JSON) or None."""
        if not players:
            return []
        raw = cast("list[bytes | None]", self.conn.hmget(self.key(variant), players))
        return [None if r is None else r.decode() for r in raw]

    @translating
    def read_variants(self, variants: list[str], players: list[str]) -> list[list[str | None]]:
        """The players' stored ratings (JSON or None) in each of ``variants``, in one round trip."""
        if not players:
            return [[] for _ in variants]
        pipe = self.conn.pipeline(transaction=False)
        for variant in variants:
            pipe.hmget(self.key(variant), players)
        return [[None if r is None else r.decode() for r in row] for row in pipe.execute()]

    @translating
    def rated(self, game_id: str) -> bool:
        return bool(self.conn.exists(self.mark_key(game_id)))

    @translating
    def write_once(self, variant: str, game_id: str, writes: list[RatingWrite]) -> int:
        """Write a game's new ratings and its mark at once, unless it is marked (ALREADY_RATED) or a rating
        changed since it was read (CHANGED: read again and recompute)."""
        keys = [self.key(variant), self.mark_key(game_id), *(self.board_key(variant, w.board) for w in writes)]
        args: list[str | int | float] = [self.mark_ttl]
        for w in writes:
            args.extend((w.player, w.read or "", w.value, w.ordinal, "1" if w.listed else "0"))
        return int(self._rate(keys=keys, args=args))

    @translating
    def board(self, variant: str, board: str, after: tuple[float, str] | None, count: int) -> list[tuple[str, float, str]]:
        """Up to ``count`` players of a leaderboard, best first (by ordinal, then by key, descending), after the
        position ``after`` (ordinal, player) of a page before: (player, ordinal, its rating as JSON)."""
        key = self.board_key(variant, board)
        rows: list[tuple[bytes, float]]
        if after is None:
            rows = cast("list[tuple[bytes, float]]", self.conn.zrevrange(key, 0, count - 1, withscores=True))
        else:  # from the cursor's ordinal on, less those of that ordinal a page before showed (ties are rare)
            ties = int(self.conn.zcount(key, after[0], after[0]))
            found = self.conn.zrevrangebyscore(key, after[0], "-inf", start=0, num=count + ties, withscores=True)
            rows = [(m, o) for m, o in cast("list[tuple[bytes, float]]", found) if not (o == after[0] and m.decode() >= after[1])]
            rows = rows[:count]
        players = [(m.decode(), float(o)) for m, o in rows]
        values = self.read(variant, [p for p, _ in players])
        return [(p, o, v) for (p, o), v in zip(players, values) if v is not None]

    @translating
    def unlist(self, variants: list[str], board: str, player: str) -> None:
        """Take ``player`` off ``board`` in every variant (a retired bot); its ratings stay."""
        pipe = self.conn.pipeline(transaction=False)
        for variant in variants:
            pipe.zrem(self.board_key(variant, board), player)
        pipe.execute()

"""An arena's spec: a request checked into the games it plays.

Game ``i`` plays deal ``i // seatings`` (dealt from ``"<seed>:<deal>"``; the seed is a server secret) with
the bots seated in seating ``i % seatings``. In duplicate mode the seatings are every order of the bots over
the seats, so each bot plays each deal from every seat and the luck of the deal cancels out; otherwise each
deal is played once, the bots rotated a seat further each deal.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import secrets
from collections.abc import Callable
from typing import Any

import orjson

import domino
from api.config import Settings
from api.service.errors import InvalidRequest
from api.service.create import GameRequest
from api.service.validation import check_variant, invalid, resolve_rules


@dataclasses.dataclass(frozen=True)
class ArenaRequest:
    """What a client asks for (``POST /v1/arenas``), before it is checked."""

    variant: str
    bots: list[str]
    deals: int
    duplicate: bool = True
    rules: dict[str, Any] | None = None


@dataclasses.dataclass(frozen=True)
class ArenaOwner:
    """Who creates an arena: an app (its key) or a registered bot (its token)."""

    key: str  # ``app:<id>`` or ``bot:<name>``: the arena's ``owner``
    app_id: str | None = None  # an app: its bots may be entered
    bot: str | None = None  # a bot: it may enter itself

    @classmethod
    def of_app(cls, app_id: str) -> ArenaOwner:
        return cls(f"app:{app_id}", app_id=app_id)

    @classmethod
    def of_bot(cls, name: str) -> ArenaOwner:
        return cls(f"bot:{name}", bot=name)

    def may_enter(self, record: dict[str, Any]) -> bool:
        """A registered bot enters this owner's arena when it is the owner's, or its owner opened it to arenas."""
        return record["owner"] == self.app_id or record["name"] == self.bot or record.get("arenas") == "open"


@dataclasses.dataclass(frozen=True)
class ArenaSpec:
    """What an arena plays; stored as JSON in its record and never changed."""

    variant: str
    rules: dict[str, Any]  # the overrides asked for (every game resolves them the same way)
    bots: tuple[str, ...]
    deals: int
    duplicate: bool
    seatings: int  # games per deal
    seed: str  # a server secret: deal d is dealt from "<seed>:<d>"
    deal_version: int  # how every game's seed deals (domino.DEAL_VERSIONS): the same for the whole arena
    per_bot: int  # the arena's games in play at once (each seats every bot: also each bot's cap in it)

    @property
    def games(self) -> int:
        return self.deals * self.seatings

    def deal(self, index: int) -> int:
        return index // self.seatings

    def lineup(self, index: int) -> tuple[str, ...]:
        """The bot on each seat of game ``index``."""
        if self.duplicate:
            return next(itertools.islice(itertools.permutations(self.bots), index % self.seatings, None))
        n = len(self.bots)
        shift = self.deal(index) % n
        return self.bots[shift:] + self.bots[:shift]

    def game_request(self, index: int) -> GameRequest:
        """Game ``index`` as any client would create it: rated, unlisted, the bots by name."""
        return GameRequest(
            self.variant, [{"bot": b} for b in self.lineup(index)], rules=dict(self.rules), unlisted=True, rated=True
        )

    def to_json(self) -> bytes:
        return orjson.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, raw: str | bytes) -> ArenaSpec:
        data = orjson.loads(raw)
        data["bots"] = tuple(data["bots"])
        data.setdefault("deal_version", 1)  # stored before deal version 2: its games so far were dealt by 1
        return cls(**data)


def make_spec(settings: Settings, req: ArenaRequest, check_game: Callable[[GameRequest], object]) -> ArenaSpec:
    """Validate a request into a spec; every problem is an InvalidRequest naming the field. ``check_game``
    checks a game as its creation would: the bots (a registered one must exist, play the variant and be
    available; the first game seats bot ``i`` at seat ``i``, so a problem there names ``bots[i]``) and the caps
    on games of computer players only."""
    check_variant(req.variant, req.rules, "bots")
    if len(set(req.bots)) != len(req.bots):
        raise invalid("bots", "each bot once", "`bots`: name each bot once (a rated game seats each player once).")
    resolve_rules(req.variant, len(req.bots), req.rules, "bots")
    s = settings
    if not 1 <= req.deals <= s.arena_max_deals:
        raise invalid("deals", f"between 1 and {s.arena_max_deals}")
    seatings = math.factorial(len(req.bots)) if req.duplicate else 1
    if req.deals * seatings > s.arena_max_games:
        most = s.arena_max_games // seatings
        raise invalid(
            "deals",
            f"at most {most} with {len(req.bots)} bots" + (" in duplicate mode" if req.duplicate else ""),
            f"`deals`: {req.deals} deals of {seatings} games each is {req.deals * seatings} games, over the limit of "
            f"{s.arena_max_games}; ask for at most {most} deals, or fewer bots.",
        )
    spec = ArenaSpec(
        variant=req.variant,
        rules=dict(req.rules or {}),
        bots=tuple(req.bots),
        deals=req.deals,
        duplicate=req.duplicate,
        seatings=seatings,
        seed=secrets.token_hex(16),
        deal_version=domino.DEAL_VERSION,
        per_bot=s.arena_games_per_bot,
    )
    try:
        check_game(spec.game_request(0))
    except InvalidRequest as exc:
        raise _about_bots(exc) from None
    return spec


def _about_bots(exc: InvalidRequest) -> InvalidRequest:
    """A problem the first game's creation found with its seat ``i`` is one with ``bots[i]``, which sits there:
    the errors name the arena request's field, not the game's."""
    where = exc.members.get("errors", {}).get("json", {})
    seats = where.pop("seats", None)
    if isinstance(seats, dict):
        where["bots"] = {i: [m for msgs in seat.values() for m in msgs] for i, seat in seats.items()}
    elif seats is not None:
        where["bots"] = seats
    return exc

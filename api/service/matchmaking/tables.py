"""Forming tables from the tickets waiting in one pool: pure, no Redis.

A pool holds the tickets that could share a game (same variant, rules after defaults, table size, rated or
not, timing). Two tickets may sit at one table when they are not the same holder, not two apps' players
(each would see the other app's ``player`` ids), and, when rated, each one's rating lies in the other's
range; a range widens by ``widen`` ordinal points per second waited, on both sides, so a ticket that finds
nobody close finds someone further away later. A party (two tickets of partners in a team game) is one unit:
matched only once both partners wait, seated as partners (seats 0 and 2, or 1 and 3).
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Iterable, Sequence


@dataclasses.dataclass(frozen=True)
class Seeker:
    """A waiting ticket as the matcher sees it."""

    id: str
    arrived: float  # Unix time
    holder: str  # who holds it ("anon:<address>", "player:<app>:<player>", "bot:<name>"): once per table
    app: str | None = None  # an app's player's app; None for anonymous clients and registered bots
    ordinal: float | None = None  # rated tickets: the holder's rating (its ordinal) in the variant
    lo: float | None = None  # rated tickets: the ordinals it accepts, before widening
    hi: float | None = None
    party: str | None = None  # the party code, for both partners
    bots_at: float | None = None  # when the table may be filled with computer players

    def accepts(self, ordinal: float | None, now: float, widen: float) -> bool:
        if ordinal is None or self.lo is None or self.hi is None:
            return True
        grown = widen * max(0.0, now - self.arrived)
        return self.lo - grown <= ordinal <= self.hi + grown


@dataclasses.dataclass(frozen=True)
class Table:
    """Tickets by seat (None: a seat for a computer player)."""

    seats: tuple[str | None, ...]

    @property
    def tickets(self) -> list[str]:
        return [t for t in self.seats if t is not None]


Unit = tuple[Seeker, ...]  # one ticket, or a party's two


def compatible(a: Seeker, b: Seeker, now: float, widen: float) -> bool:
    if a.holder == b.holder:
        return False
    if a.app is not None and b.app is not None and a.app != b.app:
        return False
    return a.accepts(b.ordinal, now, widen) and b.accepts(a.ordinal, now, widen)


def units(seekers: Iterable[Seeker]) -> list[Unit]:
    """The units that may be matched, oldest first: single tickets, and parties whose two partners wait (a
    party with one partner waiting is held back)."""
    solos: list[Unit] = []
    parties: dict[str, list[Seeker]] = {}
    for s in seekers:
        if s.party is None:
            solos.append((s,))
        else:
            parties.setdefault(s.party, []).append(s)
    whole = [tuple(sorted(p, key=lambda s: (s.arrived, s.id))) for p in parties.values() if len(p) == 2]
    return sorted([*solos, *whole], key=lambda u: (min(s.arrived for s in u), u[0].id))


def _fits(unit: Unit, chosen: Sequence[Seeker], now: float, widen: float) -> bool:
    return all(compatible(a, b, now, widen) for a in unit for b in chosen)


def seat(chosen: Sequence[Unit], size: int, teams: bool) -> Table:
    """Seats for the units: a party at 0 and 2 (the next at 1 and 3), single tickets in the seats left in
    arrival order, computer players in the rest."""
    seats: list[str | None] = [None] * size
    free = list(range(size))
    if teams:
        parties = [u for u in chosen if len(u) == 2]
        for party, pair in zip(parties, ((0, 2), (1, 3))):
            for s, i in zip(party, pair):
                seats[i] = s.id
                free.remove(i)
    for unit in chosen:
        if len(unit) == 1:
            seats[free.pop(0)] = unit[0].id
    return Table(tuple(seats))


def table_for(
    anchor: Unit,
    others: Sequence[Unit],
    size: int,
    teams: bool,
    now: float,
    widen: float,
    taken: frozenset[str] | set[str] = frozenset(),
) -> Table | None:
    """The table ``anchor`` (a unit) joins: the first compatible units of ``others`` in order (not ``taken``)
    until the table is full; when it cannot fill it and its wait for computer players is over, the units found
    and computer players; else None. Linear in ``others``."""
    chosen: list[Unit] = [anchor]
    members = list(anchor)
    pairs = len(anchor) // 2
    for unit in others:
        if len(members) == size:
            break
        if unit is anchor or unit[0].id in taken:
            continue
        if len(members) + len(unit) > size or (len(unit) == 2 and pairs == 2):
            continue
        if _fits(unit, members, now, widen):
            chosen.append(unit)
            members.extend(unit)
            pairs += len(unit) // 2
    if len(members) < size:
        due = [s.bots_at for s in anchor if s.bots_at is not None]
        if not due or min(due) > now:
            return None
    return seat(chosen, size, teams)


class ByRating:
    """Units indexed by their members' ordinals, so that an anchor looks only at the units its range holds
    (each kept in arrival order): a pass costs the window, not the pool. Unrated units are in every window."""

    def __init__(self, pending: Sequence[Unit]) -> None:
        rated = sorted(
            ((s.ordinal, i) for i, u in enumerate(pending) for s in u if s.ordinal is not None), key=lambda p: p[0]
        )
        self.pending = pending
        self.ordinals = [o for o, _ in rated]
        self.indices = [i for _, i in rated]
        self.unrated = [i for i, u in enumerate(pending) if all(s.ordinal is None for s in u)]

    def window(self, anchor: Unit, now: float, widen: float) -> Sequence[Unit]:
        """The units ``anchor`` may accept by rating, oldest first."""
        lo, hi = float("-inf"), float("inf")
        for s in anchor:
            if s.lo is not None and s.hi is not None:
                grown = widen * max(0.0, now - s.arrived)
                lo, hi = max(lo, s.lo - grown), min(hi, s.hi + grown)
        if lo == float("-inf") and hi == float("inf"):
            return self.pending
        found = set(self.indices[bisect.bisect_left(self.ordinals, lo) : bisect.bisect_right(self.ordinals, hi)])
        return [self.pending[i] for i in sorted(found.union(self.unrated))]


def tables(seekers: Sequence[Seeker], size: int, teams: bool, now: float, widen: float, first: str | None = None) -> list[Table]:
    """The tables to form now. With ``first`` (a ticket that just arrived), only the one table it may join;
    otherwise every table, anchoring the oldest unit first. Each anchor scans the units its rating range holds
    (all of them when it has none) until its table is full."""
    pending = units(seekers)
    index = ByRating(pending)
    if first is not None:
        anchor = next((u for u in pending if any(s.id == first for s in u)), None)
        if anchor is None:
            return []
        found = table_for(anchor, index.window(anchor, now, widen), size, teams, now, widen)
        return [found] if found is not None else []
    formed: list[Table] = []
    used: set[str] = set()
    for anchor in pending:
        if anchor[0].id in used:
            continue
        found = table_for(anchor, index.window(anchor, now, widen), size, teams, now, widen, used)
        if found is not None:
            formed.append(found)
            used.update(found.tickets)
    return formed

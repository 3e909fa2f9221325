"""Forming tables (pure): who may sit together, where parties sit, and the rating index agreeing with a scan
of every unit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from api.service.matchmaking.tables import Seeker, table_for, tables, units


def seeker(i: int, **kw: object) -> Seeker:
    return Seeker(id=f"t{i:02d}", arrived=float(i), holder=f"anon:{i}", **kw)  # type: ignore[arg-type]


def test_a_table_never_seats_one_holder_twice_nor_two_apps_players() -> None:
    same = [seeker(0), Seeker(id="t01", arrived=1.0, holder="anon:0")]
    assert tables(same, 2, False, now=10, widen=0) == []
    apps = [seeker(0, app="a"), seeker(1, app="b"), seeker(2)]
    (table,) = tables(apps, 2, False, now=10, widen=0)
    assert set(table.tickets) == {"t00", "t02"}  # an anonymous holder may sit with either app's player


def test_ratings_meet_within_both_ranges_and_ranges_widen_with_the_wait() -> None:
    a = seeker(0, ordinal=10.0, lo=0.0, hi=20.0)
    b = seeker(1, ordinal=30.0, lo=25.0, hi=35.0)
    assert tables([a, b], 2, False, now=1, widen=1.0) == []
    assert tables([a, b], 2, False, now=12, widen=1.0) == []  # a: [-12, 32] holds 30; b: [14, 46] not 10
    assert len(tables([a, b], 2, False, now=16, widen=1.0)) == 1  # b: [10, 50] holds 10


def test_parties_sit_as_partners_and_wait_for_both() -> None:
    opener = seeker(0, party="p")
    solos = [seeker(i) for i in (1, 2, 3)]
    assert tables([opener, *solos[:2]], 4, True, now=5, widen=0) == []
    partner = seeker(4, party="p")
    (table,) = tables([opener, *solos[:2], partner], 4, True, now=5, widen=0)
    assert table.seats[0] == "t00" and table.seats[2] == "t04"


def test_computer_players_fill_a_table_once_the_wait_is_over() -> None:
    lone = seeker(0, bots_at=5.0)
    assert tables([lone], 3, False, now=4, widen=0) == []
    (table,) = tables([lone], 3, False, now=5, widen=0)
    assert table.seats == ("t00", None, None)


ordinal = st.floats(min_value=-50, max_value=50, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(ordinal, st.floats(min_value=0, max_value=20)), min_size=1, max_size=30), st.integers(2, 4))
def test_the_rating_index_finds_what_a_scan_of_every_unit_finds(rated: list[tuple[float, float]], size: int) -> None:
    seekers = [seeker(i, ordinal=o, lo=o - w, hi=o + w) for i, (o, w) in enumerate(rated)]
    pending = units(seekers)
    first = seekers[-1].id
    (anchor,) = [u for u in pending if u[0].id == first]
    scanned = table_for(anchor, pending, size, False, now=0, widen=0)
    indexed = tables(seekers, size, False, now=0, widen=0, first=first)
    assert indexed == ([scanned] if scanned is not None else [])

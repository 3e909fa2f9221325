"""What a fair-play screen answers (docs/analysis.md#fair-play-screen): while queued or running its progress; done,
the screen of the subject's own moves (``seat``) and, over its team games, of its side's (``team``), each with
a short text that says what the figures mean."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from domino.analysis.fairplay import LEVEL, Screen, Tally, screen

if TYPE_CHECKING:
    from api.service.fairplay import Game


def _subject(key: str) -> dict[str, str]:
    kind, _, name = key.partition(":")
    return {kind: name}


def _head(sid: str, fields: dict[str, str]) -> dict[str, Any]:
    return {
        "id": sid,
        "subject": _subject(fields["subject"]),
        "games_asked": int(fields["asked"]),
        "games": orjson.loads(fields["games"]),
        "nodes": int(fields["nodes"]),
    }


def pending_screen(sid: str, fields: dict[str, str]) -> dict[str, Any]:
    """A screen queued, running or failed, from its record in Redis."""
    total = int(fields.get("total", 0))
    done = int(fields.get("done", 0))
    out: dict[str, Any] = {
        **_head(sid, fields),
        "status": fields["status"],
        "progress": round(done / total, 3) if total else 0.0,
        "positions_done": done,
        "positions_total": total if "total" in fields else None,
    }
    if fields.get("error"):
        out["error"] = fields["error"]
    return out


def done_screen(
    sid: str, fields: dict[str, str], games: Sequence[Game], readings: dict[tuple[str, int], dict[str, Any]], sealed: Iterable[str]
) -> dict[str, Any]:  # fmt: skip
    """The finished screen, from its games' readings: ``seat`` over the subject's own seats, ``team`` over its
    sides' seats in its team games (null without one); ``skipped``: games not revealed yet (an arena's)."""
    skipped = sorted(set(sealed))
    read = [g for g in games if g.id not in skipped]
    own = _sum(readings.get((g.id, s)) for g in read for s in g.seats)
    teamed = [g for g in read if g.partners]
    side = _sum(readings.get((g.id, s)) for g in teamed for s in (*g.seats, *g.partners))
    who = " ".join(_subject(fields["subject"]).popitem())
    positions = own.positions
    return {
        **_head(sid, fields),
        "status": "done",
        "progress": 1.0,
        "positions_done": positions,
        "positions_total": positions,
        "skipped": skipped,
        "seat": _render(screen(own), who, len(read)),
        "team": _render(screen(side), f"{who}'s side (its partners too)", len(teamed)) if teamed else None,
    }


def _sum(tallies: Iterable[dict[str, Any] | None]) -> Tally:
    return sum((Tally.from_dict(t) for t in tallies if t is not None), Tally())


def _render(s: Screen, whose: str, games: int) -> dict[str, Any]:
    t = s.tally
    return {
        "games": games,
        **s.to_dict(),
        "seat_count": t.seat_count,
        "expert_count": t.expert_count,
        "explains": explain(s, whose, games),
    }


def explain(s: Screen, whose: str, games: int) -> str:
    """A few sentences on what the figures say, for someone who reads no statistics."""
    in_games = f"{games} game{'' if games == 1 else 's'}"
    if s.positions == 0:
        return f"Over {in_games} {whose} had no move with a choice: nothing to screen."
    lo, hi = s.interval
    text = (
        f"Over {s.positions} moves with a choice in {in_games}, {whose} chose a move that is best only with the "
        f"hidden tiles in sight {100 * s.rate:.1f}% of the time; expert, on the same positions, {100 * s.expert_rate:.1f}% "
        f"(difference {100 * s.difference:+.1f} percentage points, 98% interval {100 * lo:+.1f} to {100 * hi:+.1f}, "
        f"p = {s.p_value:.2g}). "
        f"The moves played were worth {s.gain:+.2f} points more with the hidden tiles in sight than from what the seat "
        f"saw (p = {s.gain_p_value:.2g}; about 0 for anyone who plays from what they see). "
    )
    if s.flag:
        return text + (
            f"Both are significant at the {100 * LEVEL:.0f}% level: flagged. A flag is a reason to look at these games, "
            "not a verdict: a player stronger than expert, or a lucky run, can score like this."
        )
    return text + f"Not both significant at the {100 * LEVEL:.0f}% level: not flagged (which proves no innocence either)."

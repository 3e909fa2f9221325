"""Lossless, versioned JSON form of a State (``"format": 1``)."""

from __future__ import annotations

from typing import Any

from domino import variants
from domino.errors import DominoError
from domino.rules import MAX_SET, Rules
from domino.state import Deal, LogEntry, Outcome, RoundResult, State
from domino.tiles import Tile, full_set

FORMAT = 1
# Stored tiles are canonical text; a dict lookup is what makes loading a game cheap on every request.
_BY_TEXT = {str(t): t for t in full_set(MAX_SET)}


def _tiles(ts: tuple[Tile, ...]) -> list[str]:
    return [str(t) for t in ts]


def _parse_tiles(items: list[str]) -> tuple[Tile, ...]:
    try:
        return tuple(map(_BY_TEXT.__getitem__, items))
    except KeyError:
        return tuple(Tile.parse(s) for s in items)


def _deal(d: dict[str, Any]) -> Deal:
    return Deal(tuple(_parse_tiles(h) for h in d["hands"]), _parse_tiles(d["boneyard"]))


def _result_to(r: RoundResult) -> dict[str, Any]:
    d = r.to_dict(reveal_deal=True)
    d["team"] = r.team
    return d


def _result_from(d: dict[str, Any]) -> RoundResult:
    return RoundResult(
        round=d["round"],
        end=d["end"],
        winner=d["winner"],
        pips_left=tuple(d["pips_left"]),
        hands=tuple(_parse_tiles(h) for h in d["hands"]),
        points=tuple(d["points"]),
        award=tuple(d["award"]),
        why=d["why"],
        deal=_deal(d["deal"]),
        team=d.get("team"),
    )


def to_dict(state: State) -> dict[str, Any]:
    """Everything in the state, JSON-safe (hidden tiles included: this is for storage, never for clients)."""
    rules = variants.of(state.rules)
    return {
        "format": FORMAT,
        "rules": state.rules.to_dict(),
        "seed": state.seed,
        "round": state.round,
        "deal": state.deal.to_dict(),
        "hands": [_tiles(h) for h in state.hands],
        "boneyard": _tiles(state.boneyard),
        "board": rules.board_to_dict(state.board),
        "turn": state.turn,
        "scores": list(state.scores),
        "lead": None if state.lead is None else str(state.lead),
        "opened_by_rule": state.opened_by_rule,
        "drawn": state.drawn,
        "extra_play": state.extra_play,
        "log": [[e.seat, e.type, None if e.tile is None else str(e.tile), e.end] for e in state.log],
        "rounds": [_result_to(r) for r in state.rounds],
        "outcome": None if state.outcome is None else state.outcome.to_dict(),
        "round_points": list(state.round_points),
        "variant": rules.turn_to_dict(state.variant),
    }


def is_finished(data: dict[str, Any]) -> bool:
    """Whether a stored state is a finished game, without loading it."""
    return data.get("outcome") is not None


def from_dict(data: dict[str, Any]) -> State:
    """The state stored by :func:`to_dict`."""
    if data.get("format") != FORMAT:
        raise DominoError(f"unknown state format {data.get('format')!r}")
    rules = Rules.from_dict(data["rules"])
    variant = variants.of(rules)
    rounds = tuple(_result_from(r) for r in data["rounds"])
    outcome = data["outcome"]
    return State(
        rules=rules,
        seed=data["seed"],
        round=data["round"],
        deal=_deal(data["deal"]),
        hands=tuple(_parse_tiles(h) for h in data["hands"]),
        boneyard=_parse_tiles(data["boneyard"]),
        board=variant.board_from_dict(data["board"]),
        turn=data["turn"],
        scores=tuple(data["scores"]),
        lead=None if data["lead"] is None else Tile.parse(data["lead"]),
        opened_by_rule=data["opened_by_rule"],
        drawn=data["drawn"],
        extra_play=data["extra_play"],
        log=tuple(LogEntry(s, t, None if tile is None else Tile.parse(tile), end) for s, t, tile, end in data["log"]),
        rounds=rounds,
        outcome=None if outcome is None else Outcome(outcome["reason"], tuple(outcome["winners"]), outcome["team"]),
        round_points=tuple(data["round_points"]),
        variant=variant.turn_from_dict(data["variant"]),
        last_round=rounds[-1] if rounds else None,
    )

"""JSON forms of a State (``"format": 1``), for storage only (hidden tiles included, never for clients).

Two shapes. ``to_dict``/``from_dict``: the whole state in one document, finished rounds included, so it grows
with the match. ``to_live``/``from_live``: the live document, what a move or a view needs (the current round,
scores, turn, the last round's result), whose size does not depend on the match's length; the finished
rounds are separate records (``round_record``), made available as they end (``ended_rounds``), and
``from_live(doc, records)`` rebuilds the whole state from both.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterable

from domino import variants
from domino.errors import DominoError, InvalidDealError
from domino.rules import MAX_SET, Rules
from domino.shuffle import check_version
from domino.state import Deal, LogEntry, Outcome, RoundResult, State
from domino.tiles import Tile, full_set, text, texts

FORMAT = 1
# Stored tiles are canonical text; a dict lookup is what makes loading a game cheap on every request.
_BY_TEXT = {str(t): t for t in full_set(MAX_SET)}


def _parse_tiles(items: list[str]) -> tuple[Tile, ...]:
    try:
        return tuple(map(_BY_TEXT.__getitem__, items))
    except KeyError:
        return tuple(Tile.parse(s) for s in items)


# id(value) -> (value, its stored form): every state of a round holds the same Deal and the same last
# RoundResult, whose text a service would otherwise make again for each state it stores (the value is kept with
# its entry, so an id is never reused while the entry lives).
_FORMS: dict[int, tuple[Any, dict[str, Any]]] = {}
_FORMS_KEPT = 256


Form = dict[str, Any]


def _kept_form(value: Any, make: Callable[[Any], Form], copy: Callable[[Form], Form]) -> Form:
    """``make(value)``, made once per value: a fresh ``copy`` of the kept form each time."""
    kept = _FORMS.get(id(value))
    if kept is None or kept[0] is not value:
        if len(_FORMS) >= _FORMS_KEPT:
            _FORMS.clear()
        kept = _FORMS[id(value)] = (value, make(value))
    return copy(kept[1])


def _copy_deal(form: dict[str, Any]) -> dict[str, Any]:
    return {"hands": [h.copy() for h in form["hands"]], "boneyard": form["boneyard"].copy()}


def _copy_record(form: dict[str, Any]) -> dict[str, Any]:
    # dict.copy and replacing keys in place: the record's key order, so its stored text, is unchanged; a quarter
    # fewer instructions than building it as {**form, ...} with list(...) copies.
    record = form.copy()
    record["pips_left"] = form["pips_left"].copy()
    record["hands"] = [h.copy() for h in form["hands"]]
    record["points"] = form["points"].copy()
    record["award"] = form["award"].copy()
    record["deal"] = _copy_deal(form["deal"])
    return record


def _record(r: RoundResult) -> dict[str, Any]:
    d = r.to_dict(reveal_deal=True)
    d["team"] = r.team
    return d


@functools.lru_cache(maxsize=1024)
def _rules(options: tuple[tuple[str, Any], ...]) -> Rules:
    # Building Rules (checked on creation) is about 100k instructions, a sixth of a 2-player draw game's move,
    # and a game loads the same rules on every move; Rules are immutable, so one per distinct set will do.
    return Rules.from_dict(dict(options))


# (seat, type, tile text, end) -> its log entry: a round's log holds a few dozen of a few hundred possible
# entries, and building each (a frozen dataclass) cost ten times finding it here; they are immutable.
_LOG: dict[tuple[Any, ...], LogEntry] = {}
_LOG_KEPT = 4096


def _log_entry(stored: list[Any]) -> LogEntry:
    key = tuple(stored)
    entry = _LOG.get(key)
    if entry is None:
        seat, kind, tile, end = stored
        entry = LogEntry(seat, kind, None if tile is None else Tile.parse(tile), end)
        if len(_LOG) < _LOG_KEPT:
            _LOG[key] = entry
    return entry


def _deal(d: dict[str, Any]) -> Deal:
    return Deal(tuple(_parse_tiles(h) for h in d["hands"]), _parse_tiles(d["boneyard"]))


def round_record(r: RoundResult) -> dict[str, Any]:
    """A finished round's record, JSON-safe: its result and its deal."""
    return _kept_form(r, _record, _copy_record)


# (round, pips left, points) -> (a result, the record it writes): every live document of a round carries the
# same last round, which would otherwise be parsed and built again on every move (about 61k instructions, a
# seventh of a 2-player move). A RoundResult is immutable, so one per distinct record will do; comparing a
# record with the kept one (a C-level walk) costs under half of hashing its whole content as a key would.
# Handing back the same object also lets round_record's kept form serve the next state's encoding.
_RESULTS: dict[tuple[Any, ...], tuple[RoundResult, dict[str, Any]]] = {}
_RESULTS_KEPT = 256


def round_from_record(d: dict[str, Any]) -> RoundResult:
    """The round result of a record made by :func:`round_record`."""
    key = (d["round"], tuple(d["pips_left"]), tuple(d["points"]))
    kept = _RESULTS.get(key)
    if kept is not None and kept[1] == d:
        return kept[0]
    result = _round_result(d)
    if len(_RESULTS) >= _RESULTS_KEPT:
        _RESULTS.clear()
    _RESULTS[key] = (result, _record(result))
    return result


def _round_result(d: dict[str, Any]) -> RoundResult:
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


def _current(state: State) -> dict[str, Any]:
    """Everything but the finished rounds' records."""
    variant = variants.of(state.rules)
    return {
        "format": FORMAT,
        "rules": _kept_form(state.rules, Rules.to_dict, dict),  # by identity: hashing Rules to find it cost more
        "seed": state.seed,
        "deal_version": state.deal_version,
        "round": state.round,
        "deal": _kept_form(state.deal, Deal.to_dict, _copy_deal),
        "hands": [texts(h) for h in state.hands],
        "boneyard": texts(state.boneyard),
        "board": variant.board_to_dict(state.board),
        "turn": state.turn,
        "scores": list(state.scores),
        "lead": None if state.lead is None else text(state.lead),
        "opened_by_rule": state.opened_by_rule,
        "drawn": state.drawn,
        "extra_play": state.extra_play,
        "log": [[e.seat, e.type, None if e.tile is None else text(e.tile), e.end] for e in state.log],
        "outcome": None if state.outcome is None else state.outcome.to_dict(),
        "round_points": list(state.round_points),
        "variant": variant.turn_to_dict(state.variant),
    }


def to_dict(state: State) -> dict[str, Any]:
    """The whole state, finished rounds included; raises ValueError for a state loaded without its records."""
    if not state.has_records:
        raise ValueError("this state was loaded from its live document alone: load it with its round records")
    return {**_current(state), "rounds": [round_record(r) for r in state.rounds]}


def to_live(state: State) -> dict[str, Any]:
    """The live document: the whole state but the finished rounds' records (the last round's result stays)."""
    last = state.last_round
    return {**_current(state), "last_round": None if last is None else round_record(last)}


def ended_rounds(before: State, after: State) -> tuple[dict[str, Any], ...]:
    """The records of the rounds that ended between two states (a step or a resignation ends at most one)."""
    last = after.last_round
    if last is None or (before.last_round is not None and before.last_round.round == last.round):
        return ()
    return (round_record(last),)


def is_finished(data: dict[str, Any]) -> bool:
    """Whether a stored state (whole or live) is a finished game, without loading it."""
    return data.get("outcome") is not None


def from_dict(data: dict[str, Any]) -> State:
    """The state stored by :func:`to_dict`."""
    rounds = tuple(round_from_record(r) for r in data["rounds"])
    return _load(data, rounds, rounds[-1] if rounds else None, True)


def from_live(data: dict[str, Any], records: Iterable[dict[str, Any]] | None = None) -> State:
    """The state of a live document. With the finished rounds' records (every one, oldest first) it is the
    whole state, as :func:`from_dict` would give; without them it plays and views the same, but its
    ``rounds`` are empty and :func:`to_dict` refuses it."""
    last = data["last_round"]
    last_round = None if last is None else round_from_record(last)
    if records is None:
        return _load(data, (), last_round, last_round is None)
    rounds = tuple(round_from_record(r) for r in records)
    if (rounds[-1].round if rounds else 0) != (0 if last_round is None else last_round.round) or any(
        r.round != i + 1 for i, r in enumerate(rounds)
    ):
        raise DominoError("the round records do not match the live document")
    return _load(data, rounds, rounds[-1] if rounds else None, True)


def _deal_version(data: dict[str, Any]) -> int:
    """The stored deal version: documents written before version 2 existed have none, and were dealt by 1."""
    try:
        return check_version(data.get("deal_version", 1))
    except InvalidDealError as e:
        raise DominoError(f"unknown deal version {data.get('deal_version')!r}") from e


def _load(data: dict[str, Any], rounds: tuple[RoundResult, ...], last: RoundResult | None, whole: bool) -> State:
    if data.get("format") != FORMAT:
        raise DominoError(f"unknown state format {data.get('format')!r}")
    rules = _rules(tuple(data["rules"].items()))
    variant = variants.of(rules)
    outcome = data["outcome"]
    return State(
        rules=rules,
        seed=data["seed"],
        deal_version=_deal_version(data),
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
        log=tuple(map(_log_entry, data["log"])),
        rounds=rounds,
        outcome=None if outcome is None else Outcome(outcome["reason"], tuple(outcome["winners"]), outcome["team"]),
        round_points=tuple(data["round_points"]),
        variant=variant.turn_from_dict(data["variant"]),
        last_round=last,
        has_records=whole,
    )

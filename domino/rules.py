"""Rules options and presets (docs/rules.md#options), validated once when built."""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields, replace
from typing import Any, Mapping

from domino.errors import InvalidRulesError

LINE_PRESETS = ("draw", "draw_family", "block", "all_fives")
PRESETS = LINE_PRESETS + ("mexican_train",)
MAX_SET = 18

# Allowed values of the enumerated options.
CHOICES: dict[str, tuple[Any, ...]] = {
    "starting_rule": ("highest_double", "lot", "engine_double"),
    "no_double_fallback": ("highest_tile", "reshuffle"),
    "opener_extra_play": (True, False),
    "next_round_starter": ("starting_rule", "previous_winner"),
    "draw_policy": ("draw_until_playable", "draw_one", "no_draw"),
    "may_draw_when_playable": (True, False),
    "drawn_tile_play": ("must", "may"),
    "spinner": ("none", "first_double"),
    "scoring": ("opponents_total", "pagat_difference", "all_fives", "mexican_penalty"),
    "difference_mode": ("sum_minus_own", "pairwise"),
    "blocked_tie": ("no_score", "split"),
    "fives_bonus_scope": ("total", "per_opponent"),
    "fives_blocked_award": ("opponents_total_rounded", "none"),
    "match_end": ("target_score", "fixed_rounds"),
    "target_check": ("end_of_round", "immediate"),
    "teams": ("none", "partners_opposite"),
    "team_scoring": ("all_hands", "opponents_only"),
    "engine_setup": ("from_hands", "set_aside"),
    "first_turn_double": ("deferred", "immediate"),
    "mexican_train": (True, False),
}
# The whole-number options and their ranges; the NULLABLE ones may also be null (``rounds``: no fixed number).
NULLABLE = frozenset({"rounds"})
INTEGERS: dict[str, tuple[int, int]] = {
    "set_max_pips": (1, MAX_SET),
    "boneyard_reserve": (0, 1000),
    "rounds": (1, 1000),
    "double_blank_value": (0, 1000),
}
# The options given as a whole number or as a map from player count to one, and their range.
PLAYER_MAPS = ("hand_size", "target_score")
PLAYER_MAP_RANGE = (1, 100_000)

# Preset defaults; options absent from a preset do not apply to it (a "—" cell).
_LINE_COMMON: dict[str, Any] = {
    "set_max_pips": 6,
    "starting_rule": "highest_double",
    "no_double_fallback": "highest_tile",
    "opener_extra_play": False,
    "next_round_starter": "starting_rule",
    "drawn_tile_play": "must",
    "spinner": "none",
    "blocked_tie": "no_score",
    "match_end": "target_score",
    "target_check": "end_of_round",
    "rounds": None,
    "teams": "none",
    "team_scoring": "all_hands",
}
_PRESETS: dict[str, dict[str, Any]] = {
    "draw": {
        **_LINE_COMMON,
        "hand_size": {2: 7, 3: 7, 4: 6},
        "draw_policy": "draw_until_playable",
        "boneyard_reserve": 2,
        "may_draw_when_playable": True,
        "scoring": "pagat_difference",
        "difference_mode": "sum_minus_own",
        "target_score": {2: 100, 3: 61, 4: 61},
    },
    "draw_family": {
        **_LINE_COMMON,
        "hand_size": {2: 7, 3: 5, 4: 5},
        "draw_policy": "draw_until_playable",
        "boneyard_reserve": 0,
        "may_draw_when_playable": False,
        "scoring": "opponents_total",
        "difference_mode": "sum_minus_own",
        "target_score": 100,
    },
    "block": {
        **_LINE_COMMON,
        "hand_size": {2: 7, 3: 5, 4: 5},
        "draw_policy": "no_draw",
        "scoring": "opponents_total",
        "difference_mode": "sum_minus_own",
        "target_score": 100,
    },
    "all_fives": {
        **_LINE_COMMON,
        "hand_size": {2: 7, 3: 5, 4: 5},
        "opener_extra_play": True,
        "next_round_starter": "previous_winner",
        "draw_policy": "draw_one",
        "boneyard_reserve": 0,
        "may_draw_when_playable": False,
        "spinner": "first_double",
        "scoring": "all_fives",
        "fives_bonus_scope": "total",
        "fives_blocked_award": "opponents_total_rounded",
        "target_score": 150,
        "target_check": "immediate",
    },
    "mexican_train": {
        "set_max_pips": 12,
        "hand_size": {2: 15, 3: 15, 4: 15, 5: 12, 6: 12, 7: 10, 8: 10, 9: 8, 10: 8},
        "starting_rule": "engine_double",
        "draw_policy": "draw_one",
        "boneyard_reserve": 0,
        "may_draw_when_playable": False,
        "drawn_tile_play": "must",
        "scoring": "mexican_penalty",
        "match_end": "fixed_rounds",
        "rounds": None,  # n + 1 for a double-n set
        "engine_setup": "from_hands",
        "first_turn_double": "deferred",
        "double_blank_value": 0,
        "mexican_train": True,
    },
}
PLAYER_RANGE = {name: (2, 4) for name in LINE_PRESETS} | {"mexican_train": (2, 10)}
ADVERTISED_PLAYERS = {name: (2, 4) for name in LINE_PRESETS} | {"mexican_train": (2, 8)}
# Options whose preset default depends on another option given by the caller.
_TEAM_TARGET = {"draw": 100}


@dataclass(frozen=True, slots=True)
class Rules:
    """The resolved options of one game. Build with :meth:`preset`; every instance is valid."""

    preset_name: str
    players: int
    set_max_pips: int
    hand_size: int
    starting_rule: str
    draw_policy: str
    scoring: str
    match_end: str
    drawn_tile_play: str
    may_draw_when_playable: bool
    boneyard_reserve: int
    no_double_fallback: str | None = None
    opener_extra_play: bool | None = None
    next_round_starter: str | None = None
    spinner: str | None = None
    difference_mode: str | None = None
    blocked_tie: str | None = None
    fives_bonus_scope: str | None = None
    fives_blocked_award: str | None = None
    target_score: int | None = None
    target_check: str | None = None
    rounds: int | None = None
    teams: str | None = None
    team_scoring: str | None = None
    engine_setup: str | None = None
    first_turn_double: str | None = None
    double_blank_value: int | None = None
    mexican_train: bool | None = None

    # -- derived facts the engine asks often --------------------------------
    @property
    def is_line(self) -> bool:
        return self.preset_name != "mexican_train"

    @property
    def has_teams(self) -> bool:
        return self.teams == "partners_opposite"

    @property
    def sides(self) -> int:
        """Scoring sides: teams or seats."""
        return 2 if self.has_teams else self.players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.has_teams else seat

    @property
    def tile_count(self) -> int:
        n = self.set_max_pips
        return (n + 1) * (n + 2) // 2

    # -- construction --------------------------------------------------------
    @classmethod
    def preset(cls, name: str, players: int = 2, **overrides: Any) -> Rules:
        """The preset ``name`` for ``players`` seats with options overridden; raises InvalidRulesError."""
        if name not in _PRESETS:
            raise InvalidRulesError("variant", f"unknown variant {str(name)[:40]!r}; one of {', '.join(PRESETS)}")
        if "players" in overrides:
            raise InvalidRulesError("players", "given twice")
        lo, hi = PLAYER_RANGE[name]
        if not isinstance(players, int) or isinstance(players, bool) or not lo <= players <= hi:
            raise InvalidRulesError("players", f"{name} is played by {lo} to {hi} players")
        defaults = _PRESETS[name]
        for option, value in overrides.items():
            if option not in defaults:
                if option in _OPTION_NAMES:  # `preset_name` and `players` are no options: unknown
                    raise InvalidRulesError(option, f"does not apply to {name}")
                raise InvalidRulesError(option, "unknown option")
        values: dict[str, Any] = dict(defaults)
        if name in _TEAM_TARGET and overrides.get("teams") == "partners_opposite":
            values["target_score"] = _TEAM_TARGET[name]
        values.update(overrides)
        for option, value in values.items():
            values[option] = _check_value(option, value, players)
        if name == "mexican_train":
            if values["rounds"] is None:
                values["rounds"] = values["set_max_pips"] + 1
            if values["set_max_pips"] != 12 and "hand_size" not in overrides:
                raise InvalidRulesError("hand_size", "must be given for a set other than double-twelve")
        # Presets without drawing options ("—" cells: block) still accept a draw_policy (docs/rules.md#draw_policy);
        # the drawing options then take the plain defaults (reserve 0, draw only when unable).
        values.setdefault("boneyard_reserve", 0)
        values.setdefault("may_draw_when_playable", False)
        values.setdefault("drawn_tile_play", "must")
        rules = cls(preset_name=name, players=players, **values)
        _validate(rules, overrides)
        return _drop_inapplicable(rules)

    def to_dict(self) -> dict[str, Any]:
        """The resolved options, JSON-safe; options that do not apply are left out."""
        return dict(_rules_dict(self))  # a copy: the cached one is shared

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """The inverse of :meth:`to_dict` (for stored, already validated rules)."""
        options = {k: v for k, v in data.items() if k in _OPTION_NAMES}
        return cls(preset_name=str(data["variant"]), players=int(data["players"]), **options)


@functools.lru_cache(maxsize=1024)
def _rules_dict(rules: Rules) -> dict[str, Any]:
    # A stored game writes its rules on every move, and every view shows them: worth remembering.
    out: dict[str, Any] = {"variant": rules.preset_name, "players": rules.players}
    for f in fields(rules):
        if f.name in ("preset_name", "players"):
            continue
        value = getattr(rules, f.name)
        if value is not None:
            out[f.name] = value
    return out


_OPTION_NAMES = frozenset(f.name for f in fields(Rules)) - {"preset_name", "players"}


def _drop_inapplicable(r: Rules) -> Rules:
    """Options that cannot matter under the chosen ones are shown as not applying."""
    changes: dict[str, Any] = {}
    if not r.has_teams and r.teams is not None:
        changes["team_scoring"] = None
    if r.scoring != "pagat_difference":
        changes["difference_mode"] = None
    if r.starting_rule != "highest_double":
        changes["no_double_fallback"] = None
    if r.match_end == "target_score":
        changes["rounds"] = None
    else:
        changes["target_score"] = None
        changes["target_check"] = None
    return replace(r, **changes)


def _check_value(option: str, value: Any, players: int) -> Any:
    if option in PLAYER_MAPS:
        if isinstance(value, Mapping):
            picked = None
            seen: set[int] = set()
            for key, v in value.items():
                k = key if isinstance(key, int) and not isinstance(key, bool) else None
                if isinstance(key, str) and key.isascii() and key.isdigit() and key == str(int(key)) and len(key) <= 2:
                    k = int(key)  # canonical ASCII digits only: "٤", " 4" or "04" is no player count
                if k is None:
                    raise InvalidRulesError(option, "a map from player counts (written 2, 3, ... 10) to numbers")
                if k in seen:  # {2: .., "2": ..}: one would silently win over the other
                    raise InvalidRulesError(option, f"gives player count {k} twice")
                seen.add(k)
                if k == players:
                    picked = v
            if picked is None:
                raise InvalidRulesError(option, f"no value for {players} players")
            value = picked
        low, high = PLAYER_MAP_RANGE
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise InvalidRulesError(option, f"must be a whole number from {low} to {high}")
        return value
    if option in INTEGERS:
        if value is None and option in NULLABLE:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidRulesError(option, "must be a whole number")
        low, high = INTEGERS[option]
        if not low <= value <= high:
            raise InvalidRulesError(option, f"must be from {low} to {high}")
        return value
    if option in CHOICES:
        allowed = CHOICES[option]
        if not any(value is a or (type(value) is type(a) and value == a) for a in allowed):
            raise InvalidRulesError(option, "must be one of " + ", ".join(_show(a) for a in allowed))
        return value
    return value


def _show(value: Any) -> str:
    return "true" if value is True else "false" if value is False else str(value)


def _validate(r: Rules, overrides: Mapping[str, Any]) -> None:
    line = r.is_line
    if line and r.starting_rule == "engine_double":
        raise InvalidRulesError("starting_rule", "engine_double is Mexican Train's")
    if not line and r.starting_rule != "engine_double":
        raise InvalidRulesError("starting_rule", "Mexican Train always starts from the engine double")
    if not line and r.scoring != "mexican_penalty":
        raise InvalidRulesError("scoring", "Mexican Train uses mexican_penalty")
    if line and r.scoring == "mexican_penalty":
        raise InvalidRulesError("scoring", "mexican_penalty is Mexican Train's")
    if not line and r.draw_policy != "draw_one":
        raise InvalidRulesError("draw_policy", "Mexican Train draws one tile")
    if r.has_teams and r.players != 4:
        raise InvalidRulesError("teams", "partners_opposite needs exactly 4 players")
    if "team_scoring" in overrides and not r.has_teams:
        raise InvalidRulesError("team_scoring", "applies only with teams = partners_opposite")
    if "difference_mode" in overrides and r.scoring != "pagat_difference":
        raise InvalidRulesError("difference_mode", "applies only with scoring = pagat_difference")
    if r.scoring == "all_fives" and r.fives_bonus_scope is None:
        raise InvalidRulesError("scoring", "all_fives scoring is available in the all_fives variant")
    if r.target_check == "immediate" and r.scoring != "all_fives":
        raise InvalidRulesError("target_check", "immediate needs scoring = all_fives")
    if r.blocked_tie == "split" and r.has_teams:
        raise InvalidRulesError("blocked_tie", "split is not allowed with teams")
    if not line and r.match_end != "fixed_rounds":
        raise InvalidRulesError("match_end", "Mexican Train plays a fixed number of rounds (no target score)")
    if r.match_end == "fixed_rounds" and r.rounds is None:
        raise InvalidRulesError("rounds", "needed with match_end = fixed_rounds")
    if line and r.match_end == "target_score" and "rounds" in overrides:
        raise InvalidRulesError("rounds", "applies only with match_end = fixed_rounds")
    if line and r.match_end == "fixed_rounds" and "target_score" in overrides:
        raise InvalidRulesError("target_score", "applies only with match_end = target_score")
    if "no_double_fallback" in overrides and r.starting_rule != "highest_double":
        raise InvalidRulesError("no_double_fallback", "applies only with starting_rule = highest_double")
    if r.draw_policy == "no_draw":
        for option in ("boneyard_reserve", "may_draw_when_playable", "drawn_tile_play"):
            if option in overrides:
                raise InvalidRulesError(option, "does not apply when nobody draws (draw_policy = no_draw)")
    dealt = r.players * r.hand_size
    available = r.tile_count - (1 if r.engine_setup == "set_aside" else 0)
    if dealt > available:
        raise InvalidRulesError("hand_size", f"{r.players} hands of {r.hand_size} need {dealt} tiles; the set has {available}")


def describe_variants() -> dict[str, Any]:
    """Presets, every option with its allowed values and per-preset defaults, and limits (GET /v1/variants)."""
    options: dict[str, Any] = {}
    for f in fields(Rules):
        if f.name in ("preset_name", "players"):
            continue
        if f.name in CHOICES:
            allowed: Any = list(CHOICES[f.name])
        elif f.name in PLAYER_MAPS:
            allowed = "integer, or a map from player count to integer"
        else:
            allowed = "integer"
        options[f.name] = {
            "allowed": allowed,
            "defaults": {p: _shown_default(p, f.name) for p in PRESETS if f.name in _PRESETS[p]},
        }
    return {
        "variants": [
            {
                "id": p,
                "players": {"min": PLAYER_RANGE[p][0], "max": PLAYER_RANGE[p][1], "advertised_max": ADVERTISED_PLAYERS[p][1]},
                "defaults": {k: _shown_default(p, k) for k, v in _PRESETS[p].items() if _shown_default(p, k) is not None},
            }
            for p in PRESETS
        ],
        "options": options,
        "limits": {"set_max_pips": {"min": 1, "max": MAX_SET}, "teams_players": 4},
    }


def _shown_default(preset: str, option: str) -> Any:
    """A preset's default as a game resolves it: a null default that depends on another option (Mexican
    Train's `rounds`: one more than the set's highest pip) is shown as the value it takes."""
    value = _PRESETS[preset][option]
    if value is None:
        value = getattr(Rules.preset(preset, PLAYER_RANGE[preset][0]), option)
    return _jsonable(value)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    return value

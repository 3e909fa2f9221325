from __future__ import annotations

from typing import Any

import marshmallow as ma
from apispec import APISpec

import domino
from domino.rules import CHOICES, INTEGERS, LINE_PRESETS, NULLABLE, PLAYER_MAP_RANGE, PLAYER_MAPS

ANY_VALUE = {"description": "an option's value: a string, an integer, a boolean, a map from player count to integer, or null"}


class PlayersSchema(ma.Schema):
    min = ma.fields.Integer(required=True)
    max = ma.fields.Integer(required=True)
    advertised_max = ma.fields.Integer(required=True, metadata={"description": "the most seats the game plays well with"})


class VariantSchema(ma.Schema):
    """A preset: its seat range and the value of every option it sets, as a game of it resolves them."""

    id = ma.fields.String(required=True, validate=ma.validate.OneOf(domino.PRESETS), metadata={"description": "the `variant` of `POST /v1/games`"})
    players = ma.fields.Nested(PlayersSchema, required=True)
    defaults = ma.fields.Dict(
        required=True, keys=ma.fields.String(), values=ma.fields.Raw(metadata={"schema": ANY_VALUE}),
        metadata={"description": "option -> default; a map from player count (as text) to value where it depends on it"},
    )  # fmt: skip


class OptionSchema(ma.Schema):
    allowed = ma.fields.Raw(
        required=True,
        metadata={
            "schema": {
                "description": "the values allowed: a list, or a sentence (`integer`, `integer, or a map from player "
                "count to integer`)",
                "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": ["string", "boolean"]}}],
            }
        },
    )
    defaults = ma.fields.Dict(
        required=True, keys=ma.fields.String(), values=ma.fields.Raw(metadata={"schema": ANY_VALUE}),
        metadata={"description": "variant -> its default (only the variants the option applies to)"},
    )  # fmt: skip


class RangeSchema(ma.Schema):
    min = ma.fields.Integer(required=True)
    max = ma.fields.Integer(required=True)


class LimitsSchema(ma.Schema):
    set_max_pips = ma.fields.Nested(RangeSchema, required=True, metadata={"description": "the highest pip a set may have"})
    teams_players = ma.fields.Integer(required=True, metadata={"description": "seats in a team game"})


class VariantsSchema(ma.Schema):
    """Presets, every option with its allowed values and defaults, and limits (from the engine)."""

    variants = ma.fields.List(ma.fields.Nested(VariantSchema), required=True, metadata={"description": "the presets"})
    options = ma.fields.Dict(
        required=True, keys=ma.fields.String(), values=ma.fields.Nested(OptionSchema),
        metadata={
            "description": "every option of `rules`: allowed values and each variant's default (what each does: "
            "docs/rules.md#options)"
        },
    )  # fmt: skip
    limits = ma.fields.Nested(LimitsSchema, required=True)


def rule_overrides() -> dict[str, Any]:
    """JSON Schema of a request's `rules`: every option with the values the engine accepts (which options a
    variant uses, and how they combine, the engine checks: a 422 names the option)."""
    options: dict[str, Any] = {}
    for name, allowed in CHOICES.items():
        if all(isinstance(a, bool) for a in allowed):
            options[name] = {"type": "boolean"}
        else:
            options[name] = {"type": "string", "enum": list(allowed)}
    for name, (low, high) in INTEGERS.items():
        options[name] = {"type": ["integer", "null"] if name in NULLABLE else "integer", "minimum": low, "maximum": high}
    low, high = PLAYER_MAP_RANGE
    number = {"type": "integer", "minimum": low, "maximum": high}
    by_players = {"type": "object", "additionalProperties": number, "description": "player count (as text) -> value"}
    for name in PLAYER_MAPS:
        options[name] = {"anyOf": [number, by_players]}
    return {
        "type": "object",
        "description": "Option overrides (`GET /v1/variants` lists each option's values and every preset's defaults; "
        "docs/rules.md#options says what each does). An option the variant does not use, or a combination the "
        "rules do not allow, is a 422 naming the option.",
        "properties": dict(sorted(options.items())),
        "additionalProperties": False,
    }


# A body's `rules` before `rules_by_variant` gives each variant's schema its own `<Variant>Rules`.
RULES_SCHEMA: dict[str, Any] = {"type": "object"}
REF = "#/components/schemas/"


def _camel(preset: str) -> str:
    return "".join(word.capitalize() for word in preset.split("_"))


def variant_rules(preset: str) -> dict[str, Any]:
    """JSON Schema of the `rules` of one variant: only the options it uses (any other is a 422 naming it)."""
    every = rule_overrides()
    uses = {name for name, option in domino.describe_variants()["options"].items() if preset in option["defaults"]}
    return {
        **every,
        "description": f"The option overrides `{preset}` takes (`GET /v1/variants` lists their values and defaults); "
        "a combination the rules do not allow is a 422 naming the option.",
        "properties": {name: value for name, value in every["properties"].items() if name in uses},
    }


def rules_by_variant(spec: APISpec, body: str, seats: str) -> None:
    """The request body `body` as a `oneOf` of one schema per variant, chosen by its `variant` (the
    discriminator): each is the body with that variant's own `rules` (`<Variant>Rules`) and, for a line game,
    at most 4 `seats` (a list of seats, strategies or bots, or a number of players; Mexican Train's range stays)."""
    base = spec.components.schemas[body]
    mapping: dict[str, str] = {}
    for preset in domino.PRESETS:
        name = f"{body}{_camel(preset)}"
        properties = dict(base["properties"])
        properties["variant"] = {**properties["variant"], "enum": [preset]}
        rules = {k: v for k, v in properties["rules"].items() if k != "type"}
        properties["rules"] = {**rules, "$ref": f"{REF}{_camel(preset)}Rules"}
        if preset in LINE_PRESETS:
            bound = "maxItems" if properties[seats].get("type") == "array" else "maximum"
            properties[seats] = {**properties[seats], bound: 4}
        description = f"{base.get('description', body)} (`{preset}`: its `rules` take only its own options)"
        spec.components.schema(name, {**base, "description": description, "properties": properties})
        mapping[preset] = REF + name
    spec.components.schemas[body] = {
        "description": f"{base.get('description', body)} One schema per variant, chosen by `variant`.",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "variant", "mapping": mapping},
    }


def document(spec: APISpec) -> None:
    for preset in domino.PRESETS:
        spec.components.schema(f"{_camel(preset)}Rules", variant_rules(preset))

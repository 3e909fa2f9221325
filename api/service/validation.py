"""Checks a request needs beyond its schema, shared by games and simulations, so that the same mistake gets
the same 422 problem on ``POST /v1/games`` and ``POST /v1/simulations``: ``detail``, ``errors`` (where, as
webargs names places: a bad rule option under ``errors.json.rules.<option>``)."""

from __future__ import annotations

from typing import Any

import domino
import domino.bots
from api.service.errors import InvalidRequest


def invalid(field: str, message: str, detail: str | None = None) -> InvalidRequest:
    """A 422 naming one top-level field of the JSON body."""
    return InvalidRequest(detail or f"`{field}`: {message}", errors={"json": {field: [message]}})


def check_variant(variant: str, overrides: dict[str, Any] | None, players_field: str) -> None:
    """Before anything else of a request: a known variant, and no ``players`` among the rule overrides
    (``players_field`` is the request's field the number of players comes from: ``seats``, ``strategies``)."""
    if overrides and "players" in overrides:
        raise InvalidRequest(
            f"`players` comes from `{players_field}`, not from `rules`.",
            errors={"json": {"rules": {"players": ["not allowed"]}}},
        )
    if variant not in domino.PRESETS:
        presets = list(domino.PRESETS)
        raise invalid("variant", f"one of {presets}", f"Unknown variant {variant!r}; see GET /v1/variants.")


def resolve_rules(variant: str, players: int, overrides: dict[str, Any] | None, players_field: str) -> domino.Rules:
    """The rules of ``variant`` (checked by :func:`check_variant`) for ``players`` seats with ``overrides``;
    a bad option is an InvalidRequest naming it."""
    try:
        return domino.Rules.preset(variant, players=players, **(overrides or {}))
    except domino.InvalidRulesError as exc:
        where: dict[str, Any] = (
            {players_field: [exc.reason]} if exc.option == "players" else {"rules": {exc.option: [exc.reason]}}
        )
        raise InvalidRequest(f"{exc.option}: {exc.reason}", errors={"json": where}) from exc


def check_strategy(strategy: str, field: str, index: int) -> None:
    """``strategy`` must be a computer player's id (``GET /v1/bots``); the error names ``field[index]``."""
    if strategy not in domino.bots.ids():
        raise unknown_strategy(strategy, field, index)


def unknown_strategy(strategy: str, field: str, index: int, inner: str | None = None) -> InvalidRequest:
    """The 422 for a name that is no computer player's id (nor, where a seat names a ``bot``, a registered
    bot's); it names ``field[index]`` (``[inner]``)."""
    choices = [f"one of {sorted(domino.bots.ids())}" + (" or a registered bot's name" if inner else "")]
    place: dict[str, Any] = {inner: choices} if inner else {}
    return InvalidRequest(
        f"Unknown {'bot' if inner else 'strategy'} {strategy!r}; see GET /v1/bots.",
        errors={"json": {field: {str(index): place or choices}}},
    )

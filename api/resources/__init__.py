"""One folder per resource (routes.py + schemas.py); MODULES orders the tags in the docs."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # resources' schemas are imported by api.extensions (the problem schema names Move)
    from api.extensions import Api

MODULES = ("variants", "bots", "bot_events", "games", "seats", "moves", "events", "apps", "simulations", "ratings", "arenas", "health")


def register_blueprints(api: Api) -> None:
    for name in MODULES:
        module = importlib.import_module(f"api.resources.{name}.routes")
        api.register_blueprint(module.blp)

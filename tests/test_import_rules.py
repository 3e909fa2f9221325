"""The dependency rule, read from the source (``ast``): HTTP and jobs -> service -> store/queues -> redis/rq,
and service -> the engine; nothing imports the workers; no module takes another's private name; imports are
at the top of a module, where a reader sees them (a real cycle that needs a function-level import is named
in ``FUNCTION_IMPORTS`` with its reason)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("api", "domino", "workers")

# (module, imported module) -> why it is imported inside a function.
FUNCTION_IMPORTS: dict[tuple[str, str], str] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(tree: ast.Module, module: str) -> list[tuple[str, list[str], bool]]:
    """(imported module, names taken from it, at module level) for every import statement."""
    top = {id(node) for node in tree.body}
    for node in tree.body:  # ``if TYPE_CHECKING:`` blocks and the like are still the module's top
        if isinstance(node, (ast.If, ast.Try)):
            top.update(id(n) for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom)))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((alias.name, [], id(node) in top) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against this module's package
                package = module.split(".")[: -node.level] if not module.endswith("__init__") else module.split(".")
                base = ".".join([*package, base] if base else package)
            out.append((base, [alias.name for alias in node.names], id(node) in top))
    return out


def _graph() -> dict[str, list[tuple[str, list[str], bool]]]:
    graph = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            module = _module_name(path)
            graph[module] = _imports(ast.parse(path.read_text(encoding="utf-8")), module)
    return graph


GRAPH = _graph()


def _top(name: str) -> str:
    return name.split(".", 1)[0]


def _in(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _imported(module: str) -> set[str]:
    """Every module ``module`` names in an import, with ``from package import submodule`` resolved."""
    out = set()
    for target, names, _ in GRAPH[module]:
        out.add(target)
        out.update(f"{target}.{n}" for n in names if f"{target}.{n}" in GRAPH)
    return out


def _reach(module: str) -> set[str]:
    """Every module imported from ``module``, through the project's own modules."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        for target in _imported(todo.pop()):
            if target not in seen:
                seen.add(target)
                if target in GRAPH:
                    todo.append(target)
    return seen


def _offenders(where: tuple[str, ...], forbidden: tuple[str, ...], allowed: tuple[str, ...] = ()) -> list[str]:
    return sorted(
        f"{m} imports {t}"
        for m in GRAPH
        if _in(m, *where) and not _in(m, *allowed)
        for t in _imported(m)
        if _top(t) in forbidden
    )


def test_the_graph_was_read() -> None:
    assert "api.service.service" in GRAPH and "api.store" in GRAPH and "workers.jobs" in GRAPH
    assert "api.queues" in _imported("api.service.service")  # the reader sees `from x import y` too


def test_nothing_imports_the_workers() -> None:
    assert _offenders(("api", "domino"), ("workers",)) == []


def test_the_service_and_the_store_are_free_of_flask_even_through_other_modules() -> None:
    for module in [m for m in GRAPH if _in(m, "api.service", "api.store", "api.queues")]:
        assert not [t for t in _reach(module) if _top(t) in ("flask", "flask_smorest", "werkzeug")], module


def test_only_the_store_imports_redis() -> None:
    assert _offenders(("api", "domino", "workers"), ("redis",), allowed=("api.store",)) == []


def test_only_the_archive_imports_sqlalchemy_and_alembic() -> None:
    assert _offenders(("api", "domino", "workers"), ("sqlalchemy", "alembic", "psycopg"), allowed=("api.archive",)) == []
    assert "sqlalchemy" in {_top(t) for t in _imported("api.archive")}  # the reader sees the archive's own imports


def test_only_the_queues_and_the_workers_import_rq() -> None:
    assert _offenders(("api", "domino", "workers"), ("rq",), allowed=("api.queues", "workers")) == []


def test_the_engine_imports_nothing_of_the_service() -> None:
    assert _offenders(("domino",), ("api", "workers", "flask", "redis", "rq")) == []


def test_no_module_imports_a_private_name_of_another() -> None:
    found = [
        f"{m} takes {t}.{n}"
        for m, imports in GRAPH.items()
        for t, names, _ in imports
        for n in names
        if n.startswith("_") and not n.startswith("__") and t != m
    ]
    assert found == []


@pytest.mark.parametrize("package", PACKAGES)
def test_project_modules_are_imported_at_the_top(package: str) -> None:
    found = [
        f"{m} imports {t} inside a function"
        for m, imports in GRAPH.items()
        if _in(m, package)
        for t, _, top in imports
        if not top and _top(t) in PACKAGES and (m, t) not in FUNCTION_IMPORTS
    ]
    assert found == []


def test_the_rules_catch_what_they_are_for(tmp_path: Path) -> None:
    """The reader itself: a function-level import and a private name are seen."""
    tree = ast.parse("import os\ndef f():\n    from api.store import _x\n")
    assert _imports(tree, "api.m") == [("os", [], True), ("api.store", ["_x"], False)]

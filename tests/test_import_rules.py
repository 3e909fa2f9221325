"""The dependency rule, read from the source (``ast``): HTTP and jobs -> service -> store/queues -> redis/rq,
and service -> the engine; nothing imports the workers; no module takes another's private name; imports are
at the top of a module, where a reader sees them (a real cycle that needs a function-level import is named
in ``FUNCTION_IMPORTS`` with its reason); no module imports itself back, through the packages it runs either.

Strings that name the project's code are imports too, which a reader does not see as such: the only ones are
RQ's job paths, each named once in ``api.queues.JOB_KINDS``, and the command lines that start another process
(``ENTRY_POINTS``). ``importlib.import_module`` is not used on the project's modules."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from api.queues import job_paths

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("api", "domino", "workers")

# (module, imported module) -> why it is imported inside a function.
FUNCTION_IMPORTS: dict[tuple[str, str], str] = {}

# (module, string) -> why the string names the project's code: a process started with it imports it, not us.
ENTRY_POINTS: dict[tuple[str, str], str] = {
    ("workers.cli", "workers.cli"): "domino-serve starts the workers as `python -m workers.cli worker ...`",
    ("workers.cli", "workers.accesslog.AccessLogger"): "gunicorn's --logger-class, imported by gunicorn",
    ("workers.cli", "api.app:serve()"): "gunicorn's application, built in each of its processes",
}

# A string that may name a module or something in one: the packages' dotted names (`api.app:serve()` too).
DOTTED = re.compile(r"^(?:api|domino|workers)(?:\.[A-Za-z_]\w*)+(?::\w+)?")


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


def _is_logger_name(node: ast.Constant, parents: dict[int, ast.AST]) -> bool:
    """``logging.getLogger("api.service.moves")``: a logger's name, which reads like a module's."""
    call = parents.get(id(node))
    return isinstance(call, ast.Call) and getattr(call.func, "attr", getattr(call.func, "id", "")) == "getLogger"


def _names_code(text: str) -> bool:
    """Whether ``text`` names a project module, or a name defined at the top of one (``a.b.c`` or ``a.b:c``)."""
    dotted = DOTTED.match(text)
    if dotted is None:
        return False
    module, _, name = dotted.group(0).replace(":", ".").rpartition(".")
    if dotted.group(0).replace(":", ".") in GRAPH:
        return True
    if module not in GRAPH:
        return False
    path = ROOT / Path(*module.split("."))
    source = (path / "__init__.py" if path.is_dir() else path.with_suffix(".py")).read_text(encoding="utf-8")
    return re.search(rf"^(?:def|class|async def) {re.escape(name)}\b|^{re.escape(name)}\b.*=", source, re.M) is not None


def _string_imports(tree: ast.Module) -> list[str]:
    """Every string constant (but a logger's name) that names the project's code, and every
    ``import_module``/``__import__`` call (as ``import_module(...)``: what it imports cannot be checked)."""
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and not _is_logger_name(node, parents):
            if _names_code(node.value):
                out.append((node.lineno, node.col_offset, node.value))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
            "import_module",
            "__import__",
        ):
            out.append((node.lineno, node.col_offset, "import_module(...)"))
    return [text for *_, text in sorted(out)]


STRINGS = {
    module: _string_imports(ast.parse(path.read_text(encoding="utf-8")))
    for package in PACKAGES
    for path in sorted((ROOT / package).rglob("*.py"))
    if (module := _module_name(path))
}


def _runtime_imports(module: str) -> set[str]:
    """The project's modules that importing ``module`` runs: its imports (not those for the type checker only),
    and the packages above each of them (a package's ``__init__`` runs first), but not its own submodules."""
    path = ROOT / Path(*module.split("."))
    tree = ast.parse((path / "__init__.py" if path.is_dir() else path.with_suffix(".py")).read_text(encoding="utf-8"))
    typing_only = {
        id(n)
        for node in tree.body
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }
    out = set()
    for node in ast.walk(tree):
        if id(node) in typing_only or not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        for target, names, _ in _imports(ast.Module(body=[node], type_ignores=[]), module):
            for full in (target, *(f"{target}.{n}" for n in names)):
                parts = full.split(".")
                out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in GRAPH)
    return {t for t in out if t != module and not t.startswith(module + ".")}


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


def test_strings_name_the_projects_code_only_as_job_paths_or_entry_points() -> None:
    found = [
        f"{m} names {text!r}"
        for m, texts in STRINGS.items()
        for text in texts
        if not (m == "api.queues" and text in job_paths()) and (m, text) not in ENTRY_POINTS
    ]
    assert found == [], "a string import: import the module, or name a job in api.queues.JOB_KINDS"


def test_every_job_path_names_a_job_function() -> None:
    assert job_paths() and all(_names_code(path) for path in job_paths()), sorted(job_paths())
    assert job_paths() <= set(STRINGS["api.queues"])


def test_no_module_imports_itself_back() -> None:
    """A cycle through a package's ``__init__`` too (a module imports a package's schema; the package imports
    routes that import the module back): it works or not depending on which module is imported first."""
    runtime = {m: _runtime_imports(m) for m in GRAPH}
    cycles = []
    for start in sorted(GRAPH):
        seen, todo = set(), list(runtime[start])
        while todo:
            m = todo.pop()
            if m == start:
                cycles.append(start)
                break
            if m not in seen:
                seen.add(m)
                todo.extend(runtime.get(m, ()))
    assert cycles == []


def test_the_rules_catch_what_they_are_for(tmp_path: Path) -> None:
    """The reader itself: a function-level import, a private name and string imports are seen; a logger's name
    is not an import."""
    tree = ast.parse("import os\ndef f():\n    from api.store import _x\n")
    assert _imports(tree, "api.m") == [("os", [], True), ("api.store", ["_x"], False)]
    tree = ast.parse(
        'q.enqueue("workers.jobs.bot_turn")\nimportlib.import_module(name)\nx = "api.app:serve()"\n'
        'logging.getLogger("api.service.moves")\ny = "domino.settings"\n'
    )
    assert _string_imports(tree) == ["workers.jobs.bot_turn", "import_module(...)", "api.app:serve()"]

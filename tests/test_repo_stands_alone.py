"""The repository stands alone: no file cites a design or rules document that is not in it.

The rules are documented in docs/rules.md and the hosted-bot protocol in docs/hosted-bots.md; README, OpenAPI
descriptions, code comments and tests link there, never to files outside the repository.
"""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
from typing import Iterator

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Built from parts so that this file does not match itself.
_OUTSIDE = [
    "DESIGN" + r"(\.md|\s*§)",
    "RULES" + r"(\.md|\s*§)",
    "STYLE" + r"\.md",
    r"/work/" + "shared",
    r"\bshared/" + r"(seeds|hooks)\b",
]
CITATION = re.compile("|".join(f"(?:{p})" for p in _OUTSIDE))


def _repository_files() -> list[pathlib.Path]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout  # fmt: skip
    return [ROOT / name for name in listed.decode().split("\0") if name]


def _texts() -> Iterator[tuple[str, str]]:
    """(path, text) of every text file in the repository."""
    for path in _repository_files():
        try:
            yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary, or deleted in the work tree


def test_no_file_cites_a_document_outside_the_repository() -> None:
    found = []
    for name, text in _texts():
        for number, line in enumerate(text.splitlines(), 1):
            if CITATION.search(line):
                found.append(f"{name}:{number}: {line.strip()[:120]}")
    assert not found, "cite docs/ instead:\n" + "\n".join(found)


def test_the_pattern_catches_a_citation() -> None:
    assert CITATION.search("see " + "RULES" + ".md §6")
    assert CITATION.search("(" + "DESIGN" + " §3)")
    assert not CITATION.search("see docs/rules.md#options; shared_wins counts shared wins")


def test_the_readme_lists_the_documentation() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in ("docs/rules.md", "docs/hosted-bots.md", "docs/architecture.md", "docs/engine.md"):
        assert f"({page})" in readme, page


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation other than `-` and `_` dropped, spaces to `-`."""
    out = set()
    for line in markdown.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_every_link_into_the_rules_names_a_section_that_exists() -> None:
    anchors = _anchors((ROOT / "docs" / "rules.md").read_text(encoding="utf-8"))
    missing = []
    for name, text in _texts():
        for anchor in re.findall(r"rules\.md#([\w-]+)", text):
            if anchor not in anchors:
                missing.append(f"{name}: #{anchor}")
    assert not missing, "\n".join(missing)

"""The docs name what is there: every repository path a page names exists, and the
development pages' modules and symbols are found where they say.

A page that sends a reader to `activities/store/schema_revision.py` for what moved to
`activities/schema_head.py`, or to `ModelRef` in `workflows/contracts.py` when it is in
`workflows/model_contracts.py`, loses them at the first step. What is read: the code
spans of every page (fenced blocks left out: those are commands and files a reader
writes, which tests/docs/test_documented_commands.py runs).
"""

from __future__ import annotations

import ast
import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEVELOPMENT = ROOT / "docs" / "development"
FENCED = re.compile(r"^ *```.*?^ *```", re.S | re.M)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
PATH_LIKE = re.compile(r"[\w./*-]+")
# A reader's own value in a path (`activities/scripts/NAME.json`, `docs/images/NAME`):
# any file of that folder will do.
PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]+(?=\.\w+$|$)")
MAKE_VARIABLE = re.compile(r"^(\w+) *:?=", re.M)
IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*")
# `Symbol` (`module.py`...), `Symbol` in `module.py`, `Symbol`, of `module.py`.
SYMBOL_IN_MODULE = re.compile(r"`([A-Za-z_][\w.]*)`,? (?:\(|in |of )`([\w/.-]+\.py)`")
# Paths a page names as what a reader makes, by page: they are not in the repository.
MADE_BY_THE_READER = {
    "docs/ui/languages.md": {"approvals_ui/locales/de/LC_MESSAGES/messages.po"},
}
# Names the development pages use that no module of ours defines, with why.
NOT_OURS = {
    "sem_clockwait": "glibc's, which libfaketime does not shift (tests.md)",
    "CLOCK_MONOTONIC": "the kernel's clock that call waits on (tests.md)",
    "include_external_packages": "an import-linter option, in pyproject.toml",
    "RunMemo": "design-notes.md: the memo runs published until the versioning fold",
    "signoff_run": "design-notes.md: that memo's key",
}


def pages() -> list[Path]:
    return sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])


def spans(page: Path) -> list[str]:
    return CODE_SPAN.findall(FENCED.sub("", page.read_text()))


@cache
def tracked() -> tuple[str, ...]:
    """The repository's files: committed or new, not those git ignores."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return tuple(path for path in listed.splitlines() if (ROOT / path).exists())


def top_folders() -> set[str]:
    return {path.split("/")[0] for path in tracked() if "/" in path}


def relative(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def named_paths(page: Path) -> set[str]:
    """The spans that are paths in the repository: they start with one of its folders."""
    folders = top_folders()
    return {
        span.rstrip("/")
        for span in spans(page)
        if PATH_LIKE.fullmatch(span) and "/" in span and span.split("/")[0] in folders
    }


def exists(path: str) -> bool:
    if "*" not in path and (ROOT / path).exists():
        return True
    pattern = "/".join(PLACEHOLDER.sub("*", part) for part in path.split("/"))
    if "*" not in pattern:
        return False
    return any(Path(file).match(pattern) or Path(file).parent.match(pattern) for file in tracked())


@pytest.mark.parametrize("page", pages(), ids=relative)
def test_every_repository_path_a_page_names_exists(page: Path) -> None:
    made = MADE_BY_THE_READER.get(relative(page), set())
    assert made <= named_paths(page), "a path a reader makes is no longer named"
    assert sorted(path for path in named_paths(page) - made if not exists(path)) == []


@pytest.mark.parametrize("page", sorted(DEVELOPMENT.glob("*.md")), ids=relative)
def test_every_module_a_development_page_names_is_there(page: Path) -> None:
    """`model_turn.py` alone, in a table whose row says its folder."""
    modules = {Path(path).name for path in tracked() if path.endswith(".py")}
    named = {span for span in spans(page) if re.fullmatch(r"[\w-]+\.py", span)}
    gone = named - modules
    if page.name == "design-notes.md":  # history: a note may name what it replaced
        gone -= {name for name in gone if f"`{name}` (removed" in page.read_text()}
    assert sorted(gone) == []


@cache
def known_names() -> frozenset[str]:
    """Every name our Python defines (a class, a function, an assignment, an attribute
    set), imports, reads as an attribute or holds as a string (a table's name, a search
    attribute's), every module's name, and the Makefile's variables."""
    names = set(MAKE_VARIABLE.findall((ROOT / "Makefile").read_text()))
    for path in tracked():
        if not path.endswith(".py"):
            continue
        names.add(Path(path).stem)
        for node in ast.walk(ast.parse((ROOT / path).read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name | ast.arg):
                names.add(node.id if isinstance(node, ast.Name) else node.arg)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)
            elif isinstance(node, ast.alias):
                names.add((node.asname or node.name).split(".")[-1])
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if IDENTIFIER.fullmatch(node.value):
                    names.add(node.value)
    return frozenset(names)


@pytest.mark.parametrize("page", sorted(DEVELOPMENT.glob("*.md")), ids=relative)
def test_every_symbol_a_development_page_names_is_ours(page: Path) -> None:
    """A class (`RunDescription`), a function or constant (`worker_activities`,
    `HEAD_REVISION`), a dotted one (`ModelTurns.adapter_for`): settings, commands and
    plain words are left alone."""
    unknown = set()
    for span in spans(page):
        last = span.split(".")[-1]
        symbol = re.fullmatch(r"[A-Z][a-z0-9]+[A-Z]\w*", last) or (
            "_" in last.strip("_") and not last.startswith("SIGNOFF_")
        )
        if IDENTIFIER.fullmatch(span) and symbol and last not in known_names():
            unknown.add(span)
    assert sorted(unknown - NOT_OURS.keys()) == []


def defined_in(module: Path, symbol: str) -> bool:
    """`symbol` (dotted: a class's method or attribute) is defined at the module's top
    level, not merely imported there."""
    body: list[ast.stmt] = ast.parse(module.read_text()).body
    for part in symbol.split("."):
        found = next((node for node in body if part in _defines(node)), None)
        if found is None:
            return False
        body = getattr(found, "body", [])
    return True


def _defines(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else []
    if isinstance(node, ast.AnnAssign):
        targets = [node.target]
    return {target.id for target in targets if isinstance(target, ast.Name)}


@pytest.mark.parametrize("page", sorted(DEVELOPMENT.glob("*.md")), ids=relative)
def test_a_symbol_named_with_its_module_is_defined_there(page: Path) -> None:
    """`ModelRef` (`workflows/model_contracts.py`), `HEAD_REVISION` in
    `activities/schema_head.py`: the module the page names defines it."""
    text = FENCED.sub("", page.read_text())
    pairs = {
        (symbol, module)
        for symbol, module in SYMBOL_IN_MODULE.findall(text)
        if not symbol.startswith("SIGNOFF_")  # a setting, read where the module says
    }
    wrong = sorted(
        (symbol, module)
        for symbol, module in pairs
        if not (ROOT / module).exists() or not defined_in(ROOT / module, symbol)
    )
    assert wrong == []

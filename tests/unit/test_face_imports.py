"""The faces import neither Temporal nor SQLAlchemy nor Alembic, not even for a type,
and never unwrap the service's handles.

import-linter (pyproject.toml) forbids the faces `temporalio`, `sqlalchemy` and `alembic`;
this test reads every import statement of the faces, those under `if TYPE_CHECKING:` and
inside functions too, for the same packages, so that the rule holds without the linter.
It also refuses any use of the names that unwrap a `Store` or a `Runs`
(signoff/service/handles.py), which no import contract can see.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FACES = (REPO / "approvals_ui", REPO / "signoff" / "cli")
FORBIDDEN = ("temporalio", "sqlalchemy", "alembic")
UNWRAPPING = frozenset({"engine_of", "client_of", "on_store", "_engine", "_client"})


def imported_modules(source: str) -> list[tuple[int, str]]:
    """(line, module) for every import in `source`, at any depth."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            # `from temporalio import client` names the module as an attribute.
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def forbidden_in(source: str) -> list[str]:
    return [
        f"line {line}: {module}"
        for line, module in imported_modules(source)
        if any(module == name or module.startswith(name + ".") for name in FORBIDDEN)
    ]


def unwrapping_in(source: str) -> list[str]:
    """`line: name` for every name, attribute or imported name of `UNWRAPPING`."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.ImportFrom):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [f"line {node.lineno}: {name}" for name in names if name in UNWRAPPING]
    return found


def face_files() -> list[Path]:
    return sorted(path for face in FACES for path in face.rglob("*.py"))


@pytest.mark.parametrize("path", face_files(), ids=lambda path: str(path.relative_to(REPO)))
def test_a_face_imports_no_temporal_and_no_sqlalchemy(path: Path) -> None:
    assert forbidden_in(path.read_text()) == []


@pytest.mark.parametrize("path", face_files(), ids=lambda path: str(path.relative_to(REPO)))
def test_a_face_never_unwraps_a_handle(path: Path) -> None:
    assert unwrapping_in(path.read_text()) == []


@pytest.mark.parametrize(
    "line",
    [
        "from temporalio.client import Client",
        "from temporalio import client",
        "import temporalio.client",
        "from temporalio.service import RPCError",
        "if TYPE_CHECKING:\n    from temporalio.runtime import Runtime",
        "from sqlalchemy.exc import SQLAlchemyError",
        "import sqlalchemy",
        "if TYPE_CHECKING:\n    from sqlalchemy import Engine",
        "def f():\n    from alembic import command",
    ],
)
def test_the_guard_sees_each_form_of_import(line: str) -> None:
    assert forbidden_in(line) != []


def test_the_guard_lets_the_service_through() -> None:
    assert forbidden_in("from signoff.service.history_export import TemporalRefused") == []


@pytest.mark.parametrize(
    "line",
    [
        "from signoff.service.handles import engine_of",
        "engine = store._engine",
        "client = client_of(runs)",
        "links_of = on_store(slack_links.links_of)",
    ],
)
def test_the_guard_sees_each_way_to_unwrap(line: str) -> None:
    assert unwrapping_in(line) != []

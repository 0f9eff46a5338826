"""The faces import neither `temporalio.client` nor SQLAlchemy, not even for a type.

import-linter (pyproject.toml) forbids SQLAlchemy and Alembic to the faces, but it can
forbid an external package only whole, never one of its modules: the faces may read
`temporalio.service` (an error class), not `temporalio.client`. This test reads every
import statement of the faces, those under `if TYPE_CHECKING:` and inside functions
too, and is the guard for what import-linter cannot name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FACES = (REPO / "approvals_ui", REPO / "signoff" / "cli")
FORBIDDEN = ("temporalio.client", "sqlalchemy", "alembic")


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


def face_files() -> list[Path]:
    return sorted(path for face in FACES for path in face.rglob("*.py"))


@pytest.mark.parametrize("path", face_files(), ids=lambda path: str(path.relative_to(REPO)))
def test_a_face_imports_no_temporal_client_and_no_sqlalchemy(path: Path) -> None:
    assert forbidden_in(path.read_text()) == []


@pytest.mark.parametrize(
    "line",
    [
        "from temporalio.client import Client",
        "from temporalio import client",
        "import temporalio.client",
        "from sqlalchemy.exc import SQLAlchemyError",
        "import sqlalchemy",
        "if TYPE_CHECKING:\n    from sqlalchemy import Engine",
        "def f():\n    from alembic import command",
    ],
)
def test_the_guard_sees_each_form_of_import(line: str) -> None:
    assert forbidden_in(line) != []


def test_the_guard_lets_the_bare_service_through() -> None:
    assert forbidden_in("from temporalio.service import RPCError") == []

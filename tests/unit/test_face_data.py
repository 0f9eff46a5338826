"""What the faces call in the service hands them plain data, never a store row.

For every name a face imports from `signoff.service`, a function's return type (a
wrapped store call's too) must name no ORM class of the store (a subclass of the
store's `Base`), no SQLAlchemy session and no engine: the service copies rows into
frozen records (`AuditEntry`, `AccountRecord`, `TokenRecord`...) before a face sees
them. The test reads the faces' import statements, then the annotations themselves.
And every dataclass a face names from the service is frozen: a report it is handed is
the service's answer, not a value to fill in.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from activities.store.schema import Base

REPO = Path(__file__).resolve().parents[2]
FACES = (REPO / "approvals_ui", REPO / "signoff" / "cli")


def service_imports() -> set[tuple[str, str]]:
    """(module, name) for every `from signoff.service... import name` in the faces."""
    found: set[tuple[str, str]] = set()
    for face in FACES:
        for path in face.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "signoff.service"
                ):
                    found |= {(node.module or "", alias.name) for alias in node.names}
    return found


def store_names() -> set[str]:
    """The store's ORM classes (every table of its `Base`), a session and an engine."""
    import activities.store  # noqa: F401  (registers every table module with Base)

    rows = {mapper.class_.__name__ for mapper in Base.registry.mappers}
    return rows | {Session.__name__, Engine.__name__}


def store_types_in(function: Callable[..., Any]) -> list[str]:
    """The ORM rows, sessions or engines `function`'s return annotation names (read as
    text: the modules annotate lazily, some names only under TYPE_CHECKING)."""
    returned = inspect.signature(inspect.unwrap(function)).return_annotation
    text = returned if isinstance(returned, str) else getattr(returned, "__name__", "")
    return sorted(set(re.findall(r"[A-Za-z_]\w*", text)) & store_names())


def test_the_check_sees_a_row_behind_a_wrapper() -> None:
    from signoff.service.accounts import get_reviewer, tokens_of

    assert store_types_in(get_reviewer) == ["Reviewer"]
    assert store_types_in(tokens_of) == ["ApiToken"]


def test_no_face_calls_a_service_function_that_returns_a_store_row() -> None:
    imports = service_imports()
    assert len(imports) > 50  # the faces do import the service
    leaks = []
    for module, name in sorted(imports):
        value = getattr(importlib.import_module(module), name)
        if inspect.isfunction(value) or hasattr(value, "__wrapped__"):
            leaks += [f"{module}.{name} -> {kind}" for kind in store_types_in(value)]
    assert leaks == [], "return a frozen record of the service instead (account_records.py)"


def test_every_dataclass_a_face_names_from_the_service_is_frozen() -> None:
    mutable = []
    for module, name in sorted(service_imports()):
        value = getattr(importlib.import_module(module), name)
        if inspect.isclass(value) and dataclasses.is_dataclass(value):
            if not value.__dataclass_params__.frozen:
                mutable.append(f"{module}.{name}")
    assert mutable == [], "build the values in locals, then construct a frozen dataclass"


def test_the_reports_the_faces_print_are_frozen() -> None:
    from signoff.service.audit import ChainReport
    from signoff.service.history_export import ExportReport
    from signoff.service.history_gates import GateReport
    from signoff.service.shop import SeedReport

    for report in (ChainReport(), ExportReport(), GateReport(), SeedReport()):
        for field in dataclasses.fields(report):
            assert not isinstance(getattr(report, field.name), list), field.name
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(report, field.name, None)

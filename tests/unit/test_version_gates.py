"""The gates folded under `lean-history` are exactly those that came before it."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import workflows
from workflows.version_gates import FOLDED, LEAN_HISTORY_PATCH, patched

# Gates added after lean-history: a run holding its marker did not know them, so they
# call `workflow.patched` themselves and stay out of FOLDED. None yet.
LATER: frozenset[str] = frozenset()


def gate_ids() -> set[str]:
    """Every `*_PATCH` constant defined in a workflows module."""
    found = set()
    for module_info in pkgutil.iter_modules(workflows.__path__):
        module = importlib.import_module(f"workflows.{module_info.name}")
        for name, value in vars(module).items():
            if name.endswith("_PATCH") and isinstance(value, str):
                found.add(value)
    return found - {LEAN_HISTORY_PATCH}


def test_folded_gates_are_the_gates_older_than_lean_history() -> None:
    assert gate_ids() - LATER == FOLDED


def test_a_later_gate_cannot_pass_as_folded() -> None:
    with pytest.raises(ValueError, match="came after lean-history"):
        patched("a-gate-from-next-year")

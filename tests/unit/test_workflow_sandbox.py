"""The workflow modules are passed through the sandbox (workflows/sandbox.py): imported
once per process and shared by every run, so none may hold state a run could change."""

from __future__ import annotations

import importlib
import pkgutil
from types import MappingProxyType

import workflows
from workflows.sandbox import PASSED_THROUGH, workflow_runner

MUTABLE = (list, dict, set, bytearray)


def test_no_workflow_module_holds_a_mutable_value_at_module_level() -> None:
    shared = []
    for module_info in pkgutil.iter_modules(workflows.__path__):
        module = importlib.import_module(f"workflows.{module_info.name}")
        for name, value in vars(module).items():
            if name.startswith("__") or isinstance(value, MappingProxyType):
                continue
            if isinstance(value, MUTABLE):
                shared.append(f"workflows.{module_info.name}.{name}")
    assert shared == [], "module state would be shared by every run: make it immutable"


def test_the_runner_passes_the_workflow_modules_through() -> None:
    passed = workflow_runner("bench.runs.raw_refund").restrictions.passthrough_modules
    assert set(PASSED_THROUGH) | {"bench.runs.raw_refund"} <= set(passed)

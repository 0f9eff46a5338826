"""The layers hold (import-linter), and the check does catch an import that runs upward."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LINT_IMPORTS = str(Path(sys.executable).parent / "lint-imports")
PACKAGES = ("workflows", "activities", "signoff", "approvals_ui", "bench", "tests", "testkit")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache"], cwd=root, env=env, capture_output=True, text=True
    )


def test_every_layer_imports_only_layers_below_it() -> None:
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout


def copy_of_repo(root: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(REPO / package, root / package, ignore=shutil.ignore_patterns("histories"))
    shutil.copy(REPO / "pyproject.toml", root)
    return root


def lint_with(root: Path, module: str, line: str) -> str:
    """import-linter's report on a copy of the repository where `module` (a path under
    it) ends with `line`; the check must fail."""
    changed = copy_of_repo(root) / module
    changed.write_text(changed.read_text() + f"\n{line}  # noqa\n")
    result = lint_imports(root)
    assert result.returncode != 0
    return result.stdout


def test_an_upward_import_breaks_the_contract(tmp_path: Path) -> None:
    # The adapter layer reaching up into the service: what the contract exists to stop.
    report = lint_with(tmp_path, "activities/model_turn.py", "import signoff.service.pending")
    assert "activities.model_turn -> signoff.service.pending" in report


def test_a_face_reaching_past_the_service_breaks_the_contract(tmp_path: Path) -> None:
    # Skipping a layer down is allowed by "layers"; for a face it is SQL outside the service.
    report = lint_with(tmp_path, "approvals_ui/lookups.py", "import activities.store.tickets")
    assert "Faces go through the service: no adapter, no SQL BROKEN" in report
    assert "approvals_ui.lookups -> activities.store.tickets" in report


def test_a_test_reaching_into_the_benchmarks_breaks_the_contract(tmp_path: Path) -> None:
    # What testkit exists to avoid: a test that a change to a benchmark can break.
    test = "tests/workflow/test_reviewers_race.py"
    report = lint_with(tmp_path, test, "import bench.scale.probes")
    assert "Tests stand alone: nothing from the benchmarks BROKEN" in report
    assert "tests.workflow.test_reviewers_race -> bench.scale.probes" in report


def test_a_face_importing_sqlalchemy_breaks_the_contract(tmp_path: Path) -> None:
    # A face with an engine of its own: SQL outside the service, with no adapter named.
    report = lint_with(tmp_path, "signoff/cli/commands_pending.py", "from sqlalchemy import Engine")
    assert "faces import no SQLAlchemy, no Alembic BROKEN" in report
    assert "signoff.cli.commands_pending -> sqlalchemy" in report


def test_a_face_importing_temporal_breaks_the_contract(tmp_path: Path) -> None:
    # Even an error class or a payload type: the service hands the faces its own.
    line = "from temporalio.service import RPCError"
    report = lint_with(tmp_path, "approvals_ui/routers/codec.py", line)
    assert "faces import no temporalio BROKEN" in report
    assert "approvals_ui.routers.codec -> temporalio" in report

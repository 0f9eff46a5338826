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


def test_an_upward_import_breaks_the_contract(tmp_path: Path) -> None:
    adapter = copy_of_repo(tmp_path) / "activities" / "model_turn.py"
    # The adapter layer reaching up into the service: what the contract exists to stop.
    adapter.write_text(adapter.read_text() + "\nimport signoff.service.pending  # noqa\n")

    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "activities.model_turn -> signoff.service.pending" in result.stdout


def test_a_face_reaching_past_the_service_breaks_the_contract(tmp_path: Path) -> None:
    face = copy_of_repo(tmp_path) / "approvals_ui" / "lookups.py"
    # Skipping a layer down is allowed by "layers"; for a face it is SQL outside the service.
    face.write_text(face.read_text() + "\nimport activities.store.tickets  # noqa\n")

    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "Faces go through the service: no adapter, no SQL BROKEN" in result.stdout
    assert "approvals_ui.lookups -> activities.store.tickets" in result.stdout


def test_a_test_reaching_into_the_benchmarks_breaks_the_contract(tmp_path: Path) -> None:
    test = copy_of_repo(tmp_path) / "tests" / "workflow" / "test_reviewers_race.py"
    # What testkit exists to avoid: a test that a change to a benchmark can break.
    test.write_text(test.read_text() + "\nimport bench.scale.probes  # noqa\n")

    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "Tests stand alone: nothing from the benchmarks BROKEN" in result.stdout
    assert "tests.workflow.test_reviewers_race -> bench.scale.probes" in result.stdout


def test_a_face_importing_sqlalchemy_breaks_the_contract(tmp_path: Path) -> None:
    face = copy_of_repo(tmp_path) / "signoff" / "cli" / "commands_pending.py"
    # A face with an engine of its own: SQL outside the service, with no adapter named.
    face.write_text(face.read_text() + "\nfrom sqlalchemy import Engine  # noqa\n")

    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "faces import no SQLAlchemy, no Alembic BROKEN" in result.stdout
    assert "signoff.cli.commands_pending -> sqlalchemy" in result.stdout


def test_a_face_importing_temporal_breaks_the_contract(tmp_path: Path) -> None:
    face = copy_of_repo(tmp_path) / "approvals_ui" / "routers" / "codec.py"
    # Even an error class or a payload type: the service hands the faces its own.
    face.write_text(face.read_text() + "\nfrom temporalio.service import RPCError  # noqa\n")

    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "faces import no temporalio BROKEN" in result.stdout
    assert "approvals_ui.routers.codec -> temporalio" in result.stdout

"""`signoff history export` on the dev stack: the file `temporal workflow show --output
json` writes, replayable by `signoff replay`; many runs by a visibility query; the same
"not found" for a run that does not exist and for another tenant's run.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from signoff.wiring.dev import temporal_binary
from tests.e2e.cli import COMMAND_SECONDS, eventually, signoff

pytestmark = pytest.mark.devserver


def temporal_show(env: dict[str, str], workflow_id: str) -> dict[str, Any]:
    shown = subprocess.run(
        [
            temporal_binary(),
            "workflow",
            "show",
            "--workflow-id",
            workflow_id,
            "--address",
            env["SIGNOFF_TEMPORAL_ADDRESS"],
            "--output",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=COMMAND_SECONDS,
    )
    assert shown.returncode == 0, shown.stderr
    document: dict[str, Any] = json.loads(shown.stdout)
    return document


@pytest.fixture(scope="module")
def finished_run(dev_stack: dict[str, str]) -> str:
    ran = signoff(dev_stack, "run", "--ticket", "T-4512", "--request-id", "hist-1", "--wait")
    assert ran.returncode == 0, ran.stderr
    return "run-demo-hist-1"


def test_export_writes_what_the_temporal_cli_shows_and_it_replays(
    dev_stack: dict[str, str], finished_run: str, tmp_path: Path
) -> None:
    exported = tmp_path / "run.json"
    result = signoff(dev_stack, "history", "export", finished_run, "-o", str(exported))
    assert result.returncode == 0, result.stderr
    assert f"written to {exported}" in result.stderr
    ours = json.loads(exported.read_text(encoding="utf-8"))
    theirs = temporal_show(dev_stack, finished_run)
    assert ours == theirs
    assert ours["events"][0]["workflowExecutionStartedEventAttributes"]["workflowId"] == (
        finished_run
    )

    shown = tmp_path / "shown-by-temporal.json"
    shown.write_text(json.dumps(theirs), encoding="utf-8")
    replayed = signoff(dev_stack, "replay", "--json", str(exported), str(shown))
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    report = json.loads(replayed.stdout)
    assert (report["ok"], report["failed"]) == (2, 0)
    assert {item["workflow_id"] for item in report["histories"]} == {finished_run}


def test_export_to_stdout_and_into_a_folder(
    dev_stack: dict[str, str], finished_run: str, tmp_path: Path
) -> None:
    printed = signoff(dev_stack, "history", "export", finished_run)
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout)["events"][0]["eventId"] == "1"
    into = signoff(dev_stack, "history", "export", finished_run, "-o", str(tmp_path))
    assert into.returncode == 0, into.stderr
    assert json.loads((tmp_path / f"{finished_run}.json").read_text()) == json.loads(printed.stdout)


def test_a_run_that_does_not_exist_and_another_tenants_run_are_not_found(
    dev_stack: dict[str, str], finished_run: str
) -> None:
    missing = signoff(dev_stack, "history", "export", "run-demo-no-such-run")
    assert missing.returncode == 2
    assert "No run with id 'run-demo-no-such-run'" in missing.stderr
    other = signoff(dev_stack, "history", "export", finished_run, "--tenant", "globex")
    assert other.returncode == 2
    assert f"No run with id '{finished_run}' for tenant 'globex'" in other.stderr
    assert other.stdout == ""
    own = signoff(dev_stack, "history", "export", finished_run, "--tenant", "demo")
    assert own.returncode == 0, own.stderr


def test_a_query_exports_each_run_into_a_folder_with_progress(
    dev_stack: dict[str, str], finished_run: str, tmp_path: Path
) -> None:
    second = signoff(dev_stack, "run", "--ticket", "T-9999", "--request-id", "hist-2", "--wait")
    assert second.returncode == 0, second.stderr
    query = f"WorkflowId = '{finished_run}' OR WorkflowId = 'run-demo-hist-2'"
    folder = tmp_path / "exported"

    def export() -> subprocess.CompletedProcess[str]:
        return signoff(dev_stack, "history", "export", "--query", query, "-o", str(folder))

    result = eventually(export, lambda done: "2 runs match" in done.stderr, "both runs listed")
    assert result.returncode == 0, result.stderr
    assert "[1/2]" in result.stderr and "[2/2]" in result.stderr
    assert sorted(path.name for path in folder.iterdir()) == [
        f"{finished_run}.json",
        "run-demo-hist-2.json",
    ]
    replayed = signoff(dev_stack, "replay", str(folder))
    assert replayed.returncode == 0, replayed.stdout
    assert "2 histories replayed: 2 ok, 0 failed" in replayed.stdout


def test_a_query_temporal_refuses_is_bad_input(dev_stack: dict[str, str], tmp_path: Path) -> None:
    result = signoff(
        dev_stack, "history", "export", "--query", "NoSuchField = 'x'", "-o", str(tmp_path)
    )
    assert result.returncode == 2
    assert "Temporal refused the query" in result.stderr

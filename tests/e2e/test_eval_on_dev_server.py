"""`signoff eval` on an existing stack (SIGNOFF_TEMPORAL_ADDRESS set): the shared dev
stack's worker runs the scenario with one of its own shipped scripts (`scripted:demo`),
the command writes the scenario's tenants into that stack's store and reviews the run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.cli import signoff

pytestmark = pytest.mark.devserver

SCENARIO = """
description: The demo agent on a damaged parcel; one approval.
tenants:
  - id: evalshop
    orders: [{id: C-1, paid: "19.90", tracking: TRK-E2E, customer: Eve}]
    tickets: [{id: T-1, order: C-1, customer: Eve, text: "My cup arrived broken."}]
    reviewers: [{id: erin}]
run: {tenant: evalshop, ticket: T-1, model: "scripted:demo"}
reviewers: [{as: erin, verdict: approve}]
expect:
  tools: [read_ticket, get_order, refund]
  refunded: "19.90"
"""


def test_eval_runs_on_the_stack_the_environment_names(
    dev_stack: dict[str, str], tmp_path: Path
) -> None:
    scenario = tmp_path / "demo-refund.yaml"
    scenario.write_text(SCENARIO)
    done = signoff(dev_stack, "eval", str(scenario), "--json", "--repeat", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    [row] = report["scenarios"]
    assert row["pass_rate"]["refunded"] == 1.0 and row["pass_rate"]["decision_valid"] == 1.0
    # Two attempts, two runs, each on tenants of its own.
    run_ids = {attempt["run_id"] for attempt in row["attempts"]}
    assert len(run_ids) == 2


def test_an_attempt_that_does_not_end_in_time_is_cancelled_and_fails(
    dev_stack: dict[str, str], tmp_path: Path
) -> None:
    # Nobody reviews and the approval lives for a day: only --timeout ends the attempt.
    scenario = tmp_path / "nobody-decides.yaml"
    scenario.write_text(SCENARIO.replace("reviewers: [{as: erin, verdict: approve}]\n", ""))
    done = signoff(dev_stack, "eval", str(scenario), "--timeout", "5")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "did not end within 5 s and was cancelled" in done.stdout
    assert "0/1 attempts passed every invariant" in done.stdout

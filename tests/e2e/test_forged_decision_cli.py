"""An attacker with the `temporal` CLI and the Temporal frontend, nothing else: the
`decide` update they send claims to be alice and carries no proof. It is refused before
it reaches the run's history, and no money moves."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from activities.store import list_refunds, make_engine
from tests.e2e.cli import eventually, json_of, signoff

pytestmark = pytest.mark.devserver

TEMPORAL = str(Path(sys.executable).parent / "temporal")
POLL_SECONDS = 60


def test_an_unsigned_decide_from_the_temporal_cli_is_refused(dev_stack: dict[str, str]) -> None:
    started = signoff(dev_stack, "run", "--ticket", "T-3107", "--request-id", "forged", "--json")
    run_id = json_of(started)["run_id"]
    pending = eventually(
        lambda: json_of(signoff(dev_stack, "pending", "--json", "--limit", "1000"))["items"],
        lambda items: any(item["run_id"] == run_id for item in items),
        "the refund waiting",
        within=POLL_SECONDS,
    )
    (action,) = [item for item in pending if item["run_id"] == run_id]
    claim = {
        "action_hash": action["action_hash"],
        "verdict": "approve",
        "reviewer_id": "alice",
        "reviewer_roles": ["refund_approver"],
        "tenant_id": "demo",
        "reason": "",
    }
    forged = subprocess.run(
        [
            TEMPORAL,
            "workflow",
            "update",
            "execute",
            "--address",
            dev_stack["SIGNOFF_TEMPORAL_ADDRESS"],
            "--workflow-id",
            run_id,
            "--name",
            "decide",
            "--input",
            json.dumps(claim),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert forged.returncode != 0
    assert "no proof of who made it" in forged.stdout + forged.stderr

    status = json_of(signoff(dev_stack, "status", run_id, "--json"))
    assert status["status"] == "waiting_for_approval" and not status.get("decisions")
    engine = make_engine(
        dev_stack.get("SIGNOFF_DATABASE_URL")
        or f"sqlite:///{Path(dev_stack['SIGNOFF_HOME']) / 'signoff.db'}"
    )
    assert all(row.run_id != run_id for row in list_refunds(engine, "demo", "C-3107"))
    engine.dispose()
    signoff(dev_stack, "cancel", run_id)

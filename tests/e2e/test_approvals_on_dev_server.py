"""A reviewer's whole path from a terminal: `pending`, then `approve` or `reject` with the
hash it showed, then `status` with the decision trail; the ledger is read at the end.

Two runs go side by side, one approved (T-1042: 89.90 on C-1042) and one rejected
(T-2210: 45.00 on C-2210), because every `signoff` process pays seconds of start-up:
each step runs both commands at once. The decisions are made from a CLI host with no
decision key (a SIGNOFF_HOME of its own, empty): `approve` and `reject` send them to
the decision service, the stack's reviewer UI, which alone signs.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client

from activities.store import demo_password, list_refunds, make_engine
from signoff.config.data_converter import data_converter
from tests.e2e.cli import eventually, json_of, signoff, signoff_at_once
from tests.workflow.fakes import replay

pytestmark = pytest.mark.devserver

REJECTION = "The photos show the parcel intact."
# Each poll starts `signoff` processes, seconds each: allow a few polls.
POLL_SECONDS = 60


async def replay_runs(env: dict[str, str], *run_ids: str) -> None:
    """Replay the recorded histories against today's workflow code."""
    client = await Client.connect(env["SIGNOFF_TEMPORAL_ADDRESS"], data_converter=data_converter)
    for run_id in run_ids:
        await replay(client.get_workflow_handle(run_id))


def pending_rows(env: dict[str, str]) -> dict[str, dict[str, Any]]:
    listed = json_of(signoff(env, "pending", "--json", "--limit", "1000"))
    assert listed["next"] is None and listed["total"] == len(listed["items"])
    return {row["run_id"]: row for row in listed["items"]}


def test_approve_and_reject_from_the_terminal(dev_stack: dict[str, str], tmp_path: Path) -> None:
    started = signoff_at_once(
        dev_stack,
        ["run", "--ticket", "T-1042", "--request-id", "e2e-approve", "--json"],
        ["run", "--ticket", "T-2210", "--request-id", "e2e-reject", "--json"],
    )
    approve_run, reject_run = (json_of(result)["run_id"] for result in started)

    rows = eventually(
        lambda: pending_rows(dev_stack),
        lambda rows: {approve_run, reject_run} <= set(rows),
        "listing both runs as pending",
        within=POLL_SECONDS,
    )
    to_approve, to_reject = rows[approve_run], rows[reject_run]
    assert (to_approve["order"], to_approve["amount"], to_approve["currency"]) == (
        "C-1042",
        "89.90",
        "EUR",
    )
    assert (to_approve["mode"], to_approve["required"], to_approve["approvals"]) == (
        "confirm",
        1,
        0,
    )
    assert (to_reject["order"], to_reject["amount"]) == ("C-2210", "45.00")

    cli_host = {
        **dev_stack,
        "SIGNOFF_HOME": str(tmp_path),
        "SIGNOFF_DECISION_SERVICE_URL": f"http://127.0.0.1:{dev_stack['SIGNOFF_UI_PORT']}",
    }
    approved, rejected = signoff_at_once(
        cli_host,
        [
            "approve",
            approve_run,
            "--hash",
            to_approve["action_hash"],
            "--as",
            "alice",
            "--password-stdin",
            "--json",
        ],
        [
            "reject",
            reject_run,
            "--hash",
            to_reject["action_hash"],
            "--as",
            "bob",
            "--reason",
            REJECTION,
            "--category",
            "not_eligible",
            "--password-stdin",
            "--json",
        ],
        inputs=[demo_password("alice") + "\n", demo_password("bob") + "\n"],
    )
    assert approved.returncode == 0, approved.stderr
    assert json_of(approved)["status"] == "approved"
    assert rejected.returncode == 0, rejected.stderr
    assert json_of(rejected)["status"] == "rejected"
    assert list(tmp_path.iterdir()) == []  # the CLI host still holds no key, nor anything

    def statuses() -> list[dict[str, Any]]:
        return [
            json_of(result)
            for result in signoff_at_once(
                dev_stack, ["status", approve_run, "--json"], ["status", reject_run, "--json"]
            )
        ]

    after_approval, after_rejection = eventually(
        statuses,
        lambda both: all(status["status"] == "completed" for status in both),
        "completing both runs",
        within=POLL_SECONDS,
    )
    asyncio.run(replay_runs(dev_stack, approve_run, reject_run))

    store = make_engine(f"sqlite:///{Path(dev_stack['SIGNOFF_HOME']) / 'signoff.db'}")
    try:
        (row,) = list_refunds(store, "demo", "C-1042")
        assert list_refunds(store, "demo", "C-2210") == []
    finally:
        store.dispose()
    assert (row.amount, row.action_hash, row.approver_list, row.run_id) == (
        Decimal("89.90"),
        to_approve["action_hash"],
        ["alice"],
        approve_run,
    )

    outcome = after_approval["outcome"]
    assert row.id in outcome["final_text"]
    assert outcome["effects_performed"] == [f"refund 89.90 EUR on order C-1042 (refund {row.id})"]
    (approval,) = outcome["decisions"]
    assert (approval["kind"], approval["reviewer_id"], approval["action_hash"]) == (
        "approved",
        "alice",
        to_approve["action_hash"],
    )
    assert approval["at"]

    outcome = after_rejection["outcome"]
    assert "no refund was made" in outcome["final_text"]
    assert outcome["effects_performed"] == []
    assert outcome["not_performed"] == [
        f"refund 45.00 EUR on order C-2210: rejected by the reviewer (not eligible): {REJECTION}"
    ]
    (rejection,) = outcome["decisions"]
    assert (
        rejection["kind"],
        rejection["reviewer_id"],
        rejection["action_hash"],
        rejection["reason"],
    ) == ("rejected", "bob", to_reject["action_hash"], REJECTION)
    assert rejection["at"]

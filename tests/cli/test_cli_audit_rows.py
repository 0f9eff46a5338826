"""`signoff audit verify` and `audit list` on the forged row of issue 41: appended at the
head of tenant demo's chain with a valid hash and alice's real signed decision, copied
from her approval of 89.90 EUR on order C-1042, but claiming 310.00 EUR on order C-3107.
Verify names it (exit 1); the list never shows its amount as decided."""

from __future__ import annotations

import json

from sqlalchemy import Engine
from typer.testing import CliRunner

from activities.store.decisions import append_decision
from activities.store.waiting_actions import hold_waiting
from signoff.wiring.app import app
from tests.store.test_audit_row_coverage import CLAIMED, decision_rows, forge_head
from tests.store.test_waiting_actions import an_action
from tests.workflow.approvals import signed
from workflows.actions import ActionHold, Decision, DecisionEvent, DecisionRecord
from workflows.approval_policy import recomputed_hash

RUN = "run-demo-cli-rows"


def alice_approves_c1042(store: Engine) -> None:
    """Alice's approval of the refund of 89.90 EUR on C-1042, recorded while it waited."""
    action = an_action(store, "0" * 64, 8990, "T-1042")
    action = action.model_copy(update={"action_hash": recomputed_hash(action, RUN)})
    hold = ActionHold(run_id=RUN, tenant_id="demo", ticket_id="T-1042", action=action)
    hold_waiting(store, hold, action.requested_at)
    unsigned = Decision(
        action_hash=action.action_hash,
        verdict="approve",
        reviewer_id="alice",
        reviewer_roles=["refund_approver"],
        tenant_id="demo",
    )
    proof = signed(unsigned, RUN)
    assert proof.issued_at is not None
    event = DecisionEvent(
        run_id=RUN,
        tenant_id="demo",
        ticket_id="T-1042",
        sequence=0,
        record=DecisionRecord(
            action_hash=action.action_hash, kind="approved", reviewer_id="alice", at=proof.issued_at
        ),
        approval_number=1,
        approvals_required=2,
        proof=proof,
    )
    append_decision(store, event)


def test_verify_names_the_forged_row_and_list_does_not_show_its_amount(
    audited_store: Engine,
) -> None:
    cli = CliRunner()
    alice_approves_c1042(audited_store)
    intact = cli.invoke(app, ["audit", "verify"])
    assert intact.exit_code == 0, intact.output
    assert "every reviewer decision is signed: 3 checked" in intact.stdout
    # The fixture's two rows were written as before rows kept their action.
    assert "2 of them not covered" in intact.stdout
    assert "tenant demo: 2 row(s), seq 1 to 2" in intact.stdout

    forged = forge_head(audited_store, decision_rows(audited_store)[-1], **CLAIMED)

    caught = cli.invoke(app, ["audit", "verify"])
    assert caught.exit_code == 1
    assert f"(seq {forged}, first_approval by alice" in caught.stderr
    assert (
        "it shows 310.00 EUR on order C-3107; its signed action is 89.90 EUR on order C-1042"
    ) in caught.stderr
    report = json.loads(cli.invoke(app, ["audit", "verify", "--json"]).stdout)
    assert report["chains_intact"] is True and report["intact"] is False
    assert [row["seq"] for row in report["unproven_decisions"]] == [forged]
    assert [row["seq"] for row in report["not_covered"]] == [1, 2]

    listed = cli.invoke(app, ["audit", "list", "--tenant", "demo"])
    assert listed.exit_code == 0
    forged_line, genuine_line = listed.stdout.splitlines()[1:3]
    assert "unproven" in forged_line and "NOT PROVEN: it shows 310.00 EUR" in forged_line
    assert "89.90 EUR" in genuine_line and "NOT PROVEN" not in genuine_line
    items = json.loads(cli.invoke(app, ["audit", "list", "--tenant", "demo", "--json"]).stdout)
    marked = {item["seq"]: item["not_proven"] for item in items["items"]}
    assert marked[forged] is not None and marked[forged - 1] is None

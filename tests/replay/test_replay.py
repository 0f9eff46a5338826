"""Every recorded history still replays against today's workflow code.

A change to workflow code that alters the commands an old run recorded fails here. Until
the first release, record the affected scenarios again
(`make record-histories NAME=...`); from the first release on, keep the change behind
`workflow.patched(...)` instead (docs: development, versioning).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from signoff.config.data_converter import data_converter
from tests.replay.record_histories import ID_SEPARATOR
from workflows.registered import WORKFLOW_TYPES

HISTORIES = sorted((Path(__file__).parent.parent / "histories").glob("*.json"))


# Issue 12: a history for each of these, named by scenario (a prefix of the file name).
SCENARIO_FILES = {
    "answer without tools": "agent_run_answer_without_tools",
    "tool then answer": "agent_run_order_status",
    "order not found": "agent_run_order_not_found",
    "refund approved": "agent_run_refund_approved",
    "rejected": "agent_run_refund_rejected",
    "answered by a reviewer instead of decided (respond)": "agent_run_refund_responded",
    "expired": "agent_run_refund_expired",
    "four eyes": "agent_run_four_eyes",
    "approved with changes (edited amount)": "agent_run_refund_edited",
    "rejected as suspected fraud, run ended": "agent_run_refund_fraud",
    "approval voided because the state changed, then approved": "agent_run_voided_then_approved",
    "policy denial": "agent_run_policy_denial",
    "step budget exhausted": "agent_run_step_budget_exhausted",
    "cancelled while waiting": "agent_run_cancelled_waiting",
    "model error after retries": "agent_run_model_error_after_retries",
    "triage, tracking route": "triage_tracking",
    "triage, refund route": "triage_refund",
    "triage, other route": "triage_other",
    "an obeyed injection": "agent_run_injection",
    "a ledger that never answered": "agent_run_refund_outcome_unknown",
    "a tool other than the refund, confirmed (strict profile: send_reply)": (
        "agent_run_reply_confirmed"
    ),
    "an irreversible tool on auto (built-in profile: send_reply)": "agent_run_reply_auto",
    "a refund made through Stripe (localstripe)": "agent_run_refund_stripe",
    # Approval policies (docs/approvals-policies.md).
    "three approvers, one of them from finance": "agent_run_three_approvers",
    "escalated on expiry, then expired": "agent_run_escalated",
    # A team's own irreversible Python tool (docs/configuration/add-a-tool.md).
    "a Python tool of the team's, approved": "agent_run_python_tool_approved",
    # Standing rules (docs/standing-rules.md).
    "approved by an administrator's standing rule": "agent_run_standing_rule",
    # A question to the customer (docs/ask-the-customer.md): answered, and expired.
    "the customer answers the agent's question": "agent_run_customer_replied",
    "the customer does not answer in time": "agent_run_customer_no_reply",
}


def test_histories_are_there() -> None:
    # An empty folder would make the replay below pass by testing nothing.
    names = [path.name for path in HISTORIES]
    # One history per scenario: a second file of one scenario pins a branch nobody runs.
    prefixes = [name.split(ID_SEPARATOR)[0] for name in names]
    assert len(prefixes) == len(set(prefixes)) == len(SCENARIO_FILES), prefixes
    missing = [
        scenario
        for scenario, prefix in SCENARIO_FILES.items()
        if not any(name.startswith(prefix) for name in names)
    ]
    assert missing == [], f"no recorded history for: {missing}"


@pytest.mark.parametrize(
    "path", HISTORIES, ids=[path.stem.split(ID_SEPARATOR)[0] for path in HISTORIES]
)
async def test_history_replays(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    workflow_id = path.stem.split(ID_SEPARATOR, 1)[1]
    history = WorkflowHistory.from_json(workflow_id, document)
    replayer = Replayer(workflows=list(WORKFLOW_TYPES), data_converter=data_converter)
    result = await replayer.replay_workflow(history)
    assert result.replay_failure is None

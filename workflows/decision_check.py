"""The workflow's side of decision proofs: ask the `verify_decision` activity.

The update validator can only judge what the payload claims (it runs before anything
is written, and it may not do I/O). Whether the claim is true needs the decision key
and the store, so the update handler runs this activity first. Its answer is in the
history: an accepted decision names the reviewer and the roles the store holds, a
refused one says why, and the run records the refused attempt in its decision trail.

This is workflow code: no I/O; the activity does it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from workflows.actions import Decision
    from workflows.contract_base import Contract

VERIFY_DECISION_ACTIVITY = "verify_decision"
VERIFY_TIMEOUT = timedelta(seconds=10)
# A store that does not answer is retried briefly: the reviewer is waiting on the page.
VERIFY_ATTEMPTS = 5


class DecisionCheck(Contract):
    """What `verify_decision` needs: the decision, and what the run knows of itself."""

    run_id: str
    run_tenant_id: str
    run_actor_id: str
    # The update's id: a retried activity finds its own nonce, never a replay.
    update_id: str
    decision: Decision
    now: datetime
    # The roles the action accepts (its policy's approver roles, a role it needs one
    # approval from, a chain's, an escalation's); empty in checks sent before N of M,
    # which accepted `refund_approver` alone.
    approver_roles: list[str] = []


class DecisionProof(Contract):
    """The verifier's answer. `accepted` False carries the reason, for the reviewer."""

    accepted: bool
    message: str = ""
    # The reviewer's roles as the store holds them now, not as the payload claimed.
    reviewer_roles: list[str] = []


async def verify(check: DecisionCheck) -> DecisionProof:
    proof: DecisionProof = await workflow.execute_activity(
        VERIFY_DECISION_ACTIVITY,
        check,
        result_type=DecisionProof,
        start_to_close_timeout=VERIFY_TIMEOUT,
        retry_policy=RetryPolicy(maximum_attempts=VERIFY_ATTEMPTS),
    )
    return proof

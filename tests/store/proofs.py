"""Refund commands that prove themselves, as signoff's own workflow sends them.

The action is built as the gate builds it (its hash computed from its fields), each
approval is signed with the test decision key as a front end signs it, and its nonce is
claimed for the run as the run's `verify_decision` claims it. `as_run` gives the
activity environment the run as its caller.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from sqlalchemy import Engine
from temporalio.testing import ActivityEnvironment

from activities.store.decision_nonces import claim_nonce
from signoff.config.decision_signatures import DecisionSigner
from tests.store.test_waiting_actions import an_action
from tests.workflow.approvals import TEST_SIGNER, signed
from workflows.actions import Decision, PendingAction, RefundCommand, Verdict
from workflows.approval_policy import (
    recomputed_hash,
)
from workflows.refund_commands import refund_command

# The decision service's signer in these tests, and the public keys the ledger holds.
PROOF_SIGNER = TEST_SIGNER
PROOF_KEYS = PROOF_SIGNER.verification_keys()
RUN_ID = "run-demo-proven"


def proven_action(
    engine: Engine, amount_minor: int, *, ticket_id: str = "T-2210", call_id: str = "call-1"
) -> PendingAction:
    """The store tests' waiting action, hashed as the gate hashes it for RUN_ID."""
    action = an_action(engine, "0" * 64, amount_minor, ticket_id).model_copy(
        update={"tool_use_id": call_id}
    )
    return action.model_copy(update={"action_hash": recomputed_hash(action, RUN_ID)})


def signed_approval(
    engine: Engine,
    action: PendingAction,
    reviewer: str,
    *,
    signer: DecisionSigner = PROOF_SIGNER,
    issued_at: datetime | None = None,
) -> Decision:
    """An approval of `action` as a front end signs it, accepted by the run."""
    return signed_decision(
        engine, RUN_ID, action.action_hash, reviewer, "approve", signer=signer, issued_at=issued_at
    )


def signed_decision(
    engine: Engine,
    run_id: str,
    action_hash: str,
    reviewer: str,
    verdict: Verdict,
    *,
    reason: str = "",
    signer: DecisionSigner = PROOF_SIGNER,
    issued_at: datetime | None = None,
) -> Decision:
    """A decision as a front end signs it, accepted by `run_id` (its nonce claimed, as
    the run's `verify_decision` claims it)."""
    unsigned = Decision(
        action_hash=action_hash,
        verdict=verdict,
        reviewer_id=reviewer,
        reviewer_roles=["refund_approver"],
        tenant_id="demo",
        reason=reason,
    )
    proof = signed(unsigned, run_id, signer, issued_at)
    assert proof.nonce is not None and proof.issued_at is not None
    claim_nonce(
        engine,
        nonce=proof.nonce,
        run_id=run_id,
        update_id=f"update-{proof.nonce}",
        reviewer_id=reviewer,
        at=proof.issued_at,
    )
    return proof


def proven_command(
    action: PendingAction, proofs: list[Decision], *, ticket_id: str = "T-2210"
) -> RefundCommand:
    """The command the gate sends for `action` (workflows/refund_commands.py)."""
    return refund_command(action, proofs, run_id=RUN_ID, ticket_id=ticket_id, actor_id="ops")


def as_run(run_id: str = RUN_ID) -> ActivityEnvironment:
    """An activity environment whose caller is the workflow `run_id`."""
    environment = ActivityEnvironment()
    environment.info = dataclasses.replace(environment.info, workflow_id=run_id)
    return environment


def in_its_workflow_task(run_id: str = RUN_ID) -> ActivityEnvironment:
    """`as_run`, called as a local activity of that run's own workflow task."""
    environment = as_run(run_id)
    environment.info = dataclasses.replace(environment.info, is_local=True)
    return environment


async def signoffs_own_run() -> str | None:
    """Temporal's answer to "who called?" for signoff's own run. The store's tests run no
    Temporal; the check itself is tried in tests/workflow/test_refusal_audit.py."""
    return None

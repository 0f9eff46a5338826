"""A batch of decisions as the reviewer UI and the JSON API both send it: for each
selected action, the same checks and the same decision service as the one-action page.

Each action is looked up in its own run, as the signed-in reviewer (another tenant's run
is "not found", and says no more), checked against the reviewer's roles, held back when
its approval needs a passkey, and decided by `signoff.service.decisions.decide`; the run
refuses what it no longer waits for (`signoff/service/batch_decisions.py`).
"""

from __future__ import annotations

from fastapi import HTTPException, Request

from approvals_ui.decision_sending import decide_as
from approvals_ui.lookups import no_role_message, pending_by_hash, run_to_decide
from signoff.service.batch_decisions import (
    NOT_IN_TENANT,
    BatchKey,
    BatchOutcome,
    decide_alone,
    decide_each,
    failed,
    outcome_of_result,
)
from signoff.service.decisions import Choice
from signoff.service.reviewer_access import SignedInReviewer
from workflows.actions import Verdict


async def decide_batch(
    request: Request,
    reviewer: SignedInReviewer,
    keys: list[BatchKey],
    verdict: Verdict,
    reason: str,
    category: str | None,
) -> list[BatchOutcome]:
    """One outcome per key, in order; the batch was checked before (checked_keys,
    checked_choice)."""
    state_of_app = request.app.state

    async def one(key: BatchKey) -> BatchOutcome:
        try:
            client, state = await run_to_decide(request, key.run_id, reviewer)
        except HTTPException:  # not found, or another tenant's: the same words
            return failed(key, NOT_IN_TENANT)
        action = pending_by_hash(state, key.action_hash)
        if not reviewer.may_decide(action):
            return failed(key, f"{no_role_message(action)} Nothing was decided.")
        if action is not None and state_of_app.passkey_policy.needs_passkey(action, verdict):
            return decide_alone(key)
        # A batch carries no passkey: an approval that needs one was decided alone (above).
        result = await decide_as(
            request,
            client,
            reviewer,
            key.run_id,
            key.action_hash,
            verdict,
            reason,
            Choice(category=category, action=action),
        )
        return outcome_of_result(key, result)

    return await decide_each(keys, one)

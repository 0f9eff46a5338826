"""A decision made away from the decision page (a Slack button, an e-mail link), taken
through the same steps as the page: the run of the reviewer's tenant (else "no such
run"), the action's approver role, the passkey step-up, then the decision service.

Design note. These faces carry no passkey ceremony, so a decision the policy says needs
a passkey is refused here with the step-up's own words ("decide it in the reviewer
UI"), never signed without one. Every refusal is an `Outcome` in plain words: Slack
shows it to the presser, the e-mail page shows it to the reviewer.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import HTTPException, Request

from approvals_ui.decision_sending import decide_as
from approvals_ui.lookups import no_role_message, pending_by_hash, run_to_decide
from signoff.service.decisions import (
    Choice,
    DecisionNotAccepted,
    DecisionUnavailable,
    InvalidDecision,
)
from signoff.service.passkey_step_up import PasskeyRefused, PasskeyRequired
from signoff.service.reviewer_access import SignedInReviewer
from workflows.actions import Verdict
from workflows.wording import Wording


@dataclass(frozen=True)
class Outcome:
    decided: bool
    message: str
    # Under four eyes, a first approval leaves the request waiting for a second reviewer.
    still_waiting: bool = False
    # The run's DecisionResult.status when it took the decision (a page says it in words).
    status: str | None = None
    # A refusal's wording, where the run sent one: a page writes it in its language.
    wording: Wording | None = None

    def told(self) -> str | Wording:
        return self.wording or self.message


async def decide_away(
    request: Request,
    reviewer: SignedInReviewer,
    run_id: str,
    action_hash: str,
    verdict: Verdict,
    reason: str,
    category: str | None = None,
) -> Outcome:
    try:
        client, state = await run_to_decide(request, run_id, reviewer)
    except HTTPException as error:  # 404: no such run in the reviewer's tenant
        return Outcome(False, f"{error.detail} Nothing was decided.")
    except DecisionUnavailable as error:
        return Outcome(False, error.message)
    action = pending_by_hash(state, action_hash)
    if not reviewer.may_decide(action):
        return Outcome(False, f"{no_role_message(action)} Nothing was decided.")
    try:
        result = await decide_as(
            request,
            client,
            reviewer,
            run_id,
            action_hash,
            verdict,
            reason,
            Choice(category=category, action=action),
        )
    except (PasskeyRequired, PasskeyRefused) as step_up:
        return Outcome(False, step_up.message)
    except InvalidDecision as invalid:
        return Outcome(False, f"{invalid} Nothing was decided.")
    except DecisionNotAccepted as refused:
        return Outcome(False, refused.message, wording=refused.wording)
    except DecisionUnavailable as error:
        return Outcome(False, error.message)
    return Outcome(
        True,
        result.message,
        still_waiting=result.status == "approval_recorded",
        status=result.status,
    )

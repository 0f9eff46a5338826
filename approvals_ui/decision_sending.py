"""The one way the reviewer UI sends a decision, for every route that decides (the
decision page, the JSON API, the batch page, a Slack button, an e-mail link): signed by
this process's decision key as the signed-in reviewer (as the store reads them), under
the passkey step-up the policy asks of the action, with a refusal the run keeps no trace
of written to this process's store. Each route keeps its own answers to what it raises
(`signoff.service.decisions.decide`)."""

from __future__ import annotations

from fastapi import Request

from approvals_ui.lookups import decider_of
from signoff.service.decisions import Choice, decide
from signoff.service.passkey_step_up import PasskeyAnswer, step_up_for
from signoff.service.reviewer_access import SignedInReviewer
from signoff.service.run_control import Runs
from workflows.actions import DecisionResult, Verdict


async def decide_as(
    request: Request,
    client: Runs,
    reviewer: SignedInReviewer,
    run_id: str,
    action_hash: str,
    verdict: Verdict,
    reason: str,
    choice: Choice,
    passkey: PasskeyAnswer | None = None,
) -> DecisionResult:
    """`choice.action` is the pending action the run holds under `action_hash` (None: the
    run refuses the decision); `passkey`, the page's answer to the step-up, if any."""
    app = request.app.state
    return await decide(
        client,
        app.decision_signer,
        run_id,
        decider_of(reviewer),
        action_hash,
        verdict,
        reason,
        choice=choice,
        step_up=step_up_for(
            app.passkey_policy, app.settings, app.engine, choice.action, verdict, passkey
        ),
        store=app.engine,
    )

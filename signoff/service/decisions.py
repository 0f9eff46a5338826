"""Deciding on a pending action: the one function behind the web page, the API and the CLI.

The caller has authenticated the reviewer (a session, an auth proxy, an API token, or
the reviewer's password on the command line) and read who they are from the store.
This module signs what that reviewer decided with the decision service's private key
(only the process that authenticated the reviewer holds one), sends the `decide`
update, and turns every answer into one of three typed outcomes: a `DecisionResult`,
`DecisionNotAccepted` (the run's refusal, in its own words), or `DecisionUnavailable`
(Temporal or the run's worker did not answer). Each face maps them the same way: 409
or exit 1 with the refusal, 503 or exit 1 with UNAVAILABLE.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pydantic import ValidationError
from temporalio.client import Client, WorkflowUpdateRPCTimeoutOrCancelledError
from temporalio.service import RPCError

from signoff.config.decision_signatures import DecisionSigner
from signoff.service.passkey_step_up import NO_STEP_UP, StepUp
from signoff.service.pending import DECIDE_RPC_TIMEOUT, DecisionNotAccepted, send_decision
from workflows.actions import Decision, DecisionResult, Verdict
from workflows.decision_proof import NONCE_BYTES

UNAVAILABLE = (
    "The run did not answer: Temporal or its worker cannot be reached. Nothing was "
    "decided. Start them (`make demo`, or `signoff worker`) and try again."
)
UNCONFIRMED = (
    "The run did not confirm the decision in time: it may still be applied. Look at the "
    "request again (the inbox, or `signoff pending`) before you decide again."
)
INVALID_HASH = "That is not a valid action hash: copy the full 64-character hash shown."


@dataclass(frozen=True)
class Decider:
    """An authenticated reviewer, as the store holds them."""

    reviewer_id: str
    tenant_id: str
    roles: tuple[str, ...]


class InvalidDecision(Exception):
    """The decision cannot even be formed (e.g. a malformed hash); nothing was sent."""


class DecisionUnavailable(Exception):
    """Temporal or the run's worker did not answer: nothing was decided (UNAVAILABLE),
    or the decision was sent but not confirmed in time (UNCONFIRMED)."""

    def __init__(self, message: str = UNAVAILABLE) -> None:
        super().__init__(message)
        self.message = message


def draft_decision(
    signer: DecisionSigner,
    run_id: str,
    decider: Decider,
    action_hash: str,
    verdict: Verdict,
    reason: str,
    now: datetime | None = None,
    nonce: str | None = None,
) -> Decision:
    """The decision before its signature: what a passkey's challenge is derived from."""
    try:
        return Decision(
            action_hash=action_hash.strip().lower(),
            verdict=verdict,
            reviewer_id=decider.reviewer_id,
            reviewer_roles=list(decider.roles),
            tenant_id=decider.tenant_id,
            reason=reason.strip(),
            issued_at=now or datetime.now(UTC),
            nonce=nonce or secrets.token_hex(NONCE_BYTES),
            key_id=signer.key_id,
        )
    except ValidationError:
        raise InvalidDecision(INVALID_HASH) from None


def signed_decision(
    signer: DecisionSigner,
    run_id: str,
    decider: Decider,
    action_hash: str,
    verdict: Verdict,
    reason: str,
    now: datetime | None = None,
    step_up: StepUp = NO_STEP_UP,
) -> Decision:
    """The decision, with the proof that a front end authenticated `decider` (and, where
    the step-up asks, the reviewer's passkey over it: PasskeyRequired, PasskeyRefused)."""
    answer = step_up.answer
    issued_at = answer.issued_at if answer is not None else now
    nonce = answer.nonce if answer is not None else None
    draft = draft_decision(signer, run_id, decider, action_hash, verdict, reason, issued_at, nonce)
    unsigned = step_up.applied(run_id, draft, now or datetime.now(UTC))
    signature = signer.sign(unsigned.signed_document(run_id))
    return unsigned.model_copy(update={"signature": signature})


async def decide(
    client: Client,
    signer: DecisionSigner,
    run_id: str,
    decider: Decider,
    action_hash: str,
    verdict: Verdict,
    reason: str,
    rpc_timeout: timedelta = DECIDE_RPC_TIMEOUT,
    step_up: StepUp = NO_STEP_UP,
) -> DecisionResult:
    """Sign and send; raises InvalidDecision, PasskeyRequired, PasskeyRefused,
    DecisionNotAccepted or DecisionUnavailable."""
    decision = signed_decision(
        signer, run_id, decider, action_hash, verdict, reason, step_up=step_up
    )
    try:
        return await send_decision(client, run_id, decision, rpc_timeout)
    except WorkflowUpdateRPCTimeoutOrCancelledError:
        # The update reached Temporal, and the run may yet take it: not "nothing".
        raise DecisionUnavailable(UNCONFIRMED) from None
    except RPCError:
        raise DecisionUnavailable() from None
    except RuntimeError:  # the client's connection failed before any RPC
        raise DecisionUnavailable() from None


__all__ = [
    "Decider",
    "DecisionNotAccepted",
    "DecisionUnavailable",
    "InvalidDecision",
    "decide",
    "draft_decision",
    "signed_decision",
]

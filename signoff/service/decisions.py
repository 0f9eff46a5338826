"""Deciding on a pending action: the one function behind the web page, the API and the CLI.

The caller has authenticated the reviewer (a session, an auth proxy, an API token, or
the reviewer's password on the command line) and read who they are from the store.
This module signs what that reviewer decided with the decision service's private key
(only the process that authenticated the reviewer holds one), sends the `decide`
update, and turns every answer into one of three typed outcomes: a `DecisionResult`,
`DecisionNotAccepted` (the run's refusal, in its own words), or `DecisionUnavailable`
(Temporal or the run's worker did not answer). Each face maps them the same way: 409
or exit 1 with the refusal, 503 or exit 1 with UNAVAILABLE. A refusal the run kept no
trace of is written to the audit here (`decision_refusals.py`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pydantic import ValidationError
from temporalio.client import WorkflowUpdateRPCTimeoutOrCancelledError
from temporalio.service import RPCError

from signoff.config.decision_signatures import DecisionSigner
from signoff.service.decision_limits import INVALID_HASH
from signoff.service.decision_refusals import record_sent_refusal
from signoff.service.handles import Runs
from signoff.service.passkey_step_up import NO_STEP_UP, StepUp
from signoff.service.pending import DECIDE_RPC_TIMEOUT, DecisionNotAccepted, send_decision
from signoff.service.store import Store
from workflows.action_edits import edited_action
from workflows.actions import Decision, DecisionResult, PendingAction, RejectCategory, Verdict
from workflows.approval_policy import DecisionRefused
from workflows.decision_proof import NONCE_BYTES
from workflows.outside_text import nul_problem
from workflows.reject_reasons import CATEGORIES, category_problem
from workflows.wording import N_, WordedError

# Marked N_ for the reviewer UI's catalog, which shows them in the page's language.
UNAVAILABLE = N_(
    "The run did not answer: Temporal or its worker cannot be reached. Nothing was "
    "decided. Start them (`make demo`, or `signoff worker`) and try again."
)
UNCONFIRMED = N_(
    "The run did not confirm the decision in time: it may still be applied. Look at the "
    "request again (the inbox, or `signoff pending`) before you decide again."
)
NEEDS_CATEGORY = (
    "Choose a category to reject: " + ", ".join(CATEGORIES) + ". The agent is told it, with "
    "your reason."
)
EDIT_NEEDS_REASON = N_("Say why you changed it: the agent is told your reason.")
EDIT_IS_APPROVAL = N_("Only an approval carries edits; to refuse the action, reject it as it is.")
CATEGORY_IS_REJECTION = N_("A category goes with a rejection, not with an approval.")
RESPONSE_NEEDS_WORDS = N_("Write what the agent should do: a response is its words.")
NO_SUCH_ACTION = N_("No pending action has this hash in this run; reload it.")


@dataclass(frozen=True)
class Decider:
    """An authenticated reviewer, as the store holds them."""

    reviewer_id: str
    tenant_id: str
    roles: tuple[str, ...]


class InvalidDecision(WordedError):
    """The decision cannot even be formed (a malformed hash, a rejection without a
    category, an edit its policy does not allow); nothing was sent. The message says
    what was wrong, in English; its `wording`, where it has one, lets a face write it
    in its reader's language."""


class InvalidHash(InvalidDecision):
    """The hash given is not an action hash at all (INVALID_HASH)."""


@dataclass(frozen=True)
class Choice:
    """What the reviewer chose beyond the verdict: a rejection's category, or an
    approval's edits of `action` (the pending action as the run showed it)."""

    category: str | None = None
    edits: dict[str, str] | None = None
    action: PendingAction | None = None


def checked_category(verdict: Verdict, category: str | None) -> RejectCategory | None:
    if verdict != "reject":  # an approval or a response carries none
        if category:
            raise InvalidDecision(CATEGORY_IS_REJECTION)
        return None
    if not category:
        raise InvalidDecision(NEEDS_CATEGORY)
    problem = category_problem(category)
    if problem is not None:
        raise InvalidDecision(problem)
    return category  # type: ignore[return-value]  # one of CATEGORIES, checked above


def edited_hash(
    run_id: str, decider: Decider, verdict: Verdict, reason: str, choice: Choice
) -> str | None:
    """The hash of the edited action the decision approves; None without edits (an
    empty set of edits is refused: it must never pass as an approval of the original)."""
    if choice.edits is None:
        return None
    if verdict != "approve":
        raise InvalidDecision(EDIT_IS_APPROVAL)
    if not reason.strip():
        raise InvalidDecision(EDIT_NEEDS_REASON)
    if choice.action is None:
        raise InvalidDecision(NO_SUCH_ACTION)
    try:
        edited = edited_action(
            choice.action, choice.edits, editor=decider.reviewer_id, run_id=run_id
        )
    except DecisionRefused as refused:
        raise InvalidDecision(refused.wording or str(refused)) from None
    return edited.action_hash


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
    choice: Choice | None = None,
) -> Decision:
    """The decision before its signature: what a passkey's challenge is derived from.
    With edits it approves the edited action: over its hash, naming the original."""
    choice = choice or Choice()
    unstorable = nul_problem("reason", reason)
    if unstorable is not None:  # every face's reason comes here: the UI, the API, the CLI
        raise InvalidDecision(unstorable)
    category = checked_category(verdict, choice.category)
    if verdict == "respond" and not reason.strip():
        raise InvalidDecision(RESPONSE_NEEDS_WORDS)
    edited = edited_hash(run_id, decider, verdict, reason, choice)
    original = action_hash.strip().lower()
    try:
        return Decision(
            action_hash=edited or original,
            original_hash=original if edited else None,
            edits=dict(choice.edits) if edited and choice.edits is not None else None,
            category=category,
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
        raise InvalidHash(INVALID_HASH) from None


def signed_decision(
    signer: DecisionSigner,
    run_id: str,
    decider: Decider,
    action_hash: str,
    verdict: Verdict,
    reason: str,
    now: datetime | None = None,
    choice: Choice | None = None,
    step_up: StepUp = NO_STEP_UP,
) -> Decision:
    """The decision, with the proof that a front end authenticated `decider` (and, where
    the step-up asks, the reviewer's passkey over it: PasskeyRequired, PasskeyRefused).
    With edits it approves the edited action (`draft_decision`)."""
    answer = step_up.answer
    issued_at = answer.issued_at if answer is not None else now
    nonce = answer.nonce if answer is not None else None
    draft = draft_decision(
        signer, run_id, decider, action_hash, verdict, reason, issued_at, nonce, choice
    )
    unsigned = step_up.applied(run_id, draft, now or datetime.now(UTC))
    signature = signer.sign(unsigned.signed_document(run_id))
    return unsigned.model_copy(update={"signature": signature})


async def decide(
    runs: Runs,
    signer: DecisionSigner,
    run_id: str,
    decider: Decider,
    action_hash: str,
    verdict: Verdict,
    reason: str,
    rpc_timeout: timedelta = DECIDE_RPC_TIMEOUT,
    choice: Choice | None = None,
    step_up: StepUp = NO_STEP_UP,
    *,
    store: Store,
) -> DecisionResult:
    """Sign and send; raises InvalidDecision, PasskeyRequired, PasskeyRefused,
    DecisionNotAccepted or DecisionUnavailable. A refusal that leaves no trace in the
    run is written to the audit of `store` (`decision_refusals.py`)."""
    decision = signed_decision(
        signer, run_id, decider, action_hash, verdict, reason, choice=choice, step_up=step_up
    )
    try:
        return await send_decision(runs, run_id, decision, rpc_timeout)
    except DecisionNotAccepted as refused:
        await record_sent_refusal(store, run_id, decision, refused)
        raise
    except WorkflowUpdateRPCTimeoutOrCancelledError:
        # The update reached Temporal, and the run may yet take it: not "nothing".
        raise DecisionUnavailable(UNCONFIRMED) from None
    except RPCError:
        raise DecisionUnavailable() from None
    except RuntimeError:  # the client's connection failed before any RPC
        raise DecisionUnavailable() from None


__all__ = [
    "Choice",
    "Decider",
    "DecisionNotAccepted",
    "DecisionUnavailable",
    "InvalidDecision",
    "InvalidHash",
    "decide",
    "draft_decision",
    "signed_decision",
]

"""The versioned approval policy: which mode a call gets, how actions are hashed, and
which decisions are admissible. Pure functions: the workflow and the activities share
them, so the hash the reviewer saw is the hash the refund activity re-checks.
"""

from __future__ import annotations

import hashlib
import unicodedata
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import rfc8785

from workflows.actions import (
    ActionState,
    ApprovalMode,
    Decision,
    PendingAction,
)
from workflows.wording import CENTS as CENTS  # re-exported: the amount of a hundredth
from workflows.wording import N_, AnyOf, Money, WordedError, Wording, worded

# Four eyes on the order's cumulative exposure (refunded + pending + this call).
APPROVAL_POLICY_VERSION = "approvals-2026-11-30"
DEFAULT_APPROVAL_TTL = timedelta(hours=24)


class DecisionRefused(WordedError):
    """A decision the gate will not take; the message is for the reviewer (raised with a
    `Wording`, the reviewer UI writes it in the page's language)."""


def canonical_hash(document: Any) -> str:
    return hashlib.sha256(rfc8785.dumps(document)).hexdigest()


def state_hash(state: ActionState) -> str:
    return canonical_hash(state.model_dump(mode="json"))


def money(minor: int) -> str:
    return str(Money(minor))


def to_minor(amount: Decimal) -> int:
    return int((amount * 100).to_integral_value())


def action_amount_minor(action: PendingAction) -> int:
    """The refund an action asks for, in minor units (its `amount` argument is text)."""
    return to_minor(Decimal(action.arguments["amount"]))


def refund_mode(
    amount_minor: int, state: ActionState, pending_minor: int | None = None
) -> tuple[ApprovalMode, str]:
    """Return the mode of a refund and, for `deny`, why. Rules are on totals.

    Four eyes is judged on the order's exposure: what is refunded already, what other
    refunds still pending on it would add (`pending_minor`), and this amount. Split into
    calls, turns or runs, a sum above the threshold still needs two reviewers. Without
    `pending_minor` (runs recorded before that rule) each call is judged alone.
    """
    if state.order_id is None or state.currency is None:
        return "deny", "this ticket is linked to no order, so there is nothing to refund"
    if amount_minor <= 0:
        return "deny", "the amount must be greater than zero"
    if amount_minor > state.refundable_minor:
        return "deny", (
            f"{money(amount_minor)} {state.currency} is more than what remains refundable on "
            f"order {state.order_id} ({money(state.refundable_minor)} {state.currency} of "
            f"{money(state.paid_minor)} paid)"
        )
    exposure = amount_minor
    if pending_minor is not None:
        exposure += state.refunded_minor + pending_minor
    if exposure > state.review_threshold_minor:
        return "review", ""
    return "confirm", ""


def action_hash(
    *,
    tool: str,
    arguments: dict[str, str],
    targets: dict[str, str],
    reason: str,
    policy_version: str,
    state_digest: str,
    run_id: str,
    call_id: str,
    exposure: dict[str, Any] | None = None,
    category_argument: str | None = None,
) -> str:
    """Two identical proposals are still two actions: the run and the call are hashed too.
    An action's exposure (`workflows/exposure.py`) is hashed where it has one, so what a
    reviewer saw at stake is what the decision names; so is the argument its policy
    names as its category, where it names one."""
    document: dict[str, Any] = {
        "run_id": run_id,
        "call_id": call_id,
        "tool": tool,
        "arguments": arguments,
        "targets": targets,
        "reason": reason,
        "policy_version": policy_version,
        "state_hash": state_digest,
    }
    if exposure is not None:
        document["exposure"] = exposure
    if category_argument is not None:
        document["category_argument"] = category_argument
    return canonical_hash(document)


def call_id_of(tool_use_id: str, supersedes: str | None) -> str:
    """The call an action hashes: the model's call, and the action it replaces if any."""
    return tool_use_id if supersedes is None else f"{tool_use_id}/{supersedes}"


def effect_key(run_id: str, tool: str, digest: str) -> str:
    """An effect's idempotency key: from the run and the logical action, never from the
    attempt. The effect computes it again and refuses a command that names another."""
    return f"{run_id}:{tool}:{digest}"


def recomputed_hash(action: PendingAction, run_id: str) -> str:
    """The hash `action` must carry, computed again from its own fields: an effect that
    receives an action checks it before it trusts any of them."""
    return action_hash(
        tool=action.tool,
        arguments=action.arguments,
        targets=action.targets,
        reason=action.reason,
        policy_version=action.policy_version,
        state_digest=state_hash(action.state),
        run_id=run_id,
        call_id=call_id_of(action.tool_use_id, action.supersedes),
        exposure=None if action.exposure is None else action.exposure.model_dump(mode="json"),
        category_argument=action.category_argument,
    )


def check_decision(
    pending: PendingAction,
    decision: Decision,
    *,
    run_tenant: str,
    run_actor: str,
    now: datetime,
) -> None:
    """Raise DecisionRefused, in words a reviewer understands, for an inadmissible decision."""
    if decision.tenant_id != run_tenant:
        raise DecisionRefused(
            N_("This request belongs to another tenant; you cannot decide on it.")
        )
    roles = pending.approver_roles
    if not set(roles) & set(decision.reviewer_roles):
        raise DecisionRefused(
            worded(
                N_("Reviewer '%(reviewer)s' does not have the %(roles)s role."),
                reviewer=decision.reviewer_id,
                roles=AnyOf(tuple(roles)),
            )
            if roles
            else worded(
                N_("Reviewer '%(reviewer)s' does not have an approver role."),
                reviewer=decision.reviewer_id,
            )
        )
    if same_person(decision.reviewer_id, run_actor):
        raise DecisionRefused(
            N_("You asked for this run yourself; another reviewer must decide on it.")
        )
    if now >= pending.expires_at:
        raise DecisionRefused(expired_words(pending.expires_at, now))
    if decision.verdict == "reject" and not decision.reason.strip():
        raise DecisionRefused(N_("A reason is required to reject."))
    if decision.verdict == "respond" and not decision.reason.strip():
        raise DecisionRefused(N_("Write what the agent should do: a response is its words."))

    if any(
        approval.reviewer_id is not None and same_person(approval.reviewer_id, decision.reviewer_id)
        for approval in pending.approvals
    ):
        raise DecisionRefused(
            N_("You already approved this request; it needs a second, different reviewer.")
            if pending.required_approvals <= 2
            else N_("You already approved this request; it needs another, different reviewer.")
        )


def person_key(name: str) -> str:
    """One key per person: `Alice`, `alice` and a full-width `ａｌｉｃｅ` are one reviewer."""
    return unicodedata.normalize("NFKC", name).casefold()


def same_person(first: str, second: str) -> bool:
    return person_key(first) == person_key(second)


def exposure_note(amount_minor: int, state: ActionState, pending_minor: int) -> str:
    """Why a call at or under the threshold still needs two reviewers; "" if it does not."""
    total = state.refunded_minor + pending_minor + amount_minor
    if not amount_minor <= state.review_threshold_minor < total:
        return ""
    return (
        f"Four eyes: with {money(state.refunded_minor)} refunded and {money(pending_minor)} "
        f"pending on order {state.order_id}, this {money(amount_minor)} brings its refunds "
        f"to {money(total)} {state.currency}, "
        f"above the threshold of {money(state.review_threshold_minor)}."
    )


def with_exposure(action: PendingAction, amount_minor: int, pending_minor: int) -> PendingAction:
    """The action judged on its order's exposure: its mode, approvals and note.

    Pure, so that the workflow (`gate_actions.py`) and the store's inbox row written in
    the hold's transaction (`activities/store/waiting_actions.py`) judge it alike.
    """
    mode, _ = refund_mode(amount_minor, action.state, pending_minor)
    why = exposure_note(amount_minor, action.state, pending_minor)
    required = 2 if mode == "review" else 1
    if action.mode == "review":  # its policy's review already asks for as many or more
        mode, required = "review", max(required, action.required_approvals)
    return action.model_copy(
        update={
            "mode": "review" if mode == "review" else "confirm",
            "required_approvals": required,
            "pending_minor": pending_minor,
            "note": " ".join(filter(None, (action.note, why))),
        }
    )


def second_reviewer_message(action: PendingAction) -> str:
    threshold = money(action.state.review_threshold_minor)
    if action_amount_minor(action) > action.state.review_threshold_minor:
        return f"Amounts above {threshold} need a second reviewer; your approval is recorded."
    return (
        f"Refunds on order {action.targets['order_id']} would come to more than {threshold} "
        "in total; they need a second reviewer, and your approval is recorded."
    )


def expired_message(expires_at: datetime, now: datetime) -> str:
    """`Expired 3 minutes ago; ...`: what a reviewer reads who decides too late."""
    return expired_words(expires_at, now).english()


def expired_words(expires_at: datetime, now: datetime) -> Wording:
    """`expired_message` as a template and its values, for a page in another language."""
    minutes = int((now - expires_at).total_seconds() // 60)
    hours = minutes // 60
    if hours >= 2:
        return worded(N_("Expired %(hours)s hours ago; it did not happen."), hours=hours)
    if minutes >= 2:
        return worded(N_("Expired %(minutes)s minutes ago; it did not happen."), minutes=minutes)
    if minutes == 1:
        return worded(N_("Expired 1 minute ago; it did not happen."))
    return worded(N_("Expired moments ago; it did not happen."))

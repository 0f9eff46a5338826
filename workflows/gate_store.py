"""The approval gate's calls to the store: read the state, hold and release an action's
place in its order's exposure, execute the refund.

Design note, four eyes on exposure. A `review` cannot be split into `confirm`s: the mode
is judged on what is refunded, plus every other refund still pending on the order (of
this run and of other runs), plus the call. The pending part lives in the store
(`pending_refunds`): `hold` writes the action's row and sums the others' in one write
transaction that serializes per order, so of two runs asking at once the second sees
the first. Holds leave when the action is decided, voided (the new action's hold
replaces it), denied, executed (in the refund's own transaction) or when the run ends
while it waits; a run that dies leaves its row, which stops counting at its
`expires_at`. The pending sum is not part of
the state hash: others' holds come and go without changing what this refund does to the
order, and counting them there would void approvals whenever anyone else asked. The
refunded total is in the hash, so an approval judged before another refund landed is
void and judged again with it. At execution the ledger re-checks the mode on committed
facts only (refunded + amount, `activities/store/approvers.py`): counting holds there
too would void a confirmed refund whenever a later request arrived, and that later
request, having counted this one, already needs two reviewers.

This is workflow code: activities by name, explicit timeouts, bounded retries.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows.actions import (
        EXECUTE_REFUND_ACTIVITY,
        HOLD_PENDING_REFUND_ACTIVITY,
        READ_ACTION_STATE_ACTIVITY,
        RELEASE_PENDING_REFUND_ACTIVITY,
        ActionHold,
        ActionState,
        ActionStateRequest,
        Decision,
        DecisionEvent,
        PendingAction,
        PendingRefundHeld,
        PendingRefundRelease,
        RefundResult,
    )
    from workflows.approval_policy import effect_key
    from workflows.cancellation import reraise_cancellation
    from workflows.connector_waits import PAYMENTS_SWITCHED_OFF, ConnectorWait
    from workflows.contracts import RunRequest
    from workflows.local_calls import local_call
    from workflows.refund_commands import refund_command
    from workflows.tool_catalog import ToolCallRejected
    from workflows.tool_policy import ToolPolicy, call_timeout

STORE_CALL_TIMEOUT = timedelta(seconds=30)
# The store's part of a refund: one short transaction on the ledger, three through a
# payment platform. A worker that dies mid-refund (after the commit, say) is noticed only
# when the attempt's time runs out; the retry is safe, it finds the refund by its key.
REFUND_CALL_TIMEOUT = timedelta(seconds=10)
STORE_CALL_ATTEMPTS = 10
# The hold is a local activity: an attempt holds the workflow task, so it is kept short.
HOLD_CALL_TIMEOUT = timedelta(seconds=10)
# Few: a run that ends at its deadline waits for its releases, and a hold left behind
# stops counting at its expiry anyway.
RELEASE_ATTEMPTS = 3
# A refund the store refused for a reason that will not change on retry: the store
# raises these non-retryable, having written nothing.
REFUND_FATAL_ERROR_TYPES = ("UnknownTenant", "UnknownOrder", "StoreError")
# The error type of a payment platform's "not now" (activities/refunds.payment_failure):
# nothing was done, and the connector's name is its first detail.
PLATFORM_NOT_NOW = "PaymentUnavailable"
# The store's errors that retrying cannot fix say so themselves (workflows/policy.py).
STORE_RETRIES = RetryPolicy(maximum_attempts=STORE_CALL_ATTEMPTS)


async def read_state(request: RunRequest) -> ActionState:
    """The state a refund is judged on; ToolCallRejected, saying why, while the tenant's
    payment platform is switched off (nothing is proposed to a reviewer then)."""
    try:
        state: ActionState = await workflow.execute_activity(
            READ_ACTION_STATE_ACTIVITY,
            ActionStateRequest(tenant_id=request.tenant_id, ticket_id=request.ticket_id),
            result_type=ActionState,
            start_to_close_timeout=STORE_CALL_TIMEOUT,
            retry_policy=STORE_RETRIES,
        )
    except ActivityError as error:
        cause = error.cause
        if isinstance(cause, ApplicationError) and cause.type == PAYMENTS_SWITCHED_OFF:
            raise ToolCallRejected(cause.message) from None
        raise
    return state


async def hold(
    action: PendingAction, request: RunRequest, match_rules: bool = False
) -> PendingRefundHeld:
    """Hold the action's place in its order's exposure; return the others' pending sum,
    and the standing rules' answer when `match_rules` (activities/hold_rules.py).

    A store that does not answer fails the call (the gate is inside the tool call, which
    turns it into an error result); judging without the sum could split four eyes.

    A local activity: one short transaction that the run needs before it can say what the
    action waits for, so a round trip through the server would only add latency. Its
    retries run in the worker while it holds the workflow task (a backoff longer than
    the SDK's local retry threshold becomes a timer in the history); a worker that dies
    before the marker is written leaves the next worker to run it again. Both are safe:
    the hold is written per action hash (held again, it only moves its expiry), and the
    pending sum is read afresh in the same transaction.
    """
    # The action alone: its order, hash, amount and expiry are in it.
    held: PendingRefundHeld = await local_call(
        HOLD_PENDING_REFUND_ACTIVITY,
        ActionHold(
            run_id=workflow.info().workflow_id,
            tenant_id=request.tenant_id,
            ticket_id=request.ticket_id,
            action=action,
            match_rules=match_rules,
        ),
        result_type=PendingRefundHeld,
        timeout=HOLD_CALL_TIMEOUT,
        retry_policy=STORE_RETRIES,
    )
    return held


async def release(action_hash: str) -> None:
    """Take the action out of its order's exposure. Best effort: a hold the store keeps
    still stops counting at its expiry, and the run's answer must not wait on it."""
    try:
        await workflow.execute_activity(
            RELEASE_PENDING_REFUND_ACTIVITY,
            PendingRefundRelease(run_id=workflow.info().workflow_id, action_hash=action_hash),
            start_to_close_timeout=STORE_CALL_TIMEOUT,
            retry_policy=RetryPolicy(maximum_attempts=RELEASE_ATTEMPTS),
        )
    except ActivityError as error:
        reraise_cancellation(error)


async def execute(
    action: PendingAction,
    request: RunRequest,
    proofs: list[Decision],
    trail: list[DecisionEvent] | None = None,
    policy: ToolPolicy | None = None,
) -> RefundResult | None:
    """The ledger's answer; None when it never gave one (the outcome is unknown). The
    command carries the action and its signed approvals: the ledger verifies them; and
    the run's records not yet in the audit (`trail`), which it writes beside the refund.
    The refund's `policy` may give its attempts longer than the platform needs."""
    command = refund_command(
        action,
        proofs,
        run_id=workflow.info().workflow_id,
        ticket_id=request.ticket_id,
        actor_id=request.actor_id,
        trail=trail,
    )
    try:
        result: RefundResult = await workflow.execute_activity(
            EXECUTE_REFUND_ACTIVITY,
            command,
            result_type=RefundResult,
            start_to_close_timeout=refund_time_limit(request, policy),
            retry_policy=STORE_RETRIES,
        )
    except ActivityError as error:
        reraise_cancellation(error)
        waiting = platform_not_now(error)
        if waiting is not None:
            return waiting
        refusal = store_refusal(error)
        if refusal is None:
            return None  # every attempt failed, perhaps after its commit
        # The store answered with an error that rolled the transaction back.
        return RefundResult(status="refused", message=f"the store refused it: {refusal}")
    return result


def refund_time_limit(request: RunRequest, policy: ToolPolicy | None) -> timedelta:
    """How long one refund attempt may run: the store's part, and the tenant's payment
    platform's calls, each for as long as its connector waits for one (the worker says
    how long: run_limits.py). An attempt timed out while its call still runs would be
    retried beside it, and a platform that honours no idempotency key would refund
    twice; so the tool's `call_timeout` may give it longer, never less."""
    needed = REFUND_CALL_TIMEOUT + timedelta(seconds=request.payment_call_seconds)
    return max(call_timeout(policy, needed), needed)


def refund_key(action: PendingAction) -> str:
    """From the run and the logical action, never from the attempt number."""
    return effect_key(workflow.info().workflow_id, action.tool, action.action_hash)


def platform_not_now(error: ActivityError) -> RefundResult | None:
    """Every attempt found the payment platform saying "not now" before it did anything
    (a 5xx, a rate limit): the run waits for it (effect_waits.py), the approval kept. The
    next attempt looks the refund up by its key first, so waiting never makes two."""
    cause = error.cause
    if not (isinstance(cause, ApplicationError) and cause.type == PLATFORM_NOT_NOW):
        return None
    details = list(cause.details)
    connector = str(details[0]) if details else "payments"
    # The tenant's `give_up_after`, when the activity gave one (activities/refunds.py).
    give_up = details[1] if len(details) > 1 and isinstance(details[1], int) else None
    wait = ConnectorWait(connector=connector, give_up_after_seconds=give_up)
    return RefundResult(status="unavailable", message=cause.message, wait=wait)


def store_refusal(error: ActivityError) -> str | None:
    """The store's message when it refused the refund outright (nothing was written);
    None when the activity failed in a way that may have followed a commit."""
    cause = error.cause
    if (
        isinstance(cause, ApplicationError)
        and cause.non_retryable
        and cause.type in REFUND_FATAL_ERROR_TYPES
    ):
        return cause.message
    return None

"""The refund activities: read the state a decision is judged on, execute an approved refund.

Temporal retries these, so the split matters. A deterministic refusal (rule broken, state
changed, key reused) is a `RefundResult`, never an exception: retrying cannot change it.
A `StoreError` (an unknown tenant) would repeat on every attempt, so it is raised as a
non-retryable `ApplicationError`. Anything else, such as SQLite's "database is locked"
or a dropped PostgreSQL connection, propagates and Temporal retries it: safe, because
the refund is keyed by the run and the action, and a retry finds its own ledger row.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import Engine
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities import observe
from activities.caller import caller_run_id, only_its_own
from activities.store import pending_refunds
from activities.store import refunds as ledger
from activities.store.effect_proofs import ProofCheck
from activities.store.errors import StoreError
from activities.store.passkey_proofs import NO_STEP_UP, PasskeyCheck
from signoff.config.decision_signatures import VerificationKeys
from workflows.action_hold import full_hold
from workflows.actions import (
    EXECUTE_REFUND_ACTIVITY,
    HOLD_PENDING_REFUND_ACTIVITY,
    READ_ACTION_STATE_ACTIVITY,
    RELEASE_PENDING_REFUND_ACTIVITY,
    ActionHold,
    ActionState,
    ActionStateRequest,
    PendingRefundHeld,
    PendingRefundRelease,
    RefundCommand,
    RefundResult,
)


class RefundActivities:
    """`keys` verify the signed approvals a refund carries: the decision service's public
    keys, never a private one (a worker can check decisions, not make them); `passkeys`
    when an approval needs the reviewer's passkey (the worker's profiles and settings)."""

    def __init__(
        self, engine: Engine, keys: VerificationKeys, passkeys: PasskeyCheck = NO_STEP_UP
    ) -> None:
        self._engine = engine
        self._keys = keys
        self._passkeys = passkeys

    @activity.defn(name=READ_ACTION_STATE_ACTIVITY)
    async def read_action_state(self, request: ActionStateRequest) -> ActionState:
        try:
            return await asyncio.to_thread(
                ledger.read_action_state, self._engine, request.tenant_id, request.ticket_id
            )
        except StoreError as error:
            raise non_retryable(error) from None

    @activity.defn(name=EXECUTE_REFUND_ACTIVITY)
    async def execute_refund(self, command: RefundCommand) -> RefundResult:
        with observe.refund_span(command) as span:
            try:
                check = ProofCheck(self._keys, caller_run_id(), self._passkeys)
                answer = await asyncio.to_thread(ledger.answer_refund, self._engine, command, check)
            except StoreError as error:
                raise non_retryable(error) from None
            observe.refund_answered(span, answer.result, replayed=answer.replayed)
        result = answer.result
        activity.logger.info(
            "refund %s for run %s: %s%s",
            result.status,
            command.run_id,
            result.refund_id or "-",
            " (made earlier under the same key)" if answer.replayed else "",
        )
        return result

    @activity.defn(name=HOLD_PENDING_REFUND_ACTIVITY)
    async def hold_pending_refund(self, hold: ActionHold) -> PendingRefundHeld:
        only_its_own(hold.run_id)
        try:
            return await asyncio.to_thread(
                pending_refunds.hold_pending_refund, self._engine, full_hold(hold)
            )
        except StoreError as error:
            raise non_retryable(error) from None

    @activity.defn(name=RELEASE_PENDING_REFUND_ACTIVITY)
    async def release_pending_refund(self, release: PendingRefundRelease) -> None:
        only_its_own(release.run_id)
        await asyncio.to_thread(pending_refunds.release_pending_refund, self._engine, release)


def non_retryable(error: StoreError) -> ApplicationError:
    # The store answered; it will answer the same on every attempt.
    return ApplicationError(str(error), type=type(error).__name__, non_retryable=True)

"""The refund activities: read the state a decision is judged on, execute an approved refund.

Temporal retries these, so the split matters. A deterministic refusal (rule broken, state
changed, key reused) is a `RefundResult`, never an exception: retrying cannot change it.
A `StoreError` (an unknown tenant) would repeat on every attempt, so it is raised as a
non-retryable `ApplicationError`. Anything else, such as SQLite's "database is locked"
or a dropped PostgreSQL connection, propagates and Temporal retries it: safe, because
the refund is keyed by the run and the action, and a retry finds its own ledger row.

A tenant whose refunds go through a payment platform (activities/payments/) is read from
and refunded there; the workflow cannot tell. The platform's answers map as follows: a
refusal is a `refused` result; "not now" (rate limit, 5xx, no answer to a read) is a
retryable error, and the retry looks the key up first; no answer to the refund itself is
a non-retryable `PaymentOutcomeUnknown`, which the workflow reports as an unknown outcome
(`workflows/gate_store.py` treats any failure other than the store's refusals so) for
`signoff reconcile` to settle by key.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from datetime import UTC, datetime

from sqlalchemy import Engine
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities import observe
from activities.caller import caller_run_id, only_in_its_worker, only_its_own
from activities.connectors.breakers import Breakers
from activities.hold_rules import rules_for
from activities.local_lane import LocalLane, in_thread
from activities.payments.breaker_gate import behind_breaker, payments_connector_name, switched_off
from activities.payments.connector import (
    PaymentError,
    PaymentOutcomeUnknown,
    PaymentRefused,
    PaymentUnavailable,
)
from activities.payments.registry import PaymentConnectors
from activities.payments.remote_refund import answer_remote_refund, read_remote_state
from activities.rule_callers import rule_caller_problem
from activities.store import pending_refunds
from activities.store import refunds as ledger
from activities.store.decisions import from_trail
from activities.store.effect_proofs import ProofCheck
from activities.store.effect_trail import trail_recorded
from activities.store.errors import StoreError
from activities.store.passkey_proofs import NO_STEP_UP, PasskeyCheck
from activities.store.refunds import LedgerAnswer
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
from workflows.connector_waits import PAYMENTS_SWITCHED_OFF
from workflows.effect_requirements import effect_requirements
from workflows.profile_contracts import ProfileSet

REFUND = "refund"  # the tool whose policy the ledger's effect demands


class RefundActivities:
    """`keys` verify the signed approvals a refund carries: the decision service's public
    keys, never a private one (a worker can check decisions, not make them); `passkeys`
    when an approval needs the reviewer's passkey (the worker's profiles and settings)."""

    def __init__(
        self,
        engine: Engine,
        keys: VerificationKeys,
        passkeys: PasskeyCheck = NO_STEP_UP,
        payments: PaymentConnectors | None = None,
        breakers: Breakers | None = None,
        profiles: ProfileSet | None = None,
        holds: LocalLane | None = None,
    ) -> None:
        self._engine = engine
        # The exposure hold is a local activity: on the local lane when given
        # (activities/local_lane.py), else on `engine` and asyncio's threads.
        self._holds = holds
        # What the worker's own profiles demand of a refund's approvers (N of M, a
        # role, a chain); None: the ledger's own rule alone.
        self._approvals = None if profiles is None else effect_requirements(profiles, REFUND)
        self._keys = keys
        self._passkeys = passkeys
        self._payments = payments or PaymentConnectors.ledger_only()
        # The payment platforms' breakers (breaker_gate.py); None: no breaker.
        self._breakers = breakers

    @activity.defn(name=READ_ACTION_STATE_ACTIVITY)
    async def read_action_state(self, request: ActionStateRequest) -> ActionState:
        try:
            connector = self._payments.for_tenant(request.tenant_id)
            if connector is not None and self._breakers is not None:
                closed = await switched_off(self._breakers, request.tenant_id)
                if closed is not None:
                    raise ApplicationError(closed, type=PAYMENTS_SWITCHED_OFF, non_retryable=True)
            if connector is None:
                return await asyncio.to_thread(
                    ledger.read_action_state,
                    self._engine,
                    request.tenant_id,
                    request.ticket_id,
                    self._approvals,
                )
            return await asyncio.to_thread(
                read_remote_state,
                self._engine,
                connector,
                request.tenant_id,
                request.ticket_id,
                self._approvals,
            )
        except StoreError as error:
            raise non_retryable(error) from None
        except PaymentError as error:
            raise payment_failure(error) from None

    @activity.defn(name=EXECUTE_REFUND_ACTIVITY)
    async def execute_refund(self, command: RefundCommand) -> RefundResult:
        with observe.refund_span(command) as span:
            try:
                check = ProofCheck(
                    self._keys,
                    caller_run_id(),
                    self._passkeys,
                    approvals=self._approvals,
                    rule_caller=await rule_caller_problem(self._engine, command),
                )
                started = datetime.now(UTC)
                answer = await self._answer(command, check)
            except StoreError as error:
                raise non_retryable(error) from None
            except PaymentError as error:
                tenant = command.tenant_id
                give_up = self._payments.give_up_after(tenant)
                raise payment_failure(error, payments_connector_name(tenant), give_up) from None
            observe.refund_answered(span, answer.result, replayed=answer.replayed)
        if command.trail:  # written beside the refund, unless refused before
            answer = await self._with_trail(command, answer, started)
        result = answer.result
        activity.logger.info(
            "refund %s for run %s: %s%s",
            result.status,
            command.run_id,
            result.refund_id or "-",
            " (made earlier under the same key)" if answer.replayed else "",
        )
        return result

    async def _with_trail(
        self, command: RefundCommand, answer: LedgerAnswer, started: datetime
    ) -> LedgerAnswer:
        """The answer saying whether the command's decision records are in the audit;
        those written now (not found by a retry) are counted, as `record_decision` does."""
        recorded = answer.trail_recorded  # read in the ledger's transaction, when it was
        if recorded is None:  # a payment platform's, or a retried insert's answer
            recorded = await asyncio.to_thread(trail_recorded, self._engine, command.trail)
        for event in command.trail:
            at = recorded.get(from_trail(event).event_key)
            if at is not None and at >= started:
                observe.decision_recorded(event)
        return answer.with_trail_written(len(recorded) == len(command.trail))

    async def _answer(self, command: RefundCommand, check: ProofCheck) -> LedgerAnswer:
        try:
            connector = self._payments.for_tenant(command.tenant_id)
        except PaymentRefused as unusable:  # its key: nothing was asked of the platform
            return LedgerAnswer(RefundResult(status="refused", message=str(unusable)))
        if connector is None:
            return await asyncio.to_thread(ledger.answer_refund, self._engine, command, check)

        def remote() -> Awaitable[LedgerAnswer]:
            return asyncio.to_thread(answer_remote_refund, self._engine, connector, command, check)

        if self._breakers is None:
            return await remote()
        give_up = self._payments.give_up_after(command.tenant_id)
        return await behind_breaker(self._breakers, command, remote, give_up)

    @activity.defn(name=HOLD_PENDING_REFUND_ACTIVITY)
    async def hold_pending_refund(self, hold: ActionHold) -> PendingRefundHeld:
        # Only the run's own gate, in its workflow task: a workflow of someone else's could
        # otherwise hold an order's exposure, and list an action in the inbox, as its own.
        only_in_its_worker(hold.run_id)
        lane = self._holds
        engine, threads = (self._engine, None) if lane is None else (lane.engine, lane.threads)

        def held() -> PendingRefundHeld:
            answer = pending_refunds.hold_pending_refund(engine, full_hold(hold))
            # The standing rules' match in the same call (activities/hold_rules.py).
            rules = rules_for(engine, hold, self._keys, datetime.now(UTC))
            return answer.model_copy(update={"rules": rules})

        try:
            return await in_thread(threads, held)
        except StoreError as error:
            raise non_retryable(error) from None

    @activity.defn(name=RELEASE_PENDING_REFUND_ACTIVITY)
    async def release_pending_refund(self, release: PendingRefundRelease) -> None:
        only_its_own(release.run_id)
        await asyncio.to_thread(pending_refunds.release_pending_refund, self._engine, release)


def non_retryable(error: StoreError) -> ApplicationError:
    # The store answered; it will answer the same on every attempt.
    return ApplicationError(str(error), type=type(error).__name__, non_retryable=True)


def payment_failure(
    error: PaymentError, connector: str = "", give_up_after_seconds: int | None = None
) -> ApplicationError:
    """A payment platform's failure, as Temporal must treat it (see the module note);
    `connector` names the breaker, and `give_up_after_seconds` how long an approved
    refund may wait for it, for the run that waits on it (effect_waits.py)."""
    if isinstance(error, PaymentUnavailable):
        # Not now: the next attempt, under the same key, looks the refund up first.
        return ApplicationError(
            str(error), connector, give_up_after_seconds, type=type(error).__name__
        )
    if isinstance(error, PaymentOutcomeUnknown):
        # Retrying would ask again without knowing; a person settles it by key instead.
        return ApplicationError(str(error), type=type(error).__name__, non_retryable=True)
    # A refusal of a read (no such payment, a bad key): every attempt would get it.
    return ApplicationError(str(error), type="PaymentRefused", non_retryable=True)

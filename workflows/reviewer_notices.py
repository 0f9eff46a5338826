"""Reviewers are told when an action (a refund, a reply, any tool's) waits for them.

Design note. An action that waits unseen expires, and the customer waits for nothing.
So when an action starts waiting, the run posts a notice (the `notify_reviewers`
activity, which holds the webhook URL: the workflow never does); when 80 % of its time
to expiry has passed without a final decision, a reminder; when it expires, a final
notice. An approved action whose connector stayed unavailable until the run gave up
(workflows/effect_waits.py) tells the reviewers who approved it that it was not carried
out (`not_carried_out`): a person promised the customer something that did not happen.
Each notice follows its action in a task of its own beside the gate: the gate
never awaits it, so a webhook that is slow or down neither blocks nor fails the run.
The activity retries a few times (bounded), then the notice is given up with a log
line. The receiver may see a retry twice: every notice carries an idempotency key made
of the run, the action hash and the kind, so it can drop the copy. A notice carries
the tool, its exposure (amount, currency and order, where the tool's policy declares
one: `workflows/exposure.py`), mode, tenant and expiry, never the arguments, ticket
text, customer names nor the agent's reason (which may quote the ticket): the link is
the way in.

When the run ends, it waits for notices still being sent (`drain`), bounded by the
activity's schedule-to-close timeout, so that the expiry notice of a run that then
ends at once still goes out.

Versioning: runs recorded before `notify-reviewers`, and runs on a worker without a
webhook (its limits say so), send nothing and schedule no activity.

This is workflow code: no I/O; time only through `workflow.now()` and timers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from workflows.actions import PendingAction
    from workflows.connector_waits import EffectWaiting
    from workflows.contract_base import Contract
    from workflows.contracts import RunRequest
    from workflows.exposure import ActionExposure
    from workflows.tool_catalog import REFUND

NOTIFY_ACTIVITY = "notify_reviewers"
# The reminder goes when this share of the time from request to expiry has passed.
REMINDER_SHARE = 0.8
# A webhook answers in seconds or not at all: a few short attempts, then give up.
NOTIFY_ATTEMPT_TIMEOUT = timedelta(seconds=15)
NOTIFY_TOTAL_TIMEOUT = timedelta(minutes=2)
NOTIFY_MAX_ATTEMPTS = 4
NOTIFY_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=2),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=30),
    maximum_attempts=NOTIFY_MAX_ATTEMPTS,
    # The receiver refused the body itself (a 4xx other than 429): a retry sends the
    # same body and is refused the same way.
    non_retryable_error_types=["NotificationRefused"],
)

# `escalated`: the action expired unanswered and now waits for another role
# (workflows/escalation.py); its reminder follows the new time to live.
# `not_carried_out`: approved, but its connector stayed unavailable until the run gave
# up (workflows/effect_waits.py); nothing was done.
NoticeKind = Literal["waiting", "reminder", "expired", "escalated", "not_carried_out"]
# The notices no one can decide on any more: they link to the run, not to a decision.
SETTLED_KINDS: tuple[NoticeKind, ...] = ("expired", "not_carried_out")
# The refund is named in words; another tool by its card's title where the notifier's
# profiles give one, with its own name beside it for ops, else by its name alone.
REFUND_WORD = "Refund"


class Notice(Contract):
    """What a notification says; never ticket text, names or the agent's reason."""

    kind: NoticeKind
    run_id: str
    tenant_id: str
    action_hash: str
    tool: str
    # What the action puts at stake, where its tool's policy declares it; None: no
    # amount to tell (its arguments stay off the notice: they may quote the ticket).
    exposure: ActionExposure | None = None
    mode: Literal["confirm", "review"]
    required_approvals: int
    approvals: int
    expires_at: datetime
    # When the run sent it (workflow time): retries repeat the same body word for word.
    sent_at: datetime
    # Who may decide now, and how many times it was escalated: an escalation's notice
    # tells the new role, and its reminder is another notice than the first one's.
    approver_roles: list[str] = []
    escalations: int = 0
    # With `not_carried_out`: who approved it (reviewer ids, or a standing rule), the
    # connector it waited for and since when.
    approved_by: list[str] = []
    connector: str | None = None
    waiting_since: datetime | None = None

    def subject(self, title: str | None = None) -> str:
        """What waits, in a line: `Refund 89.90 EUR on order C-1042`; another tool by
        `title`, its card's, with its name (`Send a reply to the customer (send_reply)`),
        or without one by its name alone; with its exposure where it declares one
        (`issue_voucher 15.00 EUR`)."""
        exposure = self.exposure
        if self.tool == REFUND.name:
            name = REFUND_WORD
        else:
            name = self.tool if title is None else f"{title} ({self.tool})"
        return name if exposure is None else f"{name} {exposure.said()}"

    def idempotency_key(self) -> str:
        base = f"{self.run_id}:{self.action_hash}:{self.kind}"
        return base if self.escalations == 0 else f"{base}:{self.escalations}"


class NoticeSent(Contract):
    status: Literal["sent", "skipped"]
    detail: str = ""


def notice(kind: NoticeKind, action: PendingAction, request: RunRequest) -> Notice:
    return Notice(
        kind=kind,
        run_id=workflow.info().workflow_id,
        tenant_id=request.tenant_id,
        action_hash=action.action_hash,
        tool=action.tool,
        exposure=action.exposure,
        mode=action.mode,
        required_approvals=action.required_approvals,
        approvals=len(action.approvals),
        expires_at=action.expires_at,
        sent_at=workflow.now(),
        approver_roles=list(action.approver_roles) if action.escalations else [],
        escalations=action.escalations,
    )


def not_carried_out(
    action: PendingAction, request: RunRequest, approved_by: list[str], waited: EffectWaiting
) -> Notice:
    """The notice for the reviewers who approved `action` when the run gave up waiting
    for its connector."""
    told = notice("not_carried_out", action, request)
    return told.model_copy(
        update={
            "approved_by": approved_by,
            "connector": waited.connector,
            "waiting_since": waited.since,
        }
    )


def reminder_at(action: PendingAction, since: datetime | None = None) -> datetime:
    """When to remind: `REMINDER_SHARE` of the time from `since` (the request, or the
    escalation) to expiry."""
    start = action.requested_at if since is None else since
    return start + (action.expires_at - start) * REMINDER_SHARE


@dataclass
class ReviewerNotices:
    """Follows each waiting action with its notices, beside the gate."""

    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def watch(
        self,
        request: RunRequest,
        current: Callable[[], PendingAction | None],
        resolution: Callable[[], str | None],
    ) -> None:
        """Start telling reviewers about the action `current()` returns while it waits.

        `current` gives the action as it stands (None once it left the gate);
        `resolution` its final resolution (approved, rejected, expired) or None.
        """
        if not request.notify_reviewers:
            return
        first = current()
        assert first is not None
        self.tasks.append(asyncio.create_task(self._follow(request, first, current, resolution)))

    async def _follow(
        self,
        request: RunRequest,
        first: PendingAction,
        current: Callable[[], PendingAction | None],
        resolution: Callable[[], str | None],
    ) -> None:
        def settled() -> bool:
            return current() is None or resolution() is not None

        await self._send(notice("waiting", first, request))
        round_, since = first, None
        while True:

            def moved(escalations: int = round_.escalations) -> bool:
                now = current()
                return settled() or (now is not None and now.escalations != escalations)

            delay = (reminder_at(round_, since) - workflow.now()).total_seconds()
            try:
                if delay > 0:
                    await workflow.wait_condition(moved, timeout=delay)
                if not moved():
                    raise TimeoutError
            except TimeoutError:
                await self._send(notice("reminder", current() or round_, request))
                await workflow.wait_condition(moved)
            escalated = current()
            if settled() or escalated is None:
                break
            # Escalated (workflows/escalation.py): tell the new role, then remind it.
            round_, since = escalated, workflow.now()
            await self._send(notice("escalated", escalated, request))
        if resolution() == "expired":
            await self._send(notice("expired", round_, request))

    def tell(self, request: RunRequest, sent: Notice) -> None:
        """Send one notice beside the gate (never awaited by it; `drain` waits for it)."""
        if request.notify_reviewers:
            self.tasks.append(asyncio.create_task(self._send(sent)))

    async def _send(self, sent: Notice) -> None:
        try:
            await workflow.execute_activity(
                NOTIFY_ACTIVITY,
                sent,
                result_type=NoticeSent,
                start_to_close_timeout=NOTIFY_ATTEMPT_TIMEOUT,
                schedule_to_close_timeout=NOTIFY_TOTAL_TIMEOUT,
                retry_policy=NOTIFY_RETRY,
            )
        except ActivityError as error:
            # Given up: reviewers still find the request in the inbox. Never the run's end.
            workflow.logger.warning(
                "notice %s for %s not delivered: %s", sent.kind, sent.action_hash, error.cause
            )

    async def drain(self) -> None:
        """Wait for the notices still being sent (bounded by their activity timeouts)."""
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)

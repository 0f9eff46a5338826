"""A workflow of someone else's, for tests/workflow/test_rogue_workflow.py: it runs on a
task queue of its own and calls signoff's activities by name on signoff's queue, with
what it can read or make up, as anyone who reaches the Temporal frontend could."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows.actions import (
        EXECUTE_REFUND_ACTIVITY,
        EXECUTE_TOOL_ACTION_ACTIVITY,
        HOLD_PENDING_REFUND_ACTIVITY,
        HOLD_WAITING_ACTION_ACTIVITY,
        RECORD_DECISION_ACTIVITY,
        RELEASE_PENDING_REFUND_ACTIVITY,
        ActionHold,
        DecisionEvent,
        EffectResult,
        PendingRefundRelease,
        RefundCommand,
        RefundResult,
        ToolActionCommand,
    )
    from workflows.contract_base import Contract
    from workflows.contracts import RUN_TOOL_ACTIVITY, ToolCallInput, ToolResult

ONCE = RetryPolicy(maximum_attempts=1)
TIMEOUT = timedelta(seconds=30)


class RoguePlan(Contract):
    signoff_queue: str
    command: RefundCommand
    release: PendingRefundRelease
    record: DecisionEvent
    # An action to hold for the rogue's own id (its workflow id): the order's exposure,
    # a row in the reviewers' inbox, and with them a standing rule's grant.
    hold: ActionHold | None = None


@workflow.defn(name="RogueRun")
class RogueRun:
    @workflow.run
    async def run(self, plan: RoguePlan) -> list[str]:
        said: list[str] = []
        refund: RefundResult = await workflow.execute_activity(
            EXECUTE_REFUND_ACTIVITY,
            plan.command,
            task_queue=plan.signoff_queue,
            result_type=RefundResult,
            start_to_close_timeout=TIMEOUT,
            retry_policy=ONCE,
        )
        said.append(f"refund: {refund.status}: {refund.message}")
        calls: list[tuple[str, object]] = [
            (RELEASE_PENDING_REFUND_ACTIVITY, plan.release),
            (RECORD_DECISION_ACTIVITY, plan.record),
        ]
        if plan.hold is not None:
            calls += [
                (HOLD_PENDING_REFUND_ACTIVITY, plan.hold),
                (HOLD_WAITING_ACTION_ACTIVITY, plan.hold),
            ]
        for name, argument in calls:
            try:
                await workflow.execute_activity(
                    name,
                    argument,
                    task_queue=plan.signoff_queue,
                    start_to_close_timeout=TIMEOUT,
                    retry_policy=ONCE,
                )
                said.append(f"{name}: done")
            except ActivityError as error:
                cause = error.cause
                kind = cause.type if isinstance(cause, ApplicationError) else type(cause).__name__
                said.append(f"{name}: {kind}")
        return said


class RogueEffectPlan(Contract):
    signoff_queue: str
    commands: list[ToolActionCommand]
    # An irreversible tool asked for as a read, through the tool gateway.
    as_read: ToolCallInput


@workflow.defn(name="RogueEffect")
class RogueEffect:
    """Calls `execute_tool_action` with each command, then `run_tool` with the
    irreversible tool's name, as anyone on the task queue could."""

    def __init__(self) -> None:
        self._said: list[str] = []

    @workflow.query
    def said(self) -> list[str]:
        """What it was told (a query: a time-skipping result would move the clock)."""
        return self._said

    @workflow.run
    async def run(self, plan: RogueEffectPlan) -> list[str]:
        said = self._said
        for command in plan.commands:
            result: EffectResult = await workflow.execute_activity(
                EXECUTE_TOOL_ACTION_ACTIVITY,
                command,
                task_queue=plan.signoff_queue,
                result_type=EffectResult,
                start_to_close_timeout=TIMEOUT,
                retry_policy=ONCE,
            )
            said.append(f"{result.status}: {result.message}")
        read: ToolResult = await workflow.execute_activity(
            RUN_TOOL_ACTIVITY,
            plan.as_read,
            task_queue=plan.signoff_queue,
            result_type=ToolResult,
            start_to_close_timeout=TIMEOUT,
            retry_policy=ONCE,
        )
        said.append(f"run_tool: {read.is_error}: {read.content}")
        return said

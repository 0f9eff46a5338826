"""Any irreversible tool other than the refund, as the gate's hooks (`gate_hooks.py`).

The tool's own model checks and normalizes the arguments in the `prepare_tool_call`
activity (the workflow does not import a team's tool modules), the mode is the
profile's policy for the tool (`confirm`: one reviewer, `review`: two, `deny`, or
`auto`: no reviewer), the hold writes the action's row of the inbox, and the effect is
the `execute_tool_action` activity: it verifies the signed approvals against the
worker's own profile, then runs the tool once under the action's idempotency key
(activities/tool_effects.py). Such a tool judges on no store state of its own: the
reviewer sees its arguments and what the run's read tools returned.

This is workflow code: activities by name, explicit timeouts, bounded retries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows import policy as limits
    from workflows.actions import (
        EXECUTE_TOOL_ACTION_ACTIVITY,
        HOLD_WAITING_ACTION_ACTIVITY,
        PREPARE_TOOL_CALL_ACTIVITY,
        ActionHold,
        ActionState,
        ApprovalMode,
        Decision,
        DecisionEvent,
        EffectResult,
        PendingAction,
        PreparedArguments,
        ToolActionCommand,
    )
    from workflows.approval_policy import effect_key
    from workflows.approval_requirements import with_policy
    from workflows.cancellation import reraise_cancellation
    from workflows.contracts import RunRequest, ToolCallInput, ToolUseBlock
    from workflows.exposure import ActionExposure, ExposureProblem, exposure_of, scalar_text
    from workflows.gate_actions import new_action
    from workflows.gate_hooks import Effect, Held, Prepared
    from workflows.gate_store import STORE_CALL_TIMEOUT, STORE_RETRIES, release
    from workflows.profile_contracts import ToolPolicy
    from workflows.rule_grant import RuleMatch
    from workflows.run_tools import profile_names
    from workflows.tool_catalog import ToolCallRejected
    from workflows.tool_policy import call_timeout

# The state of a tool that judges on none: its hash is a constant of the policy.
NO_STATE = ActionState(order_id=None, currency=None, review_threshold_minor=0)
# An effect may call another system (an MCP server, a helpdesk): longer than a store
# call, or what the tool's `call_timeout` says; a retry is safe, it carries the same
# idempotency key.
EFFECT_CALL_TIMEOUT = limits.TOOL_CALL_TIMEOUT
# Longest argument shown in a one-line description of the action.
DESCRIBED_ARGUMENT_CHARS = 60


@dataclass
class ToolHooks:
    request: RunRequest
    tool: str
    policy: ToolPolicy | None
    noun: str = field(init=False)
    # The effect writes the run's records not yet in the audit (the approvals) in its
    # claim's transaction, as the refund's does: none runs without them on the record.
    writes_trail: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        self.noun = f"call to {self.tool}"

    def describe(self, action: PendingAction) -> str:
        shown = ", ".join(
            f"{name}={_cut(value)}" for name, value in sorted(action.arguments.items())
        )
        return f"{action.tool}({shown})"

    async def prepare(self, call: ToolUseBlock) -> Prepared:
        prepared: PreparedArguments = await workflow.execute_activity(
            PREPARE_TOOL_CALL_ACTIVITY,
            ToolCallInput(
                run_id=workflow.info().workflow_id,
                tenant_id=self.request.tenant_id,
                ticket_id=self.request.ticket_id,
                tool_use_id=call.id,
                name=call.name,
                arguments=call.input,
                idempotency_key=f"{workflow.info().workflow_id}:{call.name}:{call.id}",
                **profile_names(self.request),
            ),
            result_type=PreparedArguments,
            start_to_close_timeout=STORE_CALL_TIMEOUT,
            retry_policy=STORE_RETRIES,
        )
        if prepared.arguments is None:
            raise ToolCallRejected(prepared.problem)
        exposure, problem = declared_exposure(self.policy, prepared.arguments)
        return Prepared(
            arguments=prepared.arguments,
            targets={"tenant_id": self.request.tenant_id, "ticket_id": self.request.ticket_id},
            reason=declared_reason(self.policy, prepared.arguments),
            state=NO_STATE,
            exposure=exposure,
            problem=problem,
        )

    def action(
        self,
        call: ToolUseBlock,
        prepared: Prepared,
        state: ActionState,
        supersedes: str | None,
        note: str,
    ) -> PendingAction:
        return new_action(
            self.request,
            call,
            arguments=prepared.arguments,
            targets=prepared.targets,
            reason=prepared.reason,
            state=state,
            policy=self.policy,
            supersedes=supersedes,
            note=note,
            exposure=prepared.exposure,
        )

    def mode(self, action: PendingAction) -> tuple[ApprovalMode, str]:
        # A tool without a policy (none can be offered without one) is judged closed.
        approval: ApprovalMode = "review" if self.policy is None else self.policy.approval
        if approval == "deny":
            return "deny", f"this agent's profile does not allow {self.tool}"
        return approval, ""

    async def hold(self, action: PendingAction, match_rules: bool = False) -> Held:
        review = self.mode(action)[0] == "review"
        judged = action.model_copy(
            update={
                "mode": "review" if review else "confirm",
                "required_approvals": 2 if review else 1,
            }
        )
        judged = with_policy(judged, self.policy)
        rules: RuleMatch = await workflow.execute_activity(
            HOLD_WAITING_ACTION_ACTIVITY,
            ActionHold(
                run_id=workflow.info().workflow_id,
                tenant_id=self.request.tenant_id,
                ticket_id=self.request.ticket_id,
                action=judged,
                match_rules=match_rules,
            ),
            result_type=RuleMatch,
            start_to_close_timeout=STORE_CALL_TIMEOUT,
            retry_policy=STORE_RETRIES,
        )
        return Held(judged, rules)

    async def release(self, action_hash: str) -> None:
        await release(action_hash)

    async def execute(
        self, action: PendingAction, proofs: list[Decision], trail: list[DecisionEvent]
    ) -> Effect | None:
        run_id = workflow.info().workflow_id
        command = ToolActionCommand(
            run_id=run_id,
            tenant_id=self.request.tenant_id,
            ticket_id=self.request.ticket_id,
            actor_id=self.request.actor_id,
            idempotency_key=effect_key(run_id, action.tool, action.action_hash),
            action=action,
            proofs=proofs,
            trail=trail,
            **profile_names(self.request),
        )
        try:
            result: EffectResult = await workflow.execute_activity(
                EXECUTE_TOOL_ACTION_ACTIVITY,
                command,
                result_type=EffectResult,
                start_to_close_timeout=call_timeout(self.policy, EFFECT_CALL_TIMEOUT),
                retry_policy=RetryPolicy(maximum_attempts=limits.TOOL_CALL_MAX_ATTEMPTS),
            )
        except ActivityError as error:
            reraise_cancellation(error)
            cause = error.cause
            if isinstance(cause, ApplicationError) and cause.non_retryable:
                # Refused before it acted (a store error that will not change on retry).
                return Effect(status="refused", message=f"it was refused: {cause.message}")
            return None  # every attempt failed, perhaps after the tool acted
        if result.status == "approver_invalid":
            return Effect(status=result.status, message=result.message, state=action.state)
        # Done: the claim that let it run committed the trail with it. Otherwise the gate
        # writes it (a record the effect already wrote is found, not written twice).
        return Effect(
            status=result.status,
            message=result.message,
            content=result.content,
            trail_written=result.status == "done",
            wait=result.wait,
        )


def declared_reason(policy: ToolPolicy | None, arguments: dict[str, str]) -> str:
    """The agent's stated reason, where the tool's policy names the argument that holds
    it (`reason_argument`); "" otherwise, whatever the arguments are called."""
    if policy is None or policy.reason_argument is None:
        return ""
    return scalar_text(arguments.get(policy.reason_argument, ""))


def declared_exposure(
    policy: ToolPolicy | None, arguments: dict[str, str]
) -> tuple[ActionExposure | None, str]:
    """The call's exposure where its policy declares one (and no problem); or none and
    why a declared argument is not what it must be (the gate refuses the call, on the
    record, and nothing waits)."""
    if policy is None or policy.exposure is None:
        return None, ""
    try:
        return exposure_of(policy.exposure, arguments), ""
    except ExposureProblem as problem:
        return None, str(problem)


def _cut(value: str) -> str:
    if len(value) <= DESCRIBED_ARGUMENT_CHARS:
        return value
    return value[: DESCRIBED_ARGUMENT_CHARS - 1] + "…"

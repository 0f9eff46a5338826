"""The worker's activities: one list, for `signoff worker`, the benchmarks and the tests.

A worker that registers fewer activities than the workflow calls fails late, on the
first run that reaches the missing one; a copy of the list drifts as soon as an activity
is added. So every worker of the workflow takes its list from here. A test or a bench
that puts its own activity in place of one (a scripted model, a model turn answering
with limits no request reaches, a refund that crashes after its commit) passes it in
`replacing`: it takes the place of the activity registered under the same name, and a
name that is not one of the worker's is refused rather than added.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from temporalio import activity

from activities.decision_verifier import DecisionVerifier
from activities.decisions import DecisionActivities
from activities.mcp.activities import McpTools
from activities.refunds import RefundActivities
from activities.reviewer_notifier import ReviewerNotifier
from activities.tool_effects import ToolEffects
from activities.tool_gateway import ToolGateway
from workflows.contracts import ModelReply, ModelRequest


class ModelTurnActivity(Protocol):
    """What answers the `model_turn` activity: the model adapters, or a test's fake."""

    async def model_turn(self, request: ModelRequest) -> ModelReply: ...


@dataclass(frozen=True)
class ActivityParts:
    """The objects whose methods are the worker's activities."""

    models: ModelTurnActivity
    gateway: ToolGateway
    effects: ToolEffects
    refunds: RefundActivities
    verifier: DecisionVerifier
    decisions: DecisionActivities
    notifier: ReviewerNotifier
    mcp: McpTools


def worker_activities(
    parts: ActivityParts, replacing: Iterable[Callable[..., Any]] = ()
) -> list[Callable[..., Any]]:
    """Every activity the workflows call, each from `parts` unless `replacing` holds
    one registered under the same name."""
    listed: list[Callable[..., Any]] = [
        parts.models.model_turn,
        parts.gateway.run_tool,
        parts.gateway.prepare_tool_call,
        parts.effects.hold_waiting_action,
        parts.effects.execute_tool_action,
        parts.refunds.read_action_state,
        parts.refunds.execute_refund,
        parts.verifier.verify_decision,
        parts.refunds.hold_pending_refund,  # and the standing rules: docs/standing-rules.md
        parts.refunds.release_pending_refund,
        parts.decisions.record_decision,
        parts.notifier.notify_reviewers,
        parts.mcp.resolve,  # tools from MCP servers (docs/configuration/mcp.md)
        parts.mcp.run,
    ]
    by_name = {activity_name(entry): entry for entry in listed}
    for substitute in replacing:
        name = activity_name(substitute)
        if name not in by_name:
            raise ValueError(
                f"{name!r} is not one of the worker's activities ({', '.join(sorted(by_name))}); "
                "register it beside the list instead of in place of an entry"
            )
        by_name[name] = substitute
    return list(by_name.values())


def activity_name(function: Callable[..., Any]) -> str:
    """The name `@activity.defn` registered `function` under (the SDK's own reading,
    as its Worker does)."""
    name = activity._Definition.must_from_callable(function).name
    if name is None:  # a dynamic activity answers every name: it has no entry to replace
        raise ValueError(f"{function!r} is a dynamic activity, which replaces no entry")
    return name

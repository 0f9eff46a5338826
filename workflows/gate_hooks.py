"""What the approval gate asks of a tool: the hooks that make its rules the tool's own.

Design note. The gate (`approval_gate.py`) is one loop for every irreversible tool:
prepare the call, build the pending action, judge its mode, hold its place, wait for
the decision, carry it out, and raise a new action when the effect says the approval
went void. What differs from tool to tool is behind these hooks:

- the refund (`refund_hooks.py`): the state is the order's (paid, refunded, status),
  four eyes is judged on the order's cumulative exposure, never more than what remains
  refundable, the hold counts the amount in the order's exposure, and the effect is the
  ledger's refund;
- any other tool (`tool_gate.py`): the arguments are checked by the tool's own model,
  the mode is the profile's policy, the hold is the inbox's row, and the effect is the
  tool's function (or MCP call), carried out once under its idempotency key by an
  activity that verifies the proofs itself.

This is workflow code: hooks call activities by name, never I/O of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from workflows.actions import (
    ActionState,
    ApprovalMode,
    Decision,
    DecisionEvent,
    PendingAction,
)
from workflows.connector_waits import ConnectorWait, EffectWaiting
from workflows.contracts import ToolUseBlock
from workflows.exposure import ActionExposure
from workflows.rule_grant import RuleMatch
from workflows.tool_policy import ToolPolicy

EffectStatus = Literal["done", "state_changed", "approver_invalid", "refused", "unavailable"]


@dataclass(frozen=True)
class Prepared:
    """A call ready for the gate: its normalized arguments, targets and reason, and the
    state a reviewer judges it on; or `problem`, why it cannot be proposed at all."""

    arguments: dict[str, str]
    targets: dict[str, str]
    reason: str
    state: ActionState
    problem: str = ""
    # What the call puts at stake, where the tool's policy declares it (exposure.py).
    exposure: ActionExposure | None = None


@dataclass(frozen=True)
class Effect:
    """What the effect answered, in the gate's terms. `content` is the tool result the
    model reads when it was done; `effect` the line the run's outcome keeps. With
    `state_changed` or `approver_invalid`, `state` is the state to judge again on."""

    status: EffectStatus
    message: str = ""
    content: str = ""
    effect: str = ""
    state: ActionState | None = None
    # Whether the effect itself took the action's hold away (the refund does, in its
    # own transaction); otherwise the gate releases it.
    released: bool = False
    # Whether the effect wrote the run's decision records it was given (`execute`'s
    # `trail`) in its own transaction; otherwise the gate writes them.
    trail_written: bool = False
    # With `unavailable`: the connector that cannot take it now (effect_waits.py).
    wait: ConnectorWait | None = None
    # The run waited for the connector until the approval ran out (effect_waits.py).
    gave_up: bool = False
    # With `gave_up`: the wait it gave up (the connector, since when).
    waited: EffectWaiting | None = None


@dataclass(frozen=True)
class Held:
    """The action as its hold judged it (how many approvals it needs), and the standing
    rules' answer the hold brought when asked (`standing_rules.py`)."""

    action: PendingAction
    rules: RuleMatch = field(default_factory=RuleMatch)


class GateHooks(Protocol):
    # What the action is, in a reviewer's words ("refund 12.00 EUR on order O-1").
    def describe(self, action: PendingAction) -> str: ...

    # The noun of "the ... did not happen" in the model's error results.
    noun: str
    # The profile's policy for the tool (None: a run without a profile): what expiry
    # does (`escalation.py`).
    policy: ToolPolicy | None
    # Whether the effect writes the run's decision records not yet in the audit (the
    # approvals that led to it) in its own transaction: the refund's does, so a decision
    # reaches its effect in one activity. Otherwise the gate writes them first.
    writes_trail: bool

    async def prepare(self, call: ToolUseBlock) -> Prepared: ...

    def action(
        self,
        call: ToolUseBlock,
        prepared: Prepared,
        state: ActionState,
        supersedes: str | None,
        note: str,
    ) -> PendingAction: ...

    def mode(self, action: PendingAction) -> tuple[ApprovalMode, str]: ...

    # `match_rules`: the action starts to wait, and the hold asks the standing rules too.
    async def hold(self, action: PendingAction, match_rules: bool = False) -> Held: ...

    async def release(self, action_hash: str) -> None: ...

    async def execute(
        self, action: PendingAction, proofs: list[Decision], trail: list[DecisionEvent]
    ) -> Effect | None: ...

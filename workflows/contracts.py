"""The types that cross the workflow boundary, and the names both sides share.

Everything here is a pydantic model so that the client, the worker and the replayer
use one data converter. The content blocks mirror the Anthropic Messages API on
purpose: it is the richest wire format we speak, and the scripted model speaks it too.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from workflows.actions import DecisionRecord, PendingAction
from workflows.connector_waits import EffectWaiting
from workflows.contract_base import TASK_QUEUE as TASK_QUEUE  # re-exported: both sides name it
from workflows.contract_base import Contract, Identifier, TenantId
from workflows.limit_contracts import RunLimits, RunLimitsRequest
from workflows.model_contracts import ModelPrice as ModelPrice  # re-exported, as below
from workflows.model_contracts import ModelRef as ModelRef
from workflows.model_contracts import Usage as Usage
from workflows.profile_contracts import RunProfile
from workflows.prompt_catalog import CatalogDigest
from workflows.tool_spec import ToolSpec as ToolSpec  # re-exported: the contracts name it
from workflows.unknown_effects import UnknownEffect
from workflows.wire_contract import WireContract

WORKFLOW_NAME = "AgentRun"
MODEL_TURN_ACTIVITY = "model_turn"
RUN_TOOL_ACTIVITY = "run_tool"

# Custom search attributes (Keyword). The dev launcher registers them.
STATUS_ATTRIBUTE = "SignoffStatus"
TENANT_ATTRIBUTE = "SignoffTenant"
# KeywordList: the hashes of the actions a run waits on, upserted with its status.
PENDING_ATTRIBUTE = "SignoffPending"


RunStatus = Literal[
    "running",
    "waiting_for_approval",
    # `ask_customer` sent its question and the run waits for the answer: no reviewer's.
    "waiting_for_customer",
    "retrying",
    "completed",
    "failed",
    "cancelled",
]
FinalStatus = Literal["completed", "failed", "cancelled"]

StopReason = Literal[
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
    "pause_turn",
    "refusal",
    "model_context_window_exceeded",
]

OutcomeReason = Literal[
    "answered",
    "step_budget_exhausted",
    "deadline_exceeded",
    "token_budget_exhausted",
    "cost_budget_exhausted",
    "truncated_reply",
    "empty_reply",
    "refusal",
    "context_window_exceeded",
    "repeated_tool_errors",
    "repeated_failing_call",
    "model_error",
    "cancelled",
    # The worker's own limits (workflows/run_limits.py) did not come with the first turn.
    "worker_limits_unavailable",
    # A reviewer rejected an action as suspected fraud: the agent may not argue.
    "suspected_fraud",
]


def run_id_for(tenant_id: str, request_id: str) -> str:
    """A run's workflow id: the same tenant and request id always name the same run.

    Unambiguous because a tenant id holds no '-' (TenantId): two tenants never share one.
    """
    return f"run-{tenant_id}-{request_id}"


class RunRequest(Contract):
    """The envelope of one agent run. Validated at the edge, before anything starts."""

    tenant_id: TenantId
    actor_id: Identifier
    request_id: Identifier
    trace_id: Identifier
    goal: Annotated[str, Field(min_length=1, max_length=2000)]
    ticket_id: Identifier
    policy_version: Identifier
    model: ModelRef
    deadline: datetime
    step_budget: Annotated[int, Field(ge=1, le=100)] = 8
    token_budget: Annotated[int, Field(ge=1)] = 200_000
    max_tokens: Annotated[int, Field(ge=16, le=64_000)] = 1024
    approval_ttl_seconds: Annotated[int, Field(ge=60)] = 24 * 3600
    price: ModelPrice = Field(default_factory=ModelPrice)
    cost_budget_usd: Annotated[Decimal, Field(gt=0)] | None = None
    # Extended thinking, for models that take it: tokens the model may reason with before
    # it answers, out of max_tokens. None: not asked for.
    thinking_budget_tokens: Annotated[int, Field(ge=1024)] | None = None
    # Whether reviewers are told when a refund waits (workflows/reviewer_notices.py). The
    # worker's word alone (its limits, see run_limits.clamp); never serialized, so that no
    # starter sets it and a worker that predates it never reads it.
    notify_reviewers: bool = Field(default=False, exclude=True)
    # How long a refund attempt may wait on the tenant's payment platform, in seconds
    # (run_limits.RunLimits.payment_call_seconds): the worker's word alone, as above.
    payment_call_seconds: float = Field(default=0.0, exclude=True)
    # The agent profile the run started on (file name, content hash, agent): the run
    # keeps it until it ends, whatever the worker loads later. None: the code's built-in
    # agent (its prompt and catalog), as runs had before profiles.
    profile: RunProfile | None = None
    # The tools the run offers, by name: the profile's for this tenant and actor, as they
    # were when the run started (service/run_requests.py). The list is the permission.
    tools: tuple[str, ...] = ()
    # What the model reads of them and of the agent (the system prompt, each tool's
    # description and schema), stored once by the service and named by its SHA-256
    # (workflows/prompt_catalog.py). Set exactly when `profile` is.
    prompt_digest: CatalogDigest | None = None

    @model_validator(mode="after")
    def _thinking_fits(self) -> RunRequest:
        budget = self.thinking_budget_tokens
        if budget is not None and budget >= self.max_tokens:
            raise ValueError(
                f"the thinking budget ({budget} tokens) must be below max_tokens "
                f"({self.max_tokens}): raise SIGNOFF_MAX_TOKENS or lower the budget"
            )
        return self

    @model_validator(mode="after")
    def _prompt_with_profile(self) -> RunRequest:
        if (self.profile is None) != (self.prompt_digest is None):
            raise ValueError(
                "a run on a profile names its prompt catalog (prompt_digest), and only such "
                "a run does: build the request with service/run_requests.new_run_request"
            )
        return self


# --- content blocks, the shape of the Messages API ---------------------------------


class TextBlock(Contract):
    type: Literal["text"] = "text"
    text: str


class ToolUseBlock(Contract):
    type: Literal["tool_use"] = "tool_use"
    id: Annotated[str, Field(min_length=1)]
    name: str
    input: dict[str, Any]


class ToolResultBlock(Contract):
    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: str
    is_error: bool = False


class ThinkingBlock(Contract):
    """The model's reasoning, kept verbatim: in a tool-use cycle the Messages API needs
    it back exactly as sent, signature included. The loop never acts on it."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str


class RedactedThinkingBlock(Contract):
    """Reasoning the provider encrypted; only `data` travels, back as it came."""

    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str


ReplyBlock = Annotated[
    TextBlock | ToolUseBlock | ThinkingBlock | RedactedThinkingBlock, Field(discriminator="type")
]
MessageBlock = Annotated[
    TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | RedactedThinkingBlock,
    Field(discriminator="type"),
]


class Message(Contract):
    role: Literal["user", "assistant"]
    content: list[MessageBlock]


class ToolChoice(Contract):
    type: Literal["auto", "any", "tool", "none"] = "auto"
    name: str | None = None


class TurnUsage(Contract):
    """One model turn's tokens by kind, and what they cost at the run's price."""

    turn: int
    usage: Usage
    cost_usd: Decimal = Decimal(0)


class ModelRequest(WireContract):
    """A neutral model call: what any adapter receives."""

    WIRE_OMITS = ("system", "user_hash", "thinking_budget_tokens", "prompt_digest", "limits_for")

    model: ModelRef
    system: str = ""
    messages: list[Message]
    # Offered after the catalog's tools, when there is one (an MCP server's, say).
    tools: list[ToolSpec] = Field(default_factory=list)
    tool_choice: ToolChoice = Field(default_factory=ToolChoice)
    max_tokens: int
    # A hash of the actor, never a name: adapters may pass it on as end-user metadata.
    user_hash: str | None = None
    # Extended thinking budget (see RunRequest); adapters without thinking ignore it.
    thinking_budget_tokens: int | None = None
    # The run's prompt catalog: the model-turn activity reads it from the store, checks
    # its hash and puts its system prompt and tools in `system` and before `tools`.
    prompt_digest: CatalogDigest | None = None
    # Set on a run's first turn only: the worker answers with its limits on the run
    # (`ModelReply.worker_limits`, see run_limits.py), so that they cost no activity of
    # their own. Only what they are for; the limits themselves are the worker's alone.
    limits_for: RunLimitsRequest | None = None

    @model_validator(mode="after")
    def _limits_for_the_model_called(self) -> ModelRequest:
        # The price the run takes is the one of the model this turn calls.
        if self.limits_for is not None and self.limits_for.model != self.model:
            raise ValueError("limits_for names another model than the one called")
        return self


class ModelReply(WireContract):
    """A neutral model answer: content blocks, why it stopped, what it cost."""

    WIRE_OMITS = ("worker_limits",)

    content: list[ReplyBlock]
    stop_reason: StopReason
    usage: Usage = Field(default_factory=Usage)
    model_id: str = ""
    # The worker's limits on the run, when the request asked for them (`limits_for`).
    worker_limits: RunLimits | None = None


# --- tools -----------------------------------------------------------------------


class ToolCallInput(Contract):
    """What the tool gateway activity receives. Targets come from the run, not the model."""

    run_id: str
    tenant_id: str
    ticket_id: str
    tool_use_id: str
    name: str
    arguments: dict[str, Any]
    idempotency_key: str
    # The run's profile (content hash) and agent: the activity looks the tool up in the
    # profile the worker holds by that hash, never in the input (activities/
    # offered_tools.py). Empty for a run without a profile: the built-in catalog only.
    profile_hash: str = ""
    agent_name: str = ""


class ToolResult(Contract):
    tool_use_id: str
    content: str
    is_error: bool = False


class ToolCallRecord(WireContract):
    WIRE_OMITS = ("error",)

    turn: int
    tool_use_id: str
    name: str
    ok: bool
    error: str | None = None


# --- progress, state and outcome --------------------------------------------------


# `mcp`: what the run's MCP servers offer (a server that offers nothing, and why).
# `customer`: a question `ask_customer` sent, the wait for the answer, the answer.
EventKind = Literal[
    "turn",
    "tool_call",
    "tool_result",
    "pause",
    "approval",
    "context",
    "outcome",
    "mcp",
    "customer",
]


class RunEvent(Contract):
    """One line of progress, as `signoff run --wait` and the UI show it."""

    at: datetime
    turn: int
    kind: EventKind
    text: str


class RunOutcome(WireContract):
    WIRE_OMITS = (
        "detail",
        "final_text",
        "effects_performed",
        "not_performed",
        "effects_unknown",
        "decisions",
        "turn_usage",
    )

    run_id: str
    status: FinalStatus
    reason: OutcomeReason
    detail: str = ""
    final_text: str | None = None
    turns_used: int
    usage: Usage
    tool_calls: list[ToolCallRecord]
    effects_performed: list[str] = []
    not_performed: list[str] = []
    # Actions whose outcome is unknown (workflows/unknown_effects.py): `signoff reconcile`.
    effects_unknown: list[UnknownEffect] = []
    decisions: list[DecisionRecord] = []
    cost_usd: Decimal = Decimal(0)
    turn_usage: list[TurnUsage] = []
    model: ModelRef
    scripted: bool

    @property
    def tokens_used(self) -> int:
        return self.usage.total


class RunState(Contract):
    """What the `state` query returns while the run lives and after it ended."""

    run_id: str
    tenant_id: str
    ticket_id: str
    status: RunStatus
    turns_used: int
    usage: Usage
    step_budget: int
    token_budget: int
    deadline: datetime
    model: ModelRef
    tool_calls: list[ToolCallRecord]
    events: list[RunEvent]
    pending_actions: list[PendingAction] = []
    decisions: list[DecisionRecord] = []
    cost_usd: Decimal = Decimal(0)
    # Who asked for the run: they may not decide on its actions.
    actor_id: str | None = None
    turn_usage: list[TurnUsage] = []
    effects_unknown: list[UnknownEffect] = []
    # Approved actions that wait for their connector (workflows/effect_waits.py).
    effects_waiting: list[EffectWaiting] = []
    outcome: RunOutcome | None = None
    # Since when the run waits for the customer's answer (workflows/customer_wait.py).
    waiting_for_customer_since: datetime | None = None

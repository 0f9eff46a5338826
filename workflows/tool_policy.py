"""A tool's policy in a profile: its risk class and how the gate approves its calls.

Its own module so that the contracts of every kind of tool (the built-in ones in
`profile_contracts.py`, those of MCP servers in `mcp_tools.py`) share it without
importing each other. Fail-closed defaults: see `profile_contracts.py`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from workflows.actions import ApprovalMode
from workflows.approval_policy import DEFAULT_APPROVAL_TTL
from workflows.contract_base import Identifier
from workflows.exposure import ArgumentName, ExposureRule
from workflows.known_tools import ProfileRisk
from workflows.profile_values import Duration, Money, WholeNumber, format_duration, problem
from workflows.review_card import ReviewCard
from workflows.wire_contract import WireContract

NEEDS_APPROVAL: tuple[ApprovalMode, ...] = ("confirm", "review")
# Most approvers a `review` may ask for, and most escalations: past these a request
# would wait on more people than any team has on call.
MOST_APPROVALS = 10
MOST_ESCALATIONS = 5
ExpiryAction = Literal["reject", "escalate"]
# The keys of N of M and chains (`review` only) and of escalation (confirm or review).
REVIEW_KEYS = ("approvals", "one_from", "chain")
ESCALATION_KEYS = ("escalate_to", "escalation_ttl", "max_escalations", "keep_approvals")
# How long one attempt of a tool's call may take (`call_timeout`): under a second no
# remote tool answers; past an hour a worker that died mid-call would go unnoticed for
# as long (the call's activity does not heartbeat).
LEAST_CALL_TIMEOUT = timedelta(seconds=1)
MOST_CALL_TIMEOUT = timedelta(hours=1)


class ToolPolicy(WireContract):
    """How the gate treats calls of one tool. `confirm` needs one reviewer, `review` two
    different ones, `deny` refuses every call, `auto` runs it without a reviewer."""

    # Every run's request carries a policy per offered tool, most of these unset.
    WIRE_OMITS = (
        "four_eyes_above",
        "passkey_above",
        "approval_ttl",
        "approvals",
        "one_from",
        "escalate_to",
        "escalation_ttl",
        "max_escalations",
        "keep_approvals",
        "call_timeout",
        "exposure",
        "card",
        "reason_argument",
        "category_argument",
    )

    risk: ProfileRisk = "irreversible"
    approval: ApprovalMode
    # Above this amount (the tool's policy hook measures it: for refund, the order's
    # cumulative exposure) a `confirm` needs a second reviewer.
    four_eyes_above: Money | None = None
    # Above this amount (the action's exposure, as `exposure` below declares it; any call
    # of a tool without one, which cannot be measured) each approval needs the reviewer's
    # passkey (`signoff/config/passkey_policy.py`).
    passkey_above: Money | None = None
    approval_ttl: Duration | None = Field(default=None, validate_default=True)
    approver_roles: tuple[Identifier, ...] = Field(default=(), validate_default=True)
    editable: tuple[str, ...] = Field(default=(), validate_default=True)
    # N of M (`approval_policies.md`): `review` needs `approvals` different reviewers
    # (2 when unset), one of them holding `one_from`; or an ordered `chain` of roles,
    # one approval per step, in order.
    approvals: WholeNumber | None = None
    one_from: Identifier | None = None
    chain: tuple[Identifier, ...] = ()
    # What expiry does: `reject` (the model is told "no decision in time") or
    # `escalate` to the role `escalate_to` with a new time to live, at most
    # `max_escalations` times; `keep_approvals`: approvals given before an escalation
    # still count after it.
    on_expiry: ExpiryAction = "reject"
    escalate_to: Identifier | None = None
    escalation_ttl: Duration | None = None
    max_escalations: WholeNumber | None = None
    keep_approvals: bool = False
    # How long one attempt of a call of this tool may take before it is tried again
    # (`call_timeout` below); unset, the engine's default for its kind of call.
    call_timeout: Duration | None = None
    # Which arguments hold the money, its currency and the order (`workflows/exposure.py`);
    # unset, the tool's actions have no amount, whatever their arguments are called.
    exposure: ExposureRule | None = None
    # Which argument holds the agent's stated reason, shown boxed to the reviewer; and
    # which one a standing rule's `category` term reads (`workflows/rule_contracts.py`).
    # Unset, none does, whatever the arguments are called.
    reason_argument: ArgumentName | None = None
    category_argument: ArgumentName | None = None
    # How a reviewer sees its actions (`workflows/review_card.py`); unset, the default
    # card: the tool's name and every argument.
    card: ReviewCard | None = None

    @model_validator(mode="before")
    @classmethod
    def _default_approval(cls, data: Any) -> Any:
        if isinstance(data, dict) and "approval" not in data:
            return {**data, "approval": "auto" if data.get("risk") == "read" else "review"}
        return data

    @field_validator("approval")
    @classmethod
    def _read_is_auto(cls, approval: ApprovalMode, info: ValidationInfo) -> ApprovalMode:
        if info.data.get("risk") == "read" and approval != "auto":
            raise problem(f"a read tool takes no approval mode ({approval!r} given); allowed: auto")
        return approval

    @field_validator(
        "four_eyes_above", "passkey_above", "approval_ttl", "approver_roles", "editable"
    )
    @classmethod
    def _only_when_approved(cls, value: Any, info: ValidationInfo) -> Any:
        if "approval" not in info.data:  # refused already, with its own message
            return value
        approval = info.data["approval"]
        given = value is not None and value != ()
        if given and approval not in NEEDS_APPROVAL:
            whom = "a read tool" if info.data.get("risk") == "read" else f"approval {approval!r}"
            raise problem(f"applies only to approval confirm or review, not to {whom}")
        if given and info.field_name == "four_eyes_above" and approval == "review":
            raise problem(
                "applies only to approval confirm: review always needs at least two "
                "reviewers (its `approvals`)"
            )
        if approval in NEEDS_APPROVAL and info.field_name == "approval_ttl" and value is None:
            return DEFAULT_APPROVAL_TTL
        if approval in NEEDS_APPROVAL and info.field_name == "approver_roles" and not value:
            raise problem(
                f"a tool with approval {approval!r} names the roles that may approve it, "
                'e.g. approver_roles = ["refund_approver"]'
            )
        return value

    @model_validator(mode="after")
    def _review_and_escalation(self) -> ToolPolicy:
        given = [key for key in (*REVIEW_KEYS, *ESCALATION_KEYS) if _given(getattr(self, key))]
        if self.on_expiry == "escalate":
            given.append("on_expiry")
        if given and self.approval not in NEEDS_APPROVAL:
            raise problem(
                f"applies only to approval confirm or review, not to approval {self.approval!r}",
                key=given[0],
            )
        for key in REVIEW_KEYS:
            if _given(getattr(self, key)) and self.approval != "review":
                raise problem(
                    'applies only to approval = "review": confirm needs one reviewer', key=key
                )
        _check_approvals(self)
        _check_escalation(self)
        _check_call_timeout(self)
        if self.exposure is not None and self.risk == "read":
            raise problem("a read tool puts nothing at stake", key="exposure")
        for key in ("reason_argument", "category_argument"):
            if getattr(self, key) is not None and self.risk == "read":
                raise problem("a read tool's calls are neither reviewed nor ruled on", key=key)
        return self

    def named_arguments(self) -> dict[str, tuple[str, ...]]:
        """The arguments this policy names, by key (editable, exposure, card, reason and
        category): each must be an argument of the tool, which its loader checks against
        the tool's schema."""
        return {
            "editable": self.editable,
            "exposure": () if self.exposure is None else self.exposure.arguments(),
            "card": () if self.card is None else tuple(self.card.arguments),
            "reason_argument": tuple(filter(None, (self.reason_argument,))),
            "category_argument": tuple(filter(None, (self.category_argument,))),
        }

    def approvals_needed(self) -> int:
        """How many different reviewers a `review` needs: the chain's length, `approvals`,
        or two (four eyes)."""
        if self.chain:
            return len(self.chain)
        return self.approvals if self.approvals is not None else 2

    def deciding_roles(self) -> tuple[str, ...]:
        """Every role whose holder may approve some step: the approver roles, the
        required one, the chain's and the escalation's."""
        named = [*self.approver_roles, *filter(None, (self.one_from,)), *self.chain]
        if self.on_expiry == "escalate" and self.escalate_to is not None:
            named.append(self.escalate_to)
        return tuple(dict.fromkeys(named))


def _given(value: Any) -> bool:
    return value is not None and value != () and value is not False


def _check_approvals(policy: ToolPolicy) -> None:
    if policy.approvals is not None and not 2 <= policy.approvals <= MOST_APPROVALS:
        raise problem(
            f"review needs from 2 to {MOST_APPROVALS} approvals ({policy.approvals} given); "
            'for one reviewer use approval = "confirm"',
            key="approvals",
        )
    if policy.chain:
        if len(policy.chain) < 2 or len(policy.chain) > MOST_APPROVALS:
            raise problem(
                f"a chain names from 2 to {MOST_APPROVALS} roles, in order "
                f'({len(policy.chain)} given), e.g. chain = ["support_lead", "finance"]',
                key="chain",
            )
        if policy.one_from is not None:
            raise problem("give one_from or chain, not both: a chain names every role", "chain")
        if policy.approvals is not None and policy.approvals != len(policy.chain):
            raise problem(
                f"a chain of {len(policy.chain)} roles needs {len(policy.chain)} approvals "
                f"({policy.approvals} given); leave approvals out",
                key="approvals",
            )


def _check_call_timeout(policy: ToolPolicy) -> None:
    if policy.call_timeout is None:
        return
    if policy.approval == "deny":
        raise problem('a tool with approval = "deny" is never called', key="call_timeout")
    if not LEAST_CALL_TIMEOUT <= policy.call_timeout <= MOST_CALL_TIMEOUT:
        raise problem(
            f'from "{format_duration(LEAST_CALL_TIMEOUT)}" to '
            f'"{format_duration(MOST_CALL_TIMEOUT)}" '
            f"({format_duration(policy.call_timeout)!r} given): a longer call would leave a "
            "worker that died mid-call unnoticed for as long",
            key="call_timeout",
        )


def call_timeout(policy: ToolPolicy | None, default: timedelta) -> timedelta:
    """How long one attempt of a call of the tool may take: its policy's `call_timeout`,
    else `default` (the engine's for that kind of call)."""
    if policy is None or policy.call_timeout is None:
        return default
    return policy.call_timeout


def _check_escalation(policy: ToolPolicy) -> None:
    if policy.on_expiry == "reject":
        for key in ESCALATION_KEYS:
            if _given(getattr(policy, key)):
                raise problem('applies only with on_expiry = "escalate"', key=key)
        return
    for key, example in (
        ("escalate_to", '"support_lead"'),
        ("escalation_ttl", '"4h"'),
        ("max_escalations", "1"),
    ):
        if getattr(policy, key) is None:
            raise problem(f'on_expiry = "escalate" needs {key}, e.g. {key} = {example}', key=key)
    assert policy.max_escalations is not None
    if policy.max_escalations > MOST_ESCALATIONS:
        raise problem(
            f"at most {MOST_ESCALATIONS} escalations ({policy.max_escalations} given)",
            key="max_escalations",
        )

"""A tool's policy in a profile: its risk class and how the gate approves its calls.

Its own module so that the contracts of every kind of tool (the built-in ones in
`profile_contracts.py`, those of MCP servers in `mcp_tools.py`) share it without
importing each other. Fail-closed defaults: see `profile_contracts.py`.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from workflows.actions import ApprovalMode
from workflows.approval_policy import DEFAULT_APPROVAL_TTL
from workflows.contract_base import Contract, Identifier
from workflows.known_tools import ProfileRisk
from workflows.profile_values import Duration, Money, problem

NEEDS_APPROVAL: tuple[ApprovalMode, ...] = ("confirm", "review")


class ToolPolicy(Contract):
    """How the gate treats calls of one tool. `confirm` needs one reviewer, `review` two
    different ones, `deny` refuses every call, `auto` runs it without a reviewer."""

    risk: ProfileRisk = "irreversible"
    approval: ApprovalMode
    # Above this amount (the tool's policy hook measures it: for refund, the order's
    # cumulative exposure) a `confirm` needs a second reviewer.
    four_eyes_above: Money | None = None
    # Above this amount (the action's `amount` argument; any call of a tool without one)
    # each approval needs the reviewer's passkey (`signoff/config/passkey_policy.py`).
    passkey_above: Money | None = None
    approval_ttl: Duration | None = Field(default=None, validate_default=True)
    approver_roles: tuple[Identifier, ...] = Field(default=(), validate_default=True)
    editable: tuple[str, ...] = Field(default=(), validate_default=True)

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
            raise problem("applies only to approval confirm: review always needs two reviewers")
        if approval in NEEDS_APPROVAL and info.field_name == "approval_ttl" and value is None:
            return DEFAULT_APPROVAL_TTL
        if approval in NEEDS_APPROVAL and info.field_name == "approver_roles" and not value:
            raise problem(
                f"a tool with approval {approval!r} names the roles that may approve it, "
                'e.g. approver_roles = ["refund_approver"]'
            )
        return value

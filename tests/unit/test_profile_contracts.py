"""Profile contracts: fail-closed defaults, the rules inside a profile, and a profile that
validates again when read back from a run's history (without the tool catalog)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from workflows.profile_contracts import (
    KNOWN_TOOLS,
    AgentProfile,
    ProfileSet,
    RunProfile,
    ToolPolicy,
)
from workflows.tool_catalog import CATALOG, NoArguments, ToolDefinition
from workflows.tool_policy import call_timeout

# The built-in tools only: what other test modules register must not change these messages.
CONTEXT = {KNOWN_TOOLS: CATALOG}
REFUND_POLICY = {"approval": "confirm", "four_eyes_above": "200.00", "approver_roles": ["ops"]}


def agent(**changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "system_prompt": "Answer the ticket.",
        "model": {"provider": "scripted", "model_id": "demo"},
        "tools": ["read_ticket", "get_order", "refund"],
        "budgets": {"default": {"steps": 8, "tokens": 1000, "deadline": "2h"}},
        "tool_policy": {"refund": REFUND_POLICY},
    }
    document.update(changes)
    return document


def with_policies(**policies: dict[str, Any]) -> dict[str, Any]:
    return agent(tool_policy={"refund": REFUND_POLICY, **policies})


def errors(model: type[BaseModel], document: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(document, context=CONTEXT)
    # The loader appends a rule's `key` (the entry below the field) to the key path.
    return [
        (
            ".".join([*(str(part) for part in item["loc"]), *keys(item.get("ctx", {}))]),
            item["msg"],
        )
        for item in caught.value.errors(include_url=False)
    ]


def keys(context: dict[str, Any]) -> list[str]:
    return [context["key"]] if "key" in context else []


def test_known_tools_take_their_own_risk_and_irreversible_ones_default_to_review() -> None:
    reads = agent(tools=["read_ticket", "get_order"], tool_policy={})
    profile = AgentProfile.model_validate(reads, context=CONTEXT)
    assert profile.policy("get_order").risk == "read"
    assert profile.policy("get_order").approval == "auto"
    with pytest.raises(ValidationError, match="names the roles that may approve it"):
        AgentProfile.model_validate(agent(tool_policy={}), context=CONTEXT)  # refund: review


def test_an_irreversible_tool_without_a_mode_is_reviewed_by_two() -> None:
    policy = ToolPolicy.model_validate({"approver_roles": ["ops"]})
    assert (policy.risk, policy.approval) == ("irreversible", "review")
    assert policy.approval_ttl == timedelta(hours=24)
    assert policy.editable == ()


def test_a_read_tool_takes_no_approval_mode() -> None:
    document = with_policies(get_order={"approval": "confirm"})
    assert errors(AgentProfile, document) == [
        (
            "tool_policy.get_order.approval",
            "a read tool takes no approval mode ('confirm' given); allowed: auto",
        )
    ]


def test_an_irreversible_tool_cannot_be_declared_read() -> None:
    document = agent(tool_policy={"refund": {"risk": "read"}})
    assert errors(AgentProfile, document) == [
        ("tool_policy.refund.risk", "refund is irreversible; its risk cannot be 'read'")
    ]


def test_approval_settings_on_a_tool_nobody_approves_are_refused() -> None:
    for key, value in (
        ("four_eyes_above", "10.00"),
        ("approval_ttl", "1h"),
        ("approver_roles", ["ops"]),
        ("editable", ["amount"]),
    ):
        found = errors(ToolPolicy, {"approval": "auto", key: value})
        assert found == [
            (key, "applies only to approval confirm or review, not to approval 'auto'")
        ]


def test_four_eyes_above_is_for_confirm_only() -> None:
    found = errors(
        ToolPolicy, {"approval": "review", "four_eyes_above": "1", "approver_roles": ["a"]}
    )
    assert found == [
        (
            "four_eyes_above",
            "applies only to approval confirm: review always needs at least two reviewers "
            "(its `approvals`)",
        )
    ]


def test_amounts_are_strings_and_durations_have_a_unit() -> None:
    base = {"approval": "confirm", "approver_roles": ["a"]}
    assert errors(ToolPolicy, {**base, "four_eyes_above": 200.1}) == [
        ("four_eyes_above", 'an amount is a decimal string, e.g. "200.00" (200.1 given)')
    ]
    assert errors(ToolPolicy, {**base, "approval_ttl": "24"}) == [
        (
            "approval_ttl",
            "a duration is a whole number and a unit (s, m, h or d), e.g. \"24h\" ('24' given)",
        )
    ]
    policy = ToolPolicy.model_validate({**base, "four_eyes_above": "200.00", "approval_ttl": "90m"})
    assert policy.four_eyes_above == Decimal("200.00")
    assert policy.approval_ttl == timedelta(minutes=90)


def test_a_call_timeout_is_for_any_tool_that_is_called_within_its_bounds() -> None:
    read = ToolPolicy.model_validate({"risk": "read", "call_timeout": "5m"})
    assert read.call_timeout == timedelta(minutes=5)
    assert call_timeout(read, timedelta(seconds=60)) == timedelta(minutes=5)
    gated = {"approval": "confirm", "approver_roles": ["a"]}
    assert ToolPolicy.model_validate(gated).call_timeout is None
    assert call_timeout(ToolPolicy.model_validate(gated), timedelta(seconds=7)) == timedelta(
        seconds=7
    )
    assert call_timeout(None, timedelta(seconds=7)) == timedelta(seconds=7)
    assert errors(ToolPolicy, {"approval": "deny", "call_timeout": "30s"}) == [
        ("call_timeout", 'a tool with approval = "deny" is never called')
    ]
    bounds = (
        'from "1s" to "1h" ({given!r} given): a longer call would leave a worker that '
        "died mid-call unnoticed for as long"
    )
    for given in ("2h", "1d"):
        assert errors(ToolPolicy, {**gated, "call_timeout": given}) == [
            ("call_timeout", bounds.format(given=given))
        ]
    for least_or_most in ("1s", "59m", "1h"):
        assert ToolPolicy.model_validate({**gated, "call_timeout": least_or_most}).call_timeout


def test_unknown_tool_and_unknown_key() -> None:
    assert errors(AgentProfile, agent(tools=["read_ticket", "refnd"])) == [
        (
            "tools",
            "unknown tool 'refnd'; allowed: ask_customer, get_order, read_ticket, refund, "
            "send_reply",
        )
    ]
    found = errors(AgentProfile, agent(temperature=0.2))
    assert found == [("temperature", "Extra inputs are not permitted")]


def test_a_policy_for_a_tool_not_offered_is_refused() -> None:
    found = errors(AgentProfile, agent(tools=["read_ticket", "get_order"]))
    assert found == [
        (
            "tool_policy.refund",
            "a policy for a tool this agent does not offer; add it to tools or remove it "
            "(tools: read_ticket, get_order)",
        )
    ]


def test_editable_names_real_arguments() -> None:
    refund = {**REFUND_POLICY, "editable": ["amount", "order"]}
    found = errors(AgentProfile, agent(tool_policy={"refund": refund}))
    assert found == [
        (
            "tool_policy.refund.editable",
            "'order' is not an argument of refund; allowed: amount, reason",
        )
    ]


def with_reply(policy: dict[str, Any]) -> dict[str, Any]:
    return {"refund": REFUND_POLICY, "send_reply": policy}


def test_reason_and_category_name_real_arguments_of_a_reviewed_tool() -> None:
    reply = {"approval": "confirm", "approver_roles": ["ops"], "category_argument": "topic"}
    tools = ["read_ticket", "get_order", "refund", "send_reply"]
    found = errors(AgentProfile, agent(tools=tools, tool_policy=with_reply(reply)))
    assert found == [
        (
            "tool_policy.send_reply.category_argument",
            "'topic' is not an argument of send_reply; allowed: text",
        )
    ]
    declared = {**reply, "category_argument": "text", "reason_argument": "text"}
    valid = AgentProfile.model_validate(
        agent(tools=tools, tool_policy=with_reply(declared)), context=CONTEXT
    )
    assert valid.tool_policy["send_reply"].category_argument == "text"
    refund = {**REFUND_POLICY, "reason_argument": "reason"}
    assert errors(AgentProfile, agent(tool_policy={"refund": refund})) == [
        (
            "tool_policy.refund.reason_argument",
            "refund states its reason in its own `reason` argument",
        )
    ]
    read = {"risk": "read", "category_argument": "x"}
    found = errors(AgentProfile, agent(tool_policy={"refund": REFUND_POLICY, "get_order": read}))
    assert (
        "tool_policy.get_order.category_argument",
        "a read tool's calls are neither reviewed nor ruled on",
    ) in found


def test_a_tool_whose_description_fails_the_linter_is_refused() -> None:
    vague = ToolDefinition("vague", "Does things.", NoArguments, "read")
    context = {KNOWN_TOOLS: {**CATALOG, "vague": vague}}
    with pytest.raises(ValidationError, match="the description of 'vague' fails the linter"):
        AgentProfile.model_validate(agent(tools=["vague"], tool_policy={}), context=context)


def test_budgets_need_a_default_and_other_kinds_inherit_from_it() -> None:
    budgets = {"default": {"steps": 8, "tokens": 1000, "deadline": "2h"}, "refund": {"steps": 4}}
    profile = AgentProfile.model_validate(agent(budgets=budgets), context=CONTEXT)
    assert profile.budget("refund").steps == 4
    assert profile.budget("refund").deadline == timedelta(hours=2)
    assert profile.budget("tracking") == profile.budget("default")
    assert errors(AgentProfile, agent(budgets={"refund": budgets["default"]})) == [
        ("budgets", "no [budgets.default] table: every agent needs one (given: refund)")
    ]


def test_a_step_budget_is_a_whole_number_within_the_cap() -> None:
    found = errors(
        AgentProfile, agent(budgets={"default": {"steps": 99, "tokens": 1, "deadline": "1h"}})
    )
    assert found == [("budgets.default.steps", "Input should be less than or equal to 30")]


def test_narrowing_names_offered_tools_only() -> None:
    found = errors(AgentProfile, agent(tenants={"globex": {"deny_tools": ["refunds"]}}))
    assert found == [
        (
            "tenants.globex.deny_tools",
            "'refunds' is not a tool of this agent; allowed: read_ticket, get_order, refund",
        )
    ]


def test_model_provider_rules() -> None:
    # Which providers exist, and which ids they take, is the loader's check against the
    # registry (tests/unit/test_model_providers.py); the contract holds the name's form.
    assert errors(AgentProfile, agent(model={"provider": "Open AI"}))[0][0] == "model.provider"
    assert errors(AgentProfile, agent(model={"provider": "auto", "model_id": "x"})) == [
        ("model.model_id", "provider 'auto' takes no model_id: it picks one itself")
    ]
    openai = agent(model={"provider": "openai", "model_id": "qwen3:4b"})
    profile = AgentProfile.model_validate(openai, context=CONTEXT)
    assert profile.model.choice() == "openai:qwen3:4b"


def test_the_only_agent_is_the_default_and_several_need_one_named() -> None:
    one = ProfileSet.model_validate({"name": "p", "agents": {"support": agent()}}, context=CONTEXT)
    assert one.default_agent == "support" and one.agent() is one.agents["support"]
    several = {"name": "p", "agents": {"support": agent(), "billing": agent()}}
    assert errors(ProfileSet, several) == [("default_agent", "Field required")]
    assert errors(ProfileSet, {**several, "default_agent": "sales"}) == [
        ("default_agent", "no agent 'sales' in this file; allowed: support, billing")
    ]


def test_without_the_catalog_every_tool_is_irreversible_unless_declared_read() -> None:
    found = errors_without_catalog(agent(tools=["get_order"], tool_policy={}))
    assert found == ["tool_policy.get_order.approver_roles"]


def errors_without_catalog(document: dict[str, Any]) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        AgentProfile.model_validate(document)
    return [".".join(str(part) for part in item["loc"]) for item in caught.value.errors()]


def test_a_run_profile_reads_back_from_json_without_the_catalog() -> None:
    profile = AgentProfile.model_validate(agent(), context=CONTEXT)
    run = RunProfile(profile_name="p", content_hash="0" * 64, agent_name="support", agent=profile)
    text = run.model_dump_json()
    assert '"approval_ttl":"1d"' in text and '"four_eyes_above":"200.00"' in text
    assert RunProfile.model_validate_json(text) == run

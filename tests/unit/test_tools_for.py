"""The tools a run is offered, narrowed by tenant and by the actor's roles: never widened."""

from __future__ import annotations

from typing import Any

from signoff.tools import known_tools
from workflows.profile_contracts import KNOWN_TOOLS, AgentProfile, tools_for

ALL = ["read_ticket", "get_order", "refund"]


def support(**narrowing: Any) -> AgentProfile:
    document = {
        "system_prompt": "Answer the ticket.",
        "model": {"provider": "auto"},
        "tools": ALL,
        "budgets": {"default": {"steps": 8, "tokens": 1000, "deadline": "2h"}},
        "tool_policy": {"refund": {"approval": "confirm", "approver_roles": ["ops"]}},
        **narrowing,
    }
    return AgentProfile.model_validate(document, context={KNOWN_TOOLS: known_tools()})


def test_a_tenant_without_refunds_is_never_offered_refund() -> None:
    agent = support(tenants={"globex": {"deny_tools": ["refund"]}})
    assert tools_for(agent, "globex", []) == ["read_ticket", "get_order"]
    assert tools_for(agent, "globex", ["refund_approver", "admin"]) == ["read_ticket", "get_order"]
    assert tools_for(agent, "demo", []) == ALL


def test_an_allow_list_keeps_only_its_tools_in_the_agents_order() -> None:
    agent = support(tenants={"globex": {"allow_tools": ["get_order", "read_ticket"]}})
    assert tools_for(agent, "globex", []) == ["read_ticket", "get_order"]


def test_every_role_that_applies_narrows_and_none_widens() -> None:
    agent = support(
        tenants={"globex": {"deny_tools": ["refund"]}},
        roles={
            "trainee": {"deny_tools": ["refund"]},
            "reader": {"allow_tools": ["read_ticket"]},
            "senior": {"allow_tools": ALL},
        },
    )
    assert tools_for(agent, "demo", ["trainee"]) == ["read_ticket", "get_order"]
    assert tools_for(agent, "demo", ["trainee", "reader"]) == ["read_ticket"]
    assert tools_for(agent, "globex", ["senior"]) == ["read_ticket", "get_order"]
    assert tools_for(agent, "demo", ["senior", "someone_else"]) == ALL

"""A tool activity runs only a tool the run's own agent offers, judged on the profile the
worker holds by the hash its input names (activities/offered_tools.py); a call for
anything else is refused on the audit, and a hash the worker does not hold is retried."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, select
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.held_profiles import HeldProfiles, ProfileNotHeld
from activities.offered_tools import not_offered
from activities.store.database import use_session
from activities.store.schema import DecisionRow
from activities.tool_gateway import ToolGateway
from signoff.config.profiles import load_profile_file
from workflows.contracts import ToolCallInput

TEAM = load_profile_file(Path(__file__).parents[1] / "tools" / "team_profile.toml")
HELD = HeldProfiles.of([TEAM])


def why(profile_hash: str, tool: str, tenant_id: str = "demo") -> str | None:
    return not_offered(HELD, profile_hash, "support", tenant_id, tool)


def test_the_agents_own_tools_are_offered() -> None:
    assert why(TEAM.content_hash, "lookup_stock") is None
    assert why(TEAM.content_hash, "refund") is None


def test_a_tool_the_agent_does_not_offer_is_not() -> None:
    said = why(TEAM.content_hash, "send_reply")
    assert said is not None and "does not offer 'send_reply'" in said


def test_a_tool_the_tenant_is_denied_is_not_offered_to_its_runs() -> None:
    said = why(TEAM.content_hash, "refund", tenant_id="globex")
    assert said is not None and "to this tenant" in said


def test_a_run_without_a_profile_gets_the_built_in_catalog_only() -> None:
    assert why("", "read_ticket") is None
    said = why("", "lookup_stock")
    assert said is not None and "built-in catalog" in said


def test_a_profile_the_worker_does_not_hold_is_named() -> None:
    with pytest.raises(ProfileNotHeld, match="does not hold the profile"):
        why("f" * 64, "lookup_stock")


def call(profile_hash: str, name: str) -> ToolCallInput:
    return ToolCallInput(
        run_id="run-demo-1",
        tenant_id="demo",
        ticket_id="T-1042",
        tool_use_id="toolu_1",
        name=name,
        arguments={},
        idempotency_key=f"run-demo-1:{name}",
        profile_hash=profile_hash,
        agent_name="support",
    )


async def test_run_tool_refuses_a_tool_the_agent_does_not_offer_on_the_audit(
    seeded: Engine,
) -> None:
    gateway = ToolGateway(seeded, profiles=HELD)
    result = await ActivityEnvironment().run(
        gateway.run_tool, call(TEAM.content_hash, "send_reply")
    )
    assert result.is_error and "not offered to this run" in result.content
    with use_session(seeded) as session:
        (refused,) = session.scalars(
            select(DecisionRow.reason).where(DecisionRow.kind == "refused")
        )
    assert "send_reply" in refused and "does not offer" in refused


async def test_prepare_refuses_a_tool_the_agent_does_not_offer(seeded: Engine) -> None:
    gateway = ToolGateway(seeded, profiles=HELD)
    prepared = await ActivityEnvironment().run(
        gateway.prepare_tool_call, call(TEAM.content_hash, "send_reply")
    )
    assert prepared.arguments is None and "not offered to this run" in prepared.problem


async def test_run_tool_retries_a_profile_it_does_not_hold(seeded: Engine) -> None:
    gateway = ToolGateway(seeded, profiles=HELD)
    with pytest.raises(ApplicationError) as raised:
        await ActivityEnvironment().run(gateway.run_tool, call("f" * 64, "lookup_stock"))
    assert raised.value.type == "ProfileNotHeld" and not raised.value.non_retryable

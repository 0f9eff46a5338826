"""A standing rule approves any kind of tool's call through the hold that starts its wait
(activities/hold_rules.py): the refund, `send_reply`, a team's Python tool
(`issue_voucher`) and an MCP tool (`shop__issue_voucher`), on the scenario and fixtures
of test_every_tool_kind. No reviewer is asked, the tool's own effect checks and spends
the rule, once, and the audit says so."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from signoff.config.profiles import LoadedProfiles
from tests.mcp.conftest import RunningServer
from tests.mcp.test_every_tool_kind import (  # noqa: F401  (the fixtures)
    KINDS,
    effects_made,
    no_vouchers_yet,
    profiles,
    shop,
)
from tests.rules import make_rule
from tests.workflow.approvals import TEST_SIGNER, gate_run
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from tests.workflow.test_python_tools import on_profile
from tests.workflow.test_standing_rules import audit_kinds

pytestmark = pytest.mark.slow


def rule_terms(kind: str) -> dict[str, object]:
    """A rule of the kind's tool that covers the call: its money where it has some."""
    money = KINDS[kind].money
    if money is None:
        return {"tool": KINDS[kind].call[0], "max_amount": None, "currency": None}
    return {"tool": KINDS[kind].call[0], "max_amount": "100.00", "currency": money[1]}


@pytest.mark.parametrize("kind", list(KINDS))
async def test_a_rule_approves_every_kind_of_tool_through_its_hold(
    kind: str,
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    profiles: LoadedProfiles,  # noqa: F811
    shop: RunningServer,  # noqa: F811
) -> None:
    rule = make_rule(seeded_engine, TEST_SIGNER, **rule_terms(kind))
    model = FakeModel().enqueue(tool_reply(KINDS[kind].call), text_reply("Done."))
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(profiles)) as handle:
        outcome = await handle.result()
    await replay(handle)

    assert outcome.status == "completed"
    assert [(d.kind, d.reviewer_id) for d in outcome.decisions] == [("rule_approved", "admin")]
    assert rule.id in outcome.decisions[0].reason
    assert effects_made(kind, seeded_engine, shop, handle.id) == 1
    assert audit_kinds(seeded_engine, handle.id) == ["rule_approved", "rule_used", "executed"]

"""A standing rule's category reads the argument the tool's policy names as its category
(`category_argument`), for a team's Python tool as for any other: a covered call is
approved by the rule and carried out by the tool's own effect; a call under another
label, or of a tool whose policy names no category argument, waits for a reviewer.
No argument is a category by its name (time-skipping server, real store)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from signoff.config.profiles import LoadedProfiles, load_profile_file
from tests.rules import make_rule
from tests.tools import team_tools
from tests.workflow.approvals import TEST_SIGNER, gate_run, pending_actions
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from tests.workflow.test_python_tools import TEAM_PROFILE, on_profile
from tests.workflow.test_standing_rules import audit_kinds

LATE = "late delivery"


def team_profile(tmp_path: Path, declares_category: bool) -> LoadedProfiles:
    """The team's profile, its voucher's `reason` named as its category or not."""
    text = TEAM_PROFILE.read_text()
    if declares_category:
        text = text.replace(
            'reason_argument = "reason"\n',
            'reason_argument = "reason"\ncategory_argument = "reason"\n',
        )
        assert 'category_argument = "reason"' in text
    path = tmp_path / "team.toml"
    path.write_text(text)
    return load_profile_file(path)


def voucher(reason: str) -> FakeModel:
    return FakeModel().enqueue(
        tool_reply(("issue_voucher", {"value": 15, "reason": reason})), text_reply("Done.")
    )


def vouchers_of(handle: WorkflowHandle) -> list[str]:
    return [key for key in team_tools.CALLS if key.startswith(handle.id)]


async def test_a_rule_approves_a_call_under_the_category_its_policy_names(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    profiles = team_profile(tmp_path, declares_category=True)
    rule = make_rule(
        seeded_engine, TEST_SIGNER, tool="issue_voucher", max_amount="20.00", category=LATE
    )
    model = voucher(LATE)
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(profiles)) as handle:
        outcome = await handle.result()
    await replay(handle)

    assert outcome.status == "completed"
    assert [(d.kind, d.reviewer_id) for d in outcome.decisions] == [("rule_approved", "admin")]
    assert rule.id in outcome.decisions[0].reason
    assert len(vouchers_of(handle)) == 1
    assert audit_kinds(seeded_engine, handle.id) == ["rule_approved", "rule_used", "executed"]


async def test_a_call_under_another_category_waits_for_a_reviewer(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    profiles = team_profile(tmp_path, declares_category=True)
    make_rule(seeded_engine, TEST_SIGNER, tool="issue_voucher", max_amount="20.00", category=LATE)
    model = voucher("a dent in the lid")
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(profiles)) as handle:
        (action,) = await pending_actions(handle)
        assert action.category_argument == "reason"
        assert action.rule_grant is None
        await handle.cancel()
    assert vouchers_of(handle) == []
    assert "rule_used" not in audit_kinds(seeded_engine, handle.id)


async def test_no_argument_is_a_category_unless_the_policy_names_it(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    """The same call, whose `reason` says exactly the rule's category, on the team's
    profile as shipped (its policy names no category argument): the rule does not apply."""
    profiles = team_profile(tmp_path, declares_category=False)
    make_rule(seeded_engine, TEST_SIGNER, tool="issue_voucher", max_amount="20.00", category=LATE)
    model = voucher(LATE)
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(profiles)) as handle:
        (action,) = await pending_actions(handle)
        assert action.category_argument is None
        assert action.rule_grant is None
        assert action.reason == LATE  # its stated reason: `reason_argument` says so
        await handle.cancel()
    assert vouchers_of(handle) == []

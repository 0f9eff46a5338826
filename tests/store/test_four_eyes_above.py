"""A profile's `four_eyes_above` applies: the worker's profiles lower the tenant's review
threshold where they ask less, in the state a refund is proposed on and in the effect's
own reading of it; and a worker whose profiles deny the refund tool refunds nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from activities.refunds import RefundActivities
from activities.store import list_refunds, use_session
from activities.store.refunds import read_action_state
from activities.store.schema import DecisionRow
from signoff.config.profiles import load_profile_file
from tests.store.proofs import (
    PROOF_KEYS,
    RUN_ID,
    as_run,
    proven_action,
    proven_command,
    signed_approval,
)
from workflows.actions import ActionStateRequest, PendingAction
from workflows.approval_policy import recomputed_hash, state_hash
from workflows.effect_requirements import effect_requirements, judged_threshold
from workflows.profile_contracts import ProfileSet

AGENT = """
[agents.{name}]
system_prompt = "You answer one support ticket. Use the tools, never guesses."
tools = ["read_ticket", "get_order", "refund"]
model = {{ provider = "scripted" }}

[agents.{name}.budgets.default]
steps = 6
tokens = 100000
deadline = "24h"

[agents.{name}.tool_policy.refund]
risk = "irreversible"
approval = "{approval}"
{extra}
"""
CONFIRM = 'approver_roles = ["refund_approver"]\n'


def profiles(tmp_path: Path, *agents: tuple[str, str, str]) -> ProfileSet:
    path = tmp_path / "agents.toml"
    text = 'default_agent = "support"\n' + "".join(
        AGENT.format(name=name, approval=approval, extra=extra) for name, approval, extra in agents
    )
    path.write_text(text, encoding="utf-8")
    return load_profile_file(path).profiles


def test_the_lowest_four_eyes_above_of_the_agents_that_offer_the_tool_counts(
    tmp_path: Path,
) -> None:
    two = profiles(
        tmp_path,
        ("support", "confirm", CONFIRM + 'four_eyes_above = "50.00"\n'),
        ("billing", "confirm", CONFIRM + 'four_eyes_above = "10.00"\n'),
    )
    needs = effect_requirements(two, "refund")
    assert needs.four_eyes_above_minor == 1000
    assert judged_threshold(20_000, needs) == 1000
    assert judged_threshold(500, needs) == 500  # the tenant's, where it asks less
    none = effect_requirements(profiles(tmp_path, ("support", "confirm", CONFIRM)), "refund")
    assert none.four_eyes_above_minor is None and judged_threshold(20_000, none) == 20_000


def capped_action(store: Engine, needs_profiles: ProfileSet, amount_minor: int) -> PendingAction:
    """The store tests' action, proposed on the state the capped worker reads."""
    state = read_action_state(
        store, "demo", "T-2210", effect_requirements(needs_profiles, "refund")
    )
    action = proven_action(store, amount_minor).model_copy(
        update={"state": state, "state_hash": state_hash(state)}
    )
    return action.model_copy(update={"action_hash": recomputed_hash(action, RUN_ID)})


async def test_above_the_profiles_four_eyes_one_approval_refunds_nothing(
    store: Engine, tmp_path: Path
) -> None:
    capped = profiles(tmp_path, ("support", "confirm", CONFIRM + 'four_eyes_above = "10.00"\n'))
    activities = RefundActivities(store, PROOF_KEYS, profiles=capped)
    state = await as_run().run(
        activities.read_action_state, ActionStateRequest(tenant_id="demo", ticket_id="T-2210")
    )
    # The demo tenant's own threshold is 200.00; the profile's 10.00 is what the run sees.
    assert state.review_threshold_minor == 1000

    action = capped_action(store, capped, 2000)
    one = await as_run().run(
        activities.execute_refund,
        proven_command(action, [signed_approval(store, action, "alice")]),
    )
    assert one.status == "approver_invalid"
    assert "above the threshold of 10.00, which needs 2 different reviewers" in one.message
    assert list_refunds(store, "demo", "C-2210") == []

    again = capped_action(store, capped, 2000).model_copy(update={"tool_use_id": "call-2"})
    again = again.model_copy(update={"action_hash": recomputed_hash(again, RUN_ID)})
    proofs = [signed_approval(store, again, "alice"), signed_approval(store, again, "bob")]
    two = await as_run().run(activities.execute_refund, proven_command(again, proofs))
    assert two.status == "refunded", two.message
    [row] = list_refunds(store, "demo", "C-2210")
    assert row.approver_list == ["alice", "bob"]


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
async def test_a_worker_whose_profiles_deny_the_refund_refunds_nothing(
    store: Engine, tmp_path: Path
) -> None:
    denying = profiles(
        tmp_path,
        ("support", "confirm", CONFIRM),
        ("locked", "deny", ""),
    )
    activities = RefundActivities(store, PROOF_KEYS, profiles=denying)
    action = proven_action(store, 2000)
    answer = await as_run().run(
        activities.execute_refund,
        proven_command(action, [signed_approval(store, action, "alice")]),
    )
    assert answer.status == "refused"
    assert "agent 'locked' of this worker's profiles denies refund" in answer.message
    assert list_refunds(store, "demo", "C-2210") == []
    with use_session(store) as session:
        kinds = session.scalars(
            select(DecisionRow.kind).where(DecisionRow.action_hash == action.action_hash)
        ).all()
    assert "refused" in kinds  # the refusal is on the record

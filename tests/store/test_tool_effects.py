"""The effect of any irreversible tool, on the store's side (activities/store/
tool_effects.py): the command proves itself against the worker's own profiles, the
approvers are read again, the key is claimed once, and every refusal is on the record.
The caller is the run here (the workflow tests show another caller refused)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine, select

from activities.store.connector_schema import ToolEffect
from activities.store.database import use_session
from activities.store.effect_proofs import ProofCheck
from activities.store.reviewer_accounts import set_active
from activities.store.schema import DecisionRow
from activities.store.tool_effects import claim_effect, fail_effect, finish_effect
from signoff.config.profiles import load_profile_file
from tests.admin import ADMIN
from tests.store.proofs import PROOF_KEYS, RUN_ID, signed_approval
from workflows.actions import PendingAction, ToolActionCommand
from workflows.approval_policy import effect_key, recomputed_hash, state_hash
from workflows.effect_requirements import Requirements, effect_requirements
from workflows.tool_gate import NO_STATE

TEAM = load_profile_file(Path(__file__).parents[1] / "tools" / "team_profile.toml").profiles
CHECK = ProofCheck(keys=PROOF_KEYS, caller_run_id=RUN_ID)
NEEDS_ONE = effect_requirements(TEAM, "issue_voucher")


def voucher_action(value: str = "10") -> PendingAction:
    now = datetime.now(UTC)
    action = PendingAction(
        action_hash="",
        tool_use_id="call-1",
        tool="issue_voucher",
        arguments={"value": value, "reason": "late parcel"},
        targets={"tenant_id": "demo", "ticket_id": "T-1042"},
        reason="late parcel",
        policy_version="test",
        state=NO_STATE,
        state_hash=state_hash(NO_STATE),
        mode="confirm",
        required_approvals=1,
        requested_at=now,
        expires_at=now + timedelta(hours=2),
    )
    return action.model_copy(update={"action_hash": recomputed_hash(action, RUN_ID)})


def command(action: PendingAction, proofs: list) -> ToolActionCommand:  # type: ignore[type-arg]
    return ToolActionCommand(
        run_id=RUN_ID,
        tenant_id="demo",
        ticket_id="T-1042",
        actor_id="ops",
        idempotency_key=effect_key(RUN_ID, action.tool, action.action_hash),
        action=action,
        proofs=proofs,
    )


def refusals(engine: Engine) -> list[str]:
    with use_session(engine) as session:
        return list(
            session.scalars(select(DecisionRow.reason).where(DecisionRow.kind == "refused"))
        )


def test_the_worker_profiles_say_what_a_tool_needs() -> None:
    assert [(n.approvals, n.roles) for n in NEEDS_ONE.needed] == [(1, ("refund_approver",))]
    assert "no agent" in effect_requirements(TEAM, "send_fax").refusal
    assert effect_requirements(TEAM, "lookup_stock").needed == ()


def test_a_proven_call_is_claimed_once_and_a_retry_gets_its_output(seeded_engine: Engine) -> None:
    action = voucher_action()
    sent = command(action, [signed_approval(seeded_engine, action, "alice")])
    assert claim_effect(seeded_engine, sent, CHECK, NEEDS_ONE).status == "go"
    # A worker that died before the tool answered: the retry runs the tool again (same key).
    assert claim_effect(seeded_engine, sent, CHECK, NEEDS_ONE).status == "go"
    finish_effect(seeded_engine, sent, '{"code": "V-1"}')
    again = claim_effect(seeded_engine, sent, CHECK, NEEDS_ONE)
    assert (again.status, again.output) == ("done", '{"code": "V-1"}')
    with use_session(seeded_engine) as session:
        row = session.get(ToolEffect, sent.idempotency_key)
        assert row is not None and (row.status, row.approvers) == ("done", "alice")
        kinds = list(session.scalars(select(DecisionRow.kind)))
    assert kinds.count("executed") == 1


def test_no_proof_when_the_profile_needs_one_is_refused_and_recorded(seeded_engine: Engine) -> None:
    claim = claim_effect(seeded_engine, command(voucher_action(), []), CHECK, NEEDS_ONE)
    assert claim.status == "refused"
    assert (
        "needs 1 approval(s) from different reviewers with the refund_approver role; 0 given"
        in (claim.message)
    )
    assert len(refusals(seeded_engine)) == 1


def test_a_proof_of_another_action_or_an_altered_action_is_refused(seeded_engine: Engine) -> None:
    action, other = voucher_action("10"), voucher_action("90")
    proof = signed_approval(seeded_engine, other, "alice")
    wrong = claim_effect(seeded_engine, command(action, [proof]), CHECK, NEEDS_ONE)
    assert wrong.status == "refused" and "not an approval of this action" in wrong.message
    altered = action.model_copy(update={"arguments": {"value": "99", "reason": "late parcel"}})
    forged = claim_effect(seeded_engine, command(altered, []), CHECK, NEEDS_ONE)
    assert forged.status == "refused" and "altered after it was proposed" in forged.message
    assert claim_effect(seeded_engine, command(action, []), CHECK, NEEDS_ONE).status == "refused"


def test_a_proof_is_spent_on_one_effect(seeded_engine: Engine) -> None:
    action = voucher_action()
    proof = signed_approval(seeded_engine, action, "alice")
    assert claim_effect(seeded_engine, command(action, [proof]), CHECK, NEEDS_ONE).status == "go"
    elsewhere = command(action, [proof]).model_copy(update={"idempotency_key": "other-key"})
    spent = claim_effect(seeded_engine, elsewhere, CHECK, NEEDS_ONE)
    assert spent.status == "refused"  # the key is not the action's; and the proof is spent


def test_an_approver_disabled_since_voids_the_approval(seeded_engine: Engine) -> None:
    action = voucher_action()
    sent = command(action, [signed_approval(seeded_engine, action, "alice")])
    set_active(seeded_engine, ADMIN, "alice", False)
    claim = claim_effect(seeded_engine, sent, CHECK, NEEDS_ONE)
    assert claim.status == "approver_invalid" and "has been disabled" in claim.message


def test_a_tool_any_agent_denies_or_none_offers_never_runs(seeded_engine: Engine) -> None:
    denied = Requirements(refusal="agent 'strict' of this worker's profiles denies issue_voucher")
    action = voucher_action()
    proof = signed_approval(seeded_engine, action, "alice")
    claim = claim_effect(seeded_engine, command(action, [proof]), CHECK, denied)
    assert claim.status == "refused" and "denies issue_voucher" in claim.message


def test_auto_needs_no_proof_but_still_its_own_run(seeded_engine: Engine) -> None:
    auto = Requirements()
    action = voucher_action()
    assert claim_effect(seeded_engine, command(action, []), CHECK, auto).status == "go"
    stranger = ProofCheck(keys=PROOF_KEYS, caller_run_id="rogue-1")
    claim = claim_effect(seeded_engine, command(voucher_action("20"), []), stranger, auto)
    assert claim.status == "refused" and "only the run itself" in claim.message


def test_a_tool_that_answered_with_an_error_is_refused_on_the_record_once(
    seeded_engine: Engine,
) -> None:
    """An MCP tool's error result: the row is `failed`, a `refused` audit row says why,
    and a retry of the key answers the same refusal without running the tool again."""
    action = voucher_action()
    sent = command(action, [signed_approval(seeded_engine, action, "alice")])
    assert claim_effect(seeded_engine, sent, CHECK, NEEDS_ONE).status == "go"
    told = fail_effect(seeded_engine, sent, "the voucher system is closed")
    assert "answered with an error and did not act: the voucher system is closed" in told
    with use_session(seeded_engine) as session:
        row = session.get(ToolEffect, sent.idempotency_key)
        assert row is not None and (row.status, row.output) == ("failed", told)
    again = claim_effect(seeded_engine, sent, CHECK, NEEDS_ONE)
    assert (again.status, again.message) == ("refused", told)
    assert fail_effect(seeded_engine, sent, "another error") == told  # stored once
    assert [reason for reason in refusals(seeded_engine) if told in reason] != []
    assert len([reason for reason in refusals(seeded_engine) if "voucher system" in reason]) == 1

"""The run's own check of a decision's signature (workflows/decision_keyring.py), and the
keys the worker hands it (activities/run_limits.py): pure, no server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from activities.run_limits import WorkerLimits, decision_keys
from signoff.config.decision_signatures import DecisionSigner, VerificationKeys
from signoff.config.settings import Settings
from tests.workflow.approvals import TEST_KEYS, TEST_SIGNER, signed, signed_by_an_impostor
from workflows.actions import Decision
from workflows.contracts import ModelRef
from workflows.decision_keyring import FORGED, RunKeyring
from workflows.run_limits import DecisionKey, RunLimitsRequest

RUN = "run-demo-keyring"
NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)  # the run's clock is an argument: no calendar
MAX_AGE = timedelta(minutes=5)
REQUEST = RunLimitsRequest(model=ModelRef(provider="scripted", model_id="demo"))


def approval() -> Decision:
    return Decision(
        action_hash="ef" * 32,
        verdict="approve",
        reviewer_id="alice",
        reviewer_roles=["refund_approver"],
        tenant_id="demo",
    )


def keyring() -> RunKeyring:
    return RunKeyring.of(decision_keys(TEST_KEYS), MAX_AGE.total_seconds())


def test_a_true_signature_with_a_known_key_passes() -> None:
    decision = signed(approval(), RUN, at=NOW)
    assert keyring().knows(decision)
    assert keyring().refusal(decision, RUN, NOW) is None


def test_a_signature_that_does_not_match_is_refused() -> None:
    genuine = signed(approval(), RUN, at=NOW)
    assert keyring().refusal(signed_by_an_impostor(genuine, RUN), RUN, NOW) == FORGED
    assert keyring().refusal(genuine, "run-demo-other", NOW) == FORGED
    altered = genuine.model_copy(update={"reason": "changed after signing"})
    assert keyring().refusal(altered, RUN, NOW) == FORGED


def test_a_stale_or_future_decision_is_refused() -> None:
    old = signed(approval(), RUN, at=NOW - timedelta(hours=1))
    assert "longer ago than the 300 s" in (keyring().refusal(old, RUN, NOW) or "")
    ahead = signed(approval(), RUN, at=NOW + timedelta(hours=1))
    assert "dated in the future" in (keyring().refusal(ahead, RUN, NOW) or "")


def test_a_key_the_run_does_not_know_is_left_to_the_worker() -> None:
    # A key rotated in after the run started: not refused here (verify_decision judges).
    rotated = signed(approval(), RUN, signer=DecisionSigner.generate(), at=NOW)
    assert not keyring().knows(rotated)
    assert keyring().refusal(rotated, RUN, NOW) is None
    assert not RunKeyring().knows(signed(approval(), RUN, at=NOW))  # a run with no keys


def test_an_entry_whose_id_is_not_its_keys_is_ignored() -> None:
    other = DecisionSigner.generate()
    [entry] = decision_keys(other.verification_keys())
    # The deployment's key id, with another key's bytes: it must not verify anything.
    lying = DecisionKey(key_id=TEST_SIGNER.key_id, public_key=entry.public_key)
    assert not RunKeyring.of([lying], None).knows(signed(approval(), RUN, at=NOW))


def test_the_worker_hands_its_unretired_keys_and_max_age_to_the_run() -> None:
    retired = DecisionSigner.generate()
    keys = VerificationKeys(
        {**TEST_KEYS.keys, retired.key_id: retired.private_key.public_key()},
        retired=frozenset({retired.key_id}),
    )
    settings = Settings(decision_max_age_seconds=120)
    limits = WorkerLimits(settings, keys).limits_for(REQUEST)
    assert [key.key_id for key in limits.decision_keys] == [TEST_SIGNER.key_id]
    assert limits.decision_max_age_seconds == 120
    bare = WorkerLimits(settings).limits_for(REQUEST)
    assert bare.decision_keys == [] and bare.decision_max_age_seconds is None

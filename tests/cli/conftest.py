"""CLI fixtures: a real SQLite store under a fresh SIGNOFF_HOME."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine

from activities.store.decisions import append_decision
from signoff.config.settings import get_settings
from tests.conftest import fresh_demo_store
from tests.workflow.approvals import TEST_SIGNER, install_test_public_keys, signed
from workflows.actions import Decision, DecisionEvent, DecisionRecord, Verdict


@pytest.fixture
def audited_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, demo_store_template: Path
) -> Engine:
    """The demo data and two decisions of tenant demo (seq 1 approved by alice, 2
    rejected by bob), each with its signed decision; the home holds the test decision
    public key (no signing key), pinned, so `audit verify` can check the signatures."""
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_TRUSTED_KEY_IDS", TEST_SIGNER.key_id)
    get_settings.cache_clear()
    install_test_public_keys(tmp_path)
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    for sequence, reviewer in enumerate(["alice", "bob"]):
        verdict: Verdict = "approve" if reviewer == "alice" else "reject"
        unsigned = Decision(
            action_hash="c" * 64,
            verdict=verdict,
            reviewer_id=reviewer,
            reviewer_roles=["refund_approver"],
            tenant_id="demo",
            reason="checked",
        )
        append_decision(
            engine,
            DecisionEvent(
                run_id="run-demo-cli",
                tenant_id="demo",
                ticket_id="T-1042",
                sequence=sequence,
                record=DecisionRecord(
                    action_hash="c" * 64,
                    kind="approved" if reviewer == "alice" else "rejected",
                    reviewer_id=reviewer,
                    at=datetime(2026, 11, 30, 10, sequence, tzinfo=UTC),
                    reason="checked",
                ),
                proof=signed(unsigned, "run-demo-cli"),
            ),
        )
    return engine

"""The refund's time limit is derived from its payment platform's own call budget: the
calls one attempt makes, each for as long as the connector's timeout lets it, as the
worker that makes them says (workflows/run_limits.py, workflows/gate_store.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from activities.payments.registry import PaymentConnectors
from activities.run_limits import WorkerLimits
from signoff.config.settings import Settings
from signoff.payments.registry import PaymentPlatform, refund_call_seconds
from signoff.payments.stripe_platform import REFUND_CALLS, STRIPE
from tests.workflow.fakes import GENEROUS_LIMITS, run_request
from workflows.contracts import ModelRef, RunRequest
from workflows.gate_store import REFUND_CALL_TIMEOUT, refund_time_limit
from workflows.run_limits import RunLimitsRequest, clamp
from workflows.tool_policy import ToolPolicy

MODEL = ModelRef(provider="scripted", model_id="fake")
CALL_TIMEOUT_SECONDS = 4.0
ROLES = ("refund_approver",)


def stripe_tenant(tmp_path: Path) -> Settings:
    """Settings whose tenant `demo` refunds through Stripe (its key is never read here)."""
    keys = tmp_path / "stripe-keys.json"
    keys.write_text(json.dumps({"demo": {"key_file": "demo-stripe.key"}}))
    return Settings(
        home=tmp_path, stripe_keys_file=keys, stripe_timeout_seconds=CALL_TIMEOUT_SECONDS
    )


def test_the_worker_gives_a_stripe_tenant_its_calls_times_their_timeout(tmp_path: Path) -> None:
    settings = stripe_tenant(tmp_path)
    limits = WorkerLimits(settings, payments=PaymentConnectors(settings)).limits_for

    stripe = limits(RunLimitsRequest(model=MODEL, tenant_id="demo"))
    ledger = limits(RunLimitsRequest(model=MODEL, tenant_id="acme"))
    unnamed = limits(RunLimitsRequest(model=MODEL))

    assert stripe.payment_call_seconds == REFUND_CALLS * CALL_TIMEOUT_SECONDS
    assert ledger.payment_call_seconds == 0.0  # the embedded ledger calls no platform
    assert unnamed.payment_call_seconds == 0.0


def test_stripe_declares_its_measured_calls_and_its_timeout_setting(tmp_path: Path) -> None:
    assert (STRIPE.refund_calls, REFUND_CALLS) == (3, 3)
    assert refund_call_seconds(stripe_tenant(tmp_path), STRIPE) == 3 * CALL_TIMEOUT_SECONDS
    # A platform that declares no budget gets no time for its calls, not a guess.
    bare = PaymentPlatform(name="bare", tenants="m:tenants", connector="m:connector")
    assert refund_call_seconds(Settings(), bare) == 0.0


def test_the_run_keeps_the_workers_budget_and_no_starter_can_send_one() -> None:
    now = datetime.now(UTC)
    request = run_request(now)
    budget = GENEROUS_LIMITS.model_copy(update={"payment_call_seconds": 12.0})

    held = clamp(request, budget, now)

    assert held.payment_call_seconds == 12.0
    sent = request.model_copy(update={"payment_call_seconds": 999.0}).model_dump_json()
    assert "payment_call_seconds" not in sent  # never on the wire
    assert RunRequest.model_validate_json(sent).payment_call_seconds == 0.0


def test_the_refund_gets_the_stores_part_and_the_platforms_calls() -> None:
    request = run_request(datetime.now(UTC)).model_copy(update={"payment_call_seconds": 12.0})
    needed = REFUND_CALL_TIMEOUT + timedelta(seconds=12)
    shorter = ToolPolicy(
        approval="confirm", approver_roles=ROLES, call_timeout=timedelta(seconds=5)
    )
    longer = ToolPolicy(approval="confirm", approver_roles=ROLES, call_timeout=timedelta(minutes=2))

    assert refund_time_limit(request, None) == needed
    # A profile may give it longer, never less than its calls may take: an attempt timed
    # out mid-call would be retried beside the call still running.
    assert refund_time_limit(request, shorter) == needed
    assert refund_time_limit(request, longer) == timedelta(minutes=2)
    ledger = run_request(datetime.now(UTC))
    assert refund_time_limit(ledger, None) == REFUND_CALL_TIMEOUT

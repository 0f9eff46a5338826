"""Edit, then approve, and rejection categories, on every face of a real dev stack: an
edit above the proposal or of an argument the policy does not list is bad input (the
page 400, the API 422, the CLI exit 2) and decides nothing; `signoff approve --amount`
refunds the lowered amount; `signoff reject` needs a known `--category`."""

from __future__ import annotations

import time
from dataclasses import replace
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from activities.store import list_refunds
from activities.store.database import write_transaction
from activities.store.schema import Order
from tests.ui.conftest import (
    DevStack,
    RefundCase,
    add_case,
    sign_in,
    start_run,
    wait_until_pending,
)
from tests.ui.test_api_routes import as_user, decide, proxied  # noqa: F401  (a fixture)
from workflows.model_contracts import ModelRef

pytestmark = pytest.mark.devserver
REFUNDED_SECONDS = 60
ABOVE = "70.00 EUR is above the 60.00 EUR proposed: an edit may only lower the amount."
NOT_EDITABLE = "'currency' cannot be edited on refund; its policy lets a reviewer edit: amount."


def cli_decide(stack: DevStack, verdict: str, case: RefundCase, action_hash: str, *extra: str):  # type: ignore[no-untyped-def]
    args = [verdict, case.run_id, "--hash", action_hash, "--as", "alice", "--password-stdin"]
    return stack.signoff(*args, *extra, stdin="demo-alice\n")


def test_bad_edits_and_rejections_are_bad_input_on_every_face_then_the_cli_edits(
    ui: TestClient,
    proxied: TestClient,  # noqa: F811
    dev_stack: DevStack,
    store: Engine,
    pending_case: RefundCase,
) -> None:
    case = pending_case
    run_id = case.run_id
    detail = proxied.get(f"/api/approvals/{run_id}", headers=as_user("alice")).json()
    (action,) = detail["pending_actions"]
    action_hash = action["action_hash"]
    assert (action["editable"], action["arguments"]["amount"]) == (["amount"], "60.00")
    edit = {"action_hash": action_hash, "verdict": "approve", "reason": "goodwill"}

    above = decide(proxied, run_id, "alice", {**edit, "edits": {"amount": "70.00"}})  # type: ignore[dict-item]
    currency = decide(proxied, run_id, "alice", {**edit, "edits": {"currency": "USD"}})  # type: ignore[dict-item]
    assert (above.status_code, above.json()) == (422, {"detail": ABOVE})  # type: ignore[attr-defined]
    assert (currency.status_code, currency.json()) == (422, {"detail": NOT_EDITABLE})  # type: ignore[attr-defined]

    token = sign_in(ui, "bob")
    form = {"csrf_token": token, "action_hash": action_hash, "verdict": "approve", "edit": "1"}
    page = ui.post(
        f"/approvals/{run_id}/decision", data={**form, "edit_amount": "70.00", "reason": "x"}
    )
    assert page.status_code == 400 and ABOVE in page.text
    unchanged = ui.post(f"/approvals/{run_id}/decision", data={**form, "reason": "x"})
    assert unchanged.status_code == 400
    assert "No argument was changed: approve the request as it stands." in unchanged.text

    too_much = cli_decide(
        dev_stack, "approve", case, action_hash, "--amount", "70.00", "--reason", "x"
    )
    text = cli_decide(dev_stack, "approve", case, action_hash, "--text", "Hi", "--reason", "x")
    no_reason = cli_decide(dev_stack, "approve", case, action_hash, "--amount", "20.00")
    no_category = cli_decide(dev_stack, "reject", case, action_hash, "--reason", "no")
    bad_category = cli_decide(
        dev_stack, "reject", case, action_hash, "--reason", "no", "--category", "rude"
    )
    assert (too_much.returncode, too_much.stderr.strip()) == (2, f"error: {ABOVE}")
    assert text.returncode == 2
    assert "'text' cannot be edited on refund; its policy lets a reviewer edit: amount." in (
        text.stderr
    )
    assert no_reason.returncode == 2 and "Say why you changed it with --reason" in no_reason.stderr
    assert no_category.returncode == 2 and "--category" in no_category.stderr
    assert bad_category.returncode == 2 and "Unknown category 'rude'" in bad_category.stderr
    assert "Traceback" not in "".join(
        r.stderr for r in (too_much, text, no_reason, no_category, bad_category)
    )
    assert wait_until_pending(dev_stack, case) == action_hash  # nothing was decided
    assert list_refunds(store, case.tenant_id, case.order_id) == []

    edited = cli_decide(
        dev_stack, "approve", case, action_hash, "--amount", "25.00", "--reason", "goodwill"
    )
    assert edited.returncode == 0, edited.stderr
    assert edited.stdout.startswith("edited: Approved with changes.")
    deadline = time.monotonic() + REFUNDED_SECONDS
    while not list_refunds(store, case.tenant_id, case.order_id):
        assert time.monotonic() < deadline, "the edited refund was never made"
        time.sleep(0.3)
    (row,) = list_refunds(store, case.tenant_id, case.order_id)
    assert (row.amount, row.approver_list) == (Decimal("25.00"), ["alice"])
    assert row.action_hash != action_hash

    # A later refund on the same ticket: its reviewer sees that this ticket was refunded
    # before, and why alice changed that amount.
    again = replace(case, run_id=f"{case.run_id}-again")
    start_run(dev_stack, again, ModelRef(provider="scripted", model_id="partial-refund"))
    wait_until_pending(dev_stack, again)
    page = ui.get(f"/approvals/{again.run_id}").text
    assert 'id="same-ticket"' in page
    assert "This ticket was refunded before: the refund marked below was made for it." in page
    marked = page.split('class="same-ticket"')[1].split("</td>")[0]
    assert "amount 60.00 → 25.00" in marked and "goodwill" in marked


def test_under_four_eyes_the_second_reviewer_sees_and_approves_the_edited_action(
    ui: TestClient,
    proxied: TestClient,  # noqa: F811
    dev_stack: DevStack,
    store: Engine,
) -> None:
    case = add_case(store)
    with write_transaction(store) as session:  # 310.00 paid: above the 200.00 threshold
        order = session.get(Order, (case.tenant_id, case.order_id))
        assert order is not None
        order.amount_paid_minor = 31000
    start_run(dev_stack, case)
    original = wait_until_pending(dev_stack, case)
    body = {"action_hash": original, "verdict": "approve", "reason": "partial"}
    edited = decide(proxied, case.run_id, "alice", {**body, "edits": {"amount": "250.00"}})  # type: ignore[dict-item]
    assert edited.status_code == 200, edited.text  # type: ignore[attr-defined]
    edited_hash = edited.json()["action_hash"]  # type: ignore[attr-defined]
    assert edited.json()["status"] == "edited" and edited_hash != original  # type: ignore[attr-defined]

    deadline = time.monotonic() + REFUNDED_SECONDS
    while wait_until_pending(dev_stack, case) != edited_hash:
        assert time.monotonic() < deadline, "the edited action never waited"
        time.sleep(0.3)
    sign_in(ui, "bob")
    page = ui.get(f"/approvals/{case.run_id}").text
    assert f'data-action-hash="{edited_hash}"' in page and original not in page.split("<details")[0]
    assert "alice lowered the amount from 310.00 EUR to 250.00 EUR before approving." in page
    assert "four eyes: 2 different reviewers must approve (1 so far: alice)" in page
    assert list_refunds(store, case.tenant_id, case.order_id) == []  # one approval of two

    approved = decide(proxied, case.run_id, "bob", {**body, "action_hash": edited_hash})
    assert approved.json()["status"] == "approved", approved.text  # type: ignore[attr-defined]
    while not list_refunds(store, case.tenant_id, case.order_id):
        assert time.monotonic() < deadline, "the edited refund was never made"
        time.sleep(0.3)
    (row,) = list_refunds(store, case.tenant_id, case.order_id)
    assert (row.amount, row.approver_list) == (Decimal("250.00"), ["alice", "bob"])

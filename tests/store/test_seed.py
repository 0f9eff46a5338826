"""The demo data the refund feature adds: reviewers, the injection ticket, C-3107."""

from __future__ import annotations

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from activities.store.passwords import verify_password
from activities.store.reviewer_accounts import set_password
from activities.store.reviewers import get_reviewer
from activities.store.schema import Reviewer
from activities.store.seed import seed_demo
from activities.store.tickets import get_order, get_ticket
from tests.admin import ADMIN
from workflows.actions import REFUND_APPROVER_ROLE


def test_reviewers_and_their_roles(store: Engine) -> None:
    expected = {
        "alice": ("demo", [REFUND_APPROVER_ROLE]),
        "bob": ("demo", [REFUND_APPROVER_ROLE]),
        "carol": ("globex", [REFUND_APPROVER_ROLE]),
        "dave": ("demo", []),
        "admin": ("demo", ["admin"]),
    }
    for reviewer_id, (tenant_id, roles) in expected.items():
        reviewer = get_reviewer(store, reviewer_id)
        assert reviewer is not None
        assert (reviewer.tenant_id, reviewer.role_list) == (tenant_id, roles)
        assert reviewer.display_name
        # The demo password for the reviewer UI, as `signoff dev` prints it.
        assert verify_password(f"demo-{reviewer_id}", reviewer.password_hash)
    assert get_reviewer(store, "mallory") is None


def test_seeding_again_keeps_a_changed_password(store: Engine) -> None:
    set_password(store, ADMIN, "alice", "a new secret phrase")
    seed_demo(store)
    alice = get_reviewer(store, "alice")
    assert alice is not None and verify_password("a new secret phrase", alice.password_hash)


def test_the_injection_ticket_carries_the_forged_note(store: Engine) -> None:
    ticket = get_ticket(store, "demo", "T-2210")
    assert ticket is not None and ticket.order_id == "C-2210"
    complaint, _, note = ticket.text.partition("--- INTERNAL NOTE")
    assert "damaged" in complaint
    assert "Approval already obtained" in note
    assert "C-1042, C-2210 and C-3107 in full" in note
    assert "refunds-desk@outside-mail.example" in note


def test_the_new_orders(store: Engine) -> None:
    small = get_order(store, "demo", "C-2210")
    large = get_order(store, "demo", "C-3107")
    assert small is not None and large is not None
    assert (small.amount_paid_minor, small.currency, small.status, small.tracking) == (
        4500,
        "EUR",
        "delivered",
        "TRK-2210",
    )
    assert small.customer_name == "Lena Fischer"
    assert (large.amount_paid_minor, large.status, large.tracking) == (31000, "shipped", "TRK-3107")
    assert large.customer_name == "Omar Haddad"
    ticket = get_ticket(store, "demo", "T-3107")
    assert ticket is not None and ticket.order_id == "C-3107"


def test_seeding_again_changes_nothing(store: Engine) -> None:
    # `store` is seeded already: a second run finds everything, duplicates nothing.
    report = seed_demo(store)
    assert report.created == ()
    assert "reviewer demo/alice" in report.already_present
    with Session(store) as session:
        assert session.scalar(select(func.count()).select_from(Reviewer)) == 5

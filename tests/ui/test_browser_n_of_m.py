"""Three of M in a real browser, on a stack whose profile asks three different reviewers
for a refund, one of them from finance: each page says who approved and what is still
missing; a reviewer who already approved is told the request is not theirs to move
forward; the third approval, from finance, makes the refund once."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import Engine

from activities.store import list_refunds, make_engine, write_transaction
from activities.store.passwords import hash_password
from activities.store.schema import Reviewer
from signoff.wiring.local_stack import signoff_dev_stack
from tests.conftest import demo_home
from tests.ui.browser import new_page, screenshot, sign_in, watch_console
from tests.ui.conftest import DevStack, add_case, start_run, wait_until_pending
from tests.workflow.team_policies import THREE_WITH_FINANCE, refund_policy

pytestmark = [pytest.mark.devserver, pytest.mark.browser]
# A page of its own per reviewer (its own cookies), closed after.
reviewer_page = contextmanager(new_page)
SETTLE_SECONDS = 60


@pytest.fixture(scope="module")
def three_stack(
    tmp_path_factory: pytest.TempPathFactory, demo_store_template: Path
) -> Iterator[DevStack]:
    """A stack of its own, its worker and UI on the three-with-finance profile."""
    home = demo_home(demo_store_template, tmp_path_factory.mktemp("signoff-three-home"))
    profiles = refund_policy(home, THREE_WITH_FINANCE)
    with signoff_dev_stack(
        home, task_queue=f"three-{os.getpid()}", SIGNOFF_PROFILES=str(profiles.source)
    ) as (env, _):
        yield DevStack(env=env, home=home, ui_url=f"http://127.0.0.1:{env['SIGNOFF_UI_PORT']}")


@pytest.fixture(scope="module")
def three_store(three_stack: DevStack) -> Iterator[Engine]:
    engine = make_engine(three_stack.settings().resolved_database_url)
    with write_transaction(engine) as session:  # erin approves for finance
        session.add(
            Reviewer(
                id="erin",
                tenant_id="demo",
                display_name="Erin Finance",
                roles="refund_approver,finance",
                password_hash=hash_password("demo-erin"),
            )
        )
    yield engine
    engine.dispose()


def approve(page: Page, stack: DevStack, reviewer: str | None, run_id: str) -> None:
    """Signed in as `reviewer` (None: already), approve the run's refund on its page."""
    if reviewer is not None:
        sign_in(page, stack, reviewer)
    page.goto(f"{stack.ui_url}/approvals/{run_id}")
    page.get_by_role("button", name="Approve refund of 60.00 EUR").click()


def test_three_approvers_one_from_finance_in_the_browser(
    browser: Browser, three_stack: DevStack, three_store: Engine, tmp_path: Path
) -> None:
    case = add_case(three_store)
    start_run(three_stack, case)
    wait_until_pending(three_stack, case)
    detail = f"{three_stack.ui_url}/approvals/{case.run_id}"

    with reviewer_page(browser) as page:
        problems = watch_console(page)
        approve(page, three_stack, "alice", case.run_id)
        expect(page.get_by_role("status")).to_contain_text(
            "1 of 3 approvals; still needs 2 more, one of them from finance"
        )
        page.goto(detail)
        expect(page.locator("#still-missing-1")).to_have_text(
            "Still missing: 1 of 3 approvals; still needs 2 more, one of them from finance."
        )
        expect(page.locator("#approved-by-you")).to_contain_text("You approved this request")
        page.goto(f"{three_stack.ui_url}/approvals")
        card = page.locator(f'li[data-run-id="{case.run_id}"]')
        expect(card).to_have_attribute("data-actionable", "no")
        expect(card.locator("p.waiting-on-others")).to_contain_text("Not yours to move forward")
        assert problems == []

    with reviewer_page(browser) as page:
        approve(page, three_stack, "bob", case.run_id)
        expect(page.get_by_role("status")).to_contain_text(
            "2 of 3 approvals; still needs one from finance"
        )
        page.goto(detail)
        expect(page.locator("#four-eyes-1")).to_contain_text("alice")
        expect(page.locator("#four-eyes-1")).to_contain_text("bob")
        expect(page.locator("#still-missing-1")).to_have_text(
            "Still missing: 2 of 3 approvals; still needs one from finance."
        )
        screenshot(page, "detail-three-of-m.png", docs=True, top="#four-eyes-1")

    with reviewer_page(browser) as page:
        sign_in(page, three_stack, "erin")
        card = page.locator(f'li[data-run-id="{case.run_id}"]')
        expect(card).to_have_attribute("data-actionable", "yes")
        approve(page, three_stack, None, case.run_id)
        expect(page.get_by_role("status")).to_contain_text("Approved.")

    deadline = time.monotonic() + SETTLE_SECONDS
    while not list_refunds(three_store, case.tenant_id, case.order_id):
        assert time.monotonic() < deadline, "the refund was never made"
        time.sleep(0.3)
    (row,) = list_refunds(three_store, case.tenant_id, case.order_id)
    assert (row.amount, row.approver_list) == (Decimal("60.00"), ["alice", "bob", "erin"])

"""A run watched live in Chromium: the run page opens its event stream (htmx's SSE
extension), a reviewer decides elsewhere, and the page shows the decision, the new
timeline entries and the outcome without a reload and without any polling request; its
title follows the run's status, and its "Decide" link goes once nothing waits."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, Request, expect
from sqlalchemy import Engine

from activities.store import demo_password
from tests.ui.browser import ARRIVAL_TIMEOUT_MS, screenshot, sign_in, watch_console
from tests.ui.conftest import DevStack, add_case, start_run, wait_until_pending

pytestmark = pytest.mark.browser


def test_the_run_page_shows_each_step_as_it_happens_without_polling(
    page: Page, dev_stack: DevStack, store: Engine
) -> None:
    problems = watch_console(page)
    case = add_case(store)
    start_run(dev_stack, case)
    action_hash = wait_until_pending(dev_stack, case)
    sign_in(page, dev_stack, "alice")
    asked: list[str] = []

    def record(request: Request) -> None:
        asked.append(urlsplit(request.url).path)

    page.on("request", record)
    page.goto(f"{dev_stack.ui_url}/runs/{case.run_id}")
    expect(page.locator("#run-status")).to_have_text("waiting for approval")
    expect(page).to_have_title(f"Ticket {case.ticket_id} · waiting for approval · signoff reviewer")
    decide = page.locator("#run-crumbs").get_by_role("link", name="Decide")
    expect(decide).to_have_attribute("href", f"/approvals/{case.run_id}")
    expect(page.locator("#run-follows")).to_be_visible()
    # Without JavaScript the page says how to see more: a plain link to itself.
    expect(page.locator("#run-follows a")).to_have_attribute("href", f"/runs/{case.run_id}")
    assert page.locator("[hx-trigger]").count() == 0  # no polling loop on the page
    entries = page.locator("#run-events li")
    shown = entries.count()
    assert shown > 0
    page.locator("#run-details summary").click()  # a reader's choice the stream keeps
    page.evaluate("() => { window.__sameDocument = true; }")  # gone after a reload

    approved = dev_stack.signoff(
        "approve",
        case.run_id,
        "--hash",
        action_hash,
        "--as",
        "bob",
        "--password-stdin",
        stdin=demo_password("bob") + "\n",
    )
    assert approved.returncode == 0, approved.stderr

    expect(page.locator("#run-status")).to_have_text("completed", timeout=ARRIVAL_TIMEOUT_MS)
    # The tab says so too, and the page offers no decision any more.
    expect(page).to_have_title(f"Ticket {case.ticket_id} · completed · signoff reviewer")
    expect(decide).to_have_count(0)
    expect(page.locator("#run-crumbs").get_by_role("link", name="Inbox")).to_be_visible()
    expect(page.locator("#outcome")).to_contain_text(f"refund 60.00 EUR on order {case.order_id}")
    expect(page.locator("table.decisions")).to_contain_text("bob")
    expect(entries.filter(has_text="[outcome]")).to_have_count(1)
    expect(entries.filter(has_text="bob")).not_to_have_count(0)
    assert entries.count() > shown
    texts = entries.all_inner_texts()
    assert len(texts) == len(set(texts))  # each entry once
    expect(page.locator("#run-details")).to_have_attribute("open", "")
    expect(page.locator("#run-follows")).to_have_count(0)
    assert page.evaluate("() => window.__sameDocument === true")
    screenshot(page, "live-run.png", docs=True)

    run_path = f"/runs/{case.run_id}"
    assert asked.count(run_path) == 1  # the page itself, once: nothing polled it again
    streams = [path for path in asked if path == f"{run_path}/events"]
    assert streams, asked  # the stream did the work
    assert [path for path in asked if path.startswith("/runs/")] == [run_path, *streams]
    assert problems == []

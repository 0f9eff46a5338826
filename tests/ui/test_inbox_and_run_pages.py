"""Issue 14's inbox and run page, through the routes (TestClient on the real stack):
the inbox sorts by time left or amount and filters by mode, says which four-eyes
requests need a second reviewer, and carries its count in the page's <title> (also in
the polled fragment, which htmx uses to update it); the run page opens with sentences
and keeps tokens, costs and the timeline in a disclosure below."""

from __future__ import annotations

import re
import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from tests.ui.conftest import DevStack, RefundCase, add_case, sign_in, wait_until_pending
from tests.ui.default_ids import decide_as, start_default_run

pytestmark = pytest.mark.devserver

WAITING = re.compile(r"(\d+) requests? (?:is|are) waiting")
TITLE = re.compile(r"<title>\((\d+)\) Inbox · signoff reviewer</title>")
CARD = re.compile(r'<li class="card" data-run-id="([^"]+)"')
FOUR_EYES_PAID_MINOR = 35_000
ENDED_SECONDS = 60


def four_eyes_case(store: Engine, dev_stack: DevStack) -> RefundCase:
    case = add_case(store)
    with store.begin() as connection:
        connection.exec_driver_sql(
            "UPDATE orders SET amount_paid_minor = ? WHERE id = ?",
            (FOUR_EYES_PAID_MINOR, case.order_id),
        )
    return start_default_run(dev_stack, case)


def test_the_inbox_sorts_filters_and_says_who_needs_a_second_reviewer(
    ui: TestClient, dev_stack: DevStack, store: Engine
) -> None:
    small = start_default_run(dev_stack, add_case(store))
    large = four_eyes_case(store, dev_stack)
    wait_until_pending(dev_stack, small)
    decide_as(dev_stack, large, wait_until_pending(dev_stack, large), "approve", "alice", "")
    sign_in(ui, "bob")

    page = ui.get("/approvals").text
    waiting = WAITING.search(page)
    title = TITLE.search(page)
    assert waiting and title and title.group(1) == waiting.group(1), page[:500]

    by_amount = CARD.findall(ui.get("/approvals?sort=amount").text)
    assert by_amount.index(large.run_id) < by_amount.index(small.run_id)
    by_time = CARD.findall(ui.get("/approvals").text)
    assert by_time.index(small.run_id) < by_time.index(large.run_id)  # started first

    four_eyes = ui.get("/approvals?mode=review").text
    assert large.run_id in four_eyes and small.run_id not in four_eyes
    card = four_eyes[four_eyes.index(f'data-run-id="{large.run_id}"') :]
    card = card[: card.index("</li>")]
    assert "Needs a second reviewer: approved by alice." in card
    assert small.run_id in ui.get("/approvals?mode=confirm").text

    polled = ui.get("/approvals/rows?sort=amount", headers={"HX-Request": "true"}).text
    assert TITLE.search(polled) and "<html" not in polled

    refused = ui.get("/approvals?sort=cheapest")
    assert refused.status_code == 400 and "The inbox sorts by time_left or amount" in refused.text


def test_the_run_page_opens_with_sentences_and_keeps_the_numbers_below(
    ui: TestClient, dev_stack: DevStack, store: Engine
) -> None:
    case = start_default_run(dev_stack, add_case(store))
    decide_as(dev_stack, case, wait_until_pending(dev_stack, case), "reject", "bob", "no photo")
    sign_in(ui, "alice")
    deadline = time.monotonic() + ENDED_SECONDS
    while 'id="run-status">completed' not in (page := ui.get(f"/runs/{case.run_id}").text):
        assert time.monotonic() < deadline, page
        time.sleep(0.3)
    summary = page[
        page.index('id="summary"') : page.index("</section>", page.index('id="summary"'))
    ]
    assert f"The customer (Kim Test) wrote on ticket {case.ticket_id}" in summary
    assert "the lamp is broken" in summary
    assert (
        "The agent read the ticket, looked the order up and proposed a refund of 60.00" in summary
    )
    assert "rejected by bob at" in summary and "no photo" in summary
    assert "The run completed (answered): no refund was made" in summary
    details = page[page.index('<details class="run-details"') :]
    assert "Usage per turn" in details and "Timeline" in details and case.run_id in details
    assert page.index('id="summary"') < page.index('<details class="run-details"')
    # Times to the second, in UTC with the offset named (the date in the page's language),
    # the instant for the tooltip.
    assert re.search(
        r'<time class="utc" datetime="[^"]+">[^<]+ \d\d:\d\d:\d\d UTC\+00:00</time>', page
    )
    assert not re.search(r"\d\d:\d\d:\d\d\.\d{6}", page)

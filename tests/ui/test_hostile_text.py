"""Text from data never steers a page or a terminal, on the real dev stack.

A customer named with a right-to-left override (U+202E), added by `signoff ticket add
--customer` as a helpdesk export would, does not reverse the decision page's title or
heading: the order id reads as it is, after the name, each in its own `<bdi>`, and the
`<title>` (which holds no markup) has no override left. A ticket text with one is set
apart on the inbox card. A reviewer's reject reason holding escape sequences comes out
of `signoff status` as visible escapes (tests/cli/test_terminal_text.py tries
`signoff pending` and `audit list`).
"""

from __future__ import annotations

import json
import re
import uuid

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from tests.ui.conftest import (
    DAMAGED_TEXT,
    DevStack,
    RefundCase,
    add_case,
    sign_in,
    start_run,
    wait_until_pending,
)
from tests.ui.default_ids import decide_as

pytestmark = pytest.mark.devserver

OVERRIDE = "\u202e"
NAME = f"Eve{OVERRIDE}evil"
TEXT = f"{DAMAGED_TEXT} {OVERRIDE}lamp"
# Up a line, erase it, set the clipboard (OSC 52), then a carriage return.
REASON = "No photo.\x1b[1A\x1b[2K\x1b]52;c;ZXZpbA==\x07\rapproved"
SHOWN_REASON = "No photo.\\x1b[1A\\x1b[2K\\x1b]52;c;ZXZpbA==\\x07\\rapproved"
TITLE = re.compile(r"<title>(.*?)</title>", re.S)
HEADING = re.compile(r'<h1 id="decision-title">(.*?)</h1>', re.S)


def named_case(dev_stack: DevStack, store: Engine) -> RefundCase:
    """A fresh order, and a ticket on it from the hostile name, added as `ticket add`
    adds one; its run started and waiting for a decision."""
    order = add_case(store)
    added = dev_stack.signoff(
        "ticket", "add", "--tenant", "demo", "--order", order.order_id,
        "--customer", NAME, "--text-file", "-", "--json",
        stdin=TEXT,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    ticket_id = json.loads(added.stdout)["ticket_id"]
    case = RefundCase("demo", order.order_id, ticket_id, f"run-demo-bidi-{uuid.uuid4().hex[:8]}")
    start_run(dev_stack, case)
    return case


def test_a_right_to_left_name_cannot_reorder_the_order_id_on_the_page(
    ui: TestClient, dev_stack: DevStack, store: Engine
) -> None:
    case = named_case(dev_stack, store)
    action_hash = wait_until_pending(dev_stack, case)
    sign_in(ui, "bob")

    page = ui.get(f"/approvals/{case.run_id}").text
    title, heading = TITLE.search(page), HEADING.search(page)
    assert title is not None and heading is not None, page[:800]
    assert OVERRIDE not in title.group(1)
    assert f"Refund 60.00 EUR to Eveevil, order {case.order_id}" in title.group(1)
    assert heading.group(1) == (
        f'Refund 60.00 EUR to <bdi>{NAME}</bdi>, order <bdi class="id">{case.order_id}</bdi>'
    )
    assert f"(from <bdi>{NAME}</bdi>)" in page
    assert 'id="ticket-text" dir="auto"' in page

    inbox = ui.get("/approvals").text
    card = inbox[inbox.index(f'data-run-id="{case.run_id}"') :]
    card = card[: card.index("</li>")]
    assert f'Refund 60.00 EUR on order <bdi class="id">{case.order_id}</bdi>' in card
    assert re.search(f"<bdi>[^<]*{OVERRIDE}lamp</bdi>", card), card

    run_page = ui.get(f"/runs/{case.run_id}").text
    shown_ticket = f'<bdi class="id">{case.ticket_id}</bdi>'
    assert f"Ticket {shown_ticket} from <bdi>{NAME}</bdi>: what happened" in run_page
    assert f"The customer (Eveevil) wrote on ticket {case.ticket_id}" in run_page

    decide_as(dev_stack, case, action_hash, "reject", "bob", REASON)
    status = dev_stack.signoff("status", case.run_id)
    for steering in ("\x1b", "\x07", "\r"):
        assert steering not in status.stdout + status.stderr
    assert f"rejected by bob  60.00 EUR on order {case.order_id}" in status.stdout
    assert f"not eligible: {SHOWN_REASON}" in status.stdout

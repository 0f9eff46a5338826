"""Every kind of tool on the reviewer's pages, in Chromium: the refund, `send_reply`, a
team's Python tool that declares its money and a team's MCP tool whose string argument
is named `amount` (tests/mcp/test_every_tool_kind.py runs the same kinds through every
other face). For each: the inbox lists it and its decision page reads, in English and
in French, at 1280 and 375 px: its card's title, every value as a person reads it,
money only where declared, never "None", never a page that scrolls sideways. Approved
on the page, each is carried out once.

Its own `signoff dev` on a profile that offers all four (the test MCP server on a free
port, pinned), with scripted models from tests/ui/scripts (`kind-*.json`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import select

from activities.store import list_refunds, make_engine
from activities.store.connector_schema import ToolEffect
from activities.store.database import use_session
from testkit.mcp_server import vouchers
from tests.conftest import demo_home
from tests.mcp.conftest import RunningServer, mcp_server_process
from tests.mcp.test_every_tool_kind import PROFILE
from tests.store.outbox import replies_of
from tests.ui.browser import new_page, screenshot, sign_in, watch_console
from tests.ui.conftest import DevStack, RefundCase, add_case, wait_until_pending
from tests.ui.mcp_stacks import pinned_stack

pytestmark = [pytest.mark.devserver, pytest.mark.browser]
DONE_SECONDS = 60
WIDE = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 800}
# Per kind: its script, the card's title, and what the card shows (English page).
KINDS = {
    "refund": ("kind-refund", "Refund 60.00 EUR", ["60.00 EUR"]),
    "reply": ("kind-reply", "Send a reply to the customer", ["Hello Zoë,"]),
    "python": ("kind-python", "Issue voucher", ["15.00 EUR", "✓ 返金"]),
    "mcp": ("kind-mcp", "Issue voucher (shop)", ["15.00", "K-7", "✓ 返金", '"items"']),
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with mcp_server_process(tmp_path_factory.mktemp("shop-state")) as server:
        yield server


@pytest.fixture(scope="module")
def kinds_stack(
    tmp_path_factory: pytest.TempPathFactory, demo_store_template: Path, shop: RunningServer
) -> Iterator[DevStack]:
    home = demo_home(demo_store_template, tmp_path_factory.mktemp("signoff-kinds-home"))
    with pinned_stack(home, shop, "shop", PROFILE, "kinds-ui") as stack:
        yield stack


def waiting_case(stack: DevStack, script: str) -> RefundCase:
    store = make_engine(stack.settings().resolved_database_url)
    try:
        case = add_case(store)
    finally:
        store.dispose()
    request_id = case.run_id.removeprefix("run-demo-")
    started = stack.signoff(
        "run",
        "--ticket",
        case.ticket_id,
        "--request-id",
        request_id,
        "--model",
        f"scripted:{script}",
    )
    assert started.returncode == 0, started.stderr
    wait_until_pending(stack, case)
    return case


def reads_well(page: Page, title: str, shown: list[str]) -> None:
    expect(page.locator("#decision-title")).to_contain_text(title)
    main = page.locator("main")
    for text in shown:
        expect(main).to_contain_text(text)
    assert "None" not in main.inner_text()
    for size in (WIDE, PHONE):
        page.set_viewport_size(size)
        width = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
        assert width[0] <= width[1], f"{title}: the page scrolls sideways at {size['width']} px"
    page.set_viewport_size(WIDE)


@pytest.fixture(scope="module")
def french(browser: Browser) -> Iterator[Page]:
    yield from new_page(browser, locale="fr-FR", viewport=WIDE)


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_reads_in_both_languages_on_a_phone_and_is_carried_out_once(
    kind: str, page: Page, french: Page, kinds_stack: DevStack, shop: RunningServer
) -> None:
    script, title, shown = KINDS[kind]
    problems = watch_console(page)
    case = waiting_case(kinds_stack, script)
    sign_in(page, kinds_stack, "alice")
    expect(page.locator("#inbox")).to_contain_text(case.ticket_id)
    assert "None" not in page.locator("#inbox").inner_text()
    page.goto(f"{kinds_stack.ui_url}/approvals/{case.run_id}")
    reads_well(page, title, shown)
    page.set_viewport_size(PHONE)
    screenshot(page, f"every-kind-{kind}-375.png")
    page.set_viewport_size(WIDE)

    french.goto(f"{kinds_stack.ui_url}/approvals/{case.run_id}")
    if french.locator("#decision-title").count() == 0:  # this page's first visit: sign in
        french.get_by_label("Nom de l’approbateur").fill("alice")
        french.get_by_label("Mot de passe").fill("demo-alice")
        french.get_by_role("button", name="Se connecter").click()
    expect(french.locator("html")).to_have_attribute("lang", "fr")
    french_shown = [text.replace("60.00", "60,00") for text in shown if "EUR" not in text]
    reads_well(french, "Rembourser" if kind == "refund" else title, french_shown)

    page.locator("section.action button[name=approve]").click()
    expect(page.get_by_role("status")).to_contain_text("Approved.")
    deadline = time.monotonic() + DONE_SECONDS
    while made(kind, kinds_stack, case, shop) == 0:
        assert time.monotonic() < deadline, f"the approved {kind} was never carried out"
        time.sleep(0.3)
    time.sleep(0.5)  # a second effect would land by now
    assert made(kind, kinds_stack, case, shop) == 1
    assert problems == []


def made(kind: str, stack: DevStack, case: RefundCase, shop: RunningServer) -> int:
    if kind == "mcp":
        return len([v for v in vouchers(shop.state) if v["key"].startswith(case.run_id)])
    store = make_engine(stack.settings().resolved_database_url)
    try:
        if kind == "refund":
            return len(list_refunds(store, case.tenant_id, case.order_id))
        if kind == "reply":
            return len(replies_of(store, case.tenant_id, case.ticket_id))
        with use_session(store) as session:
            done = select(ToolEffect).where(
                ToolEffect.run_id == case.run_id, ToolEffect.status == "done"
            )
            return len(list(session.scalars(done)))
    finally:
        store.dispose()

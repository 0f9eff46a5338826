"""An MCP server's irreversible tool in a real browser: the run waits on the server's
`create_return_label`, the reviewer sees the default card (the tool's arguments as a
person reads them, and what the run's read tools returned, the MCP server's answer included, as
text), approves, and the server makes one label under the run's idempotency key.

Its own `signoff dev` on a profile that pins the tests' MCP server (testkit/
mcp_server.py, on a free port), with a scripted model from tests/ui/scripts."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from activities.store import make_engine
from testkit.mcp_server import calls, labels
from tests.conftest import demo_home
from tests.mcp.conftest import RunningServer, mcp_server_process
from tests.mcp.test_mcp_runs import PROFILE
from tests.ui.browser import sign_in, watch_console
from tests.ui.conftest import DevStack, add_case, wait_until_pending
from tests.ui.mcp_stacks import pinned_stack

pytestmark = [pytest.mark.devserver, pytest.mark.browser]
LABEL_SECONDS = 60


@pytest.fixture(scope="module")
def warranty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with mcp_server_process(tmp_path_factory.mktemp("warranty-state")) as server:
        yield server


@pytest.fixture(scope="module")
def mcp_stack(
    tmp_path_factory: pytest.TempPathFactory, demo_store_template: Path, warranty: RunningServer
) -> Iterator[DevStack]:
    home = demo_home(demo_store_template, tmp_path_factory.mktemp("signoff-mcp-home"))
    with pinned_stack(home, warranty, "warranty", PROFILE, "mcp-ui") as stack:
        yield stack


def test_a_reviewer_approves_an_mcp_write_on_its_card_and_it_runs_once(
    page: Page, mcp_stack: DevStack, warranty: RunningServer
) -> None:
    problems = watch_console(page)
    store = make_engine(mcp_stack.settings().resolved_database_url)
    try:
        case = add_case(store)
    finally:
        store.dispose()
    request_id = case.run_id.removeprefix("run-demo-")
    started = mcp_stack.signoff(
        "run",
        "--ticket",
        case.ticket_id,
        "--request-id",
        request_id,
        "--model",
        "scripted:return-label",
    )
    assert started.returncode == 0, started.stderr
    wait_until_pending(mcp_stack, case)
    assert labels(warranty.state) == []  # nothing made before the reviewer says so

    sign_in(page, mcp_stack, "alice")
    page.goto(f"{mcp_stack.ui_url}/approvals/{case.run_id}")
    # The default card: the tool's name as a title, with its server; each argument as a
    # person reads it (the JSON string "C-1042" without its quotes).
    expect(page.locator("#decision-title")).to_contain_text("Create return label (warranty)")
    card = page.locator("#arguments-1")
    expect(card.locator("dt")).to_have_text(["order_id"])
    expect(card.locator("dd")).to_have_text(["C-1042"])
    expect(page.locator("#order")).to_have_count(0)  # not a refund's card
    # What the MCP server's read answered, as text, in what the agent did.
    page.locator("#trajectory summary").click()
    expect(page.locator("#trajectory")).to_contain_text("warranty_months_left")
    page.get_by_role("button", name="Approve: Create return label (warranty)").click()
    expect(page.get_by_role("status")).to_contain_text("Approved.")

    deadline = time.monotonic() + LABEL_SECONDS
    while not labels(warranty.state):
        assert time.monotonic() < deadline, "the approved label was never made"
        time.sleep(0.3)
    (label,) = labels(warranty.state)
    assert label["order_id"] == "C-1042"
    assert {call["key"] for call in calls(warranty.state)} == {label["key"]}
    assert label["key"].startswith(case.run_id)
    assert problems == []

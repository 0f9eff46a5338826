"""Issue 15: more waiting requests than one page, on the dev server, through every face.

A tenant of its own gets 60 refund runs, each waiting for a decision, with pages of 25
(`SIGNOFF_PAGE_SIZE`). Each run asks for its own approval time, in shuffled order, so
the request that expires first is neither the first nor the last one started. The truth
each listing is held to comes from each run's own `state` query, not from visibility.
Checked: the count is exact; the soonest-expiring request leads; following `next`
reaches every request exactly once, in expiry order; `signoff pending`, the JSON API and
the inbox page give the same pages; `signoff list` pages through the 60 runs. In the
browser, on the UI `signoff dev` serves (50 a page, so two pages here): the paged inbox
passes the accessibility checks of test_browser_access.py and the phone checks of
phone.py, "Next page" leads to the last ten, and a poll keeps the page it is on.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import Engine

from activities.store import add_reviewer, write_transaction
from activities.store.schema import Tenant
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.config.temporal_client import connect
from signoff.service.handles import Runs
from signoff.service.pending import run_state, waiting_query
from signoff.service.runs import start_run
from signoff.wiring.local_stack import SIGNOFF
from tests.admin import ADMIN
from tests.ui.browser import new_page, screenshot, sign_in
from tests.ui.conftest import DevStack, add_case, in_thread
from tests.ui.phone import PHONE, phone_problems
from tests.ui.test_browser_access import NEXT_INBOX_SWAP, accessibility_problems
from workflows.actions import REFUND_APPROVER_ROLE
from workflows.contracts import ModelRef, RunRequest

pytestmark = pytest.mark.devserver
WAITING = 60
PAGE_SIZE = 25
WAIT_SECONDS = 300
NEXT_LINK = re.compile(r'<a href="/approvals\?after=([^"]+)">Next page</a>')
CARD = re.compile(r'data-run-id="([^"]+)" data-action-hash="([0-9a-f]{64})"')


@dataclass(frozen=True)
class Crowd:
    tenant_id: str
    reviewer_id: str
    run_ids: set[str]
    truth: list[tuple[str, str]]  # (run id, action hash), soonest expiry first, per query


def request_for(
    settings: Settings, tenant_id: str, run_id: str, ticket_id: str, ttl_minutes: int
) -> RunRequest:
    return RunRequest(
        tenant_id=tenant_id,
        actor_id="paging-test",
        request_id=run_id.removeprefix(f"run-{tenant_id}-"),
        trace_id=uuid.uuid4().hex,
        goal="Answer the customer's support ticket.",
        ticket_id=ticket_id,
        policy_version=settings.policy_version,
        model=ModelRef(provider="scripted", model_id="demo"),
        deadline=datetime.now(UTC) + timedelta(hours=48),
        approval_ttl_seconds=ttl_minutes * 60,
    )


async def start_and_wait(settings: Settings, requests: list[RunRequest]) -> list[tuple[str, str]]:
    """Starts every run at once; once all wait, the truth from each run's query."""
    client = await connect(settings)
    await asyncio.gather(
        *(start_run(Runs(client), request, settings.task_queue) for request in requests)
    )
    tenant_id = requests[0].tenant_id
    deadline = time.monotonic() + WAIT_SECONDS
    while (await client.count_workflows(waiting_query(tenant_id))).count < len(requests):
        assert time.monotonic() < deadline, "the runs did not all come to wait for a decision"
        await asyncio.sleep(0.5)
    states = await asyncio.gather(
        *(run_state(Runs(client), f"run-{tenant_id}-{request.request_id}") for request in requests)
    )
    assert None not in states, "a waiting run did not answer its state query"
    actions = [
        (action, state.run_id) for state in states if state for action in state.pending_actions
    ]
    actions.sort(key=lambda pair: (pair[0].expires_at, pair[0].action_hash))
    return [(run_id, action.action_hash) for action, run_id in actions]


@pytest.fixture(scope="module")
def crowd(dev_stack: DevStack, store: Engine) -> Crowd:
    suffix = uuid.uuid4().hex[:6]
    tenant_id, reviewer_id = f"paging{suffix}", f"pager{suffix}"
    with write_transaction(store) as session:
        session.add(Tenant(id=tenant_id, name="Paging test"))
    add_reviewer(
        store, ADMIN, reviewer_id, tenant_id, [REFUND_APPROVER_ROLE], f"demo-{reviewer_id}"
    )
    cases = [add_case(store, tenant_id) for _ in range(WAITING)]
    # Approval times of 2 h and more, one minute apart, shuffled over the start order.
    minutes = random.Random(15).sample(range(120, 120 + WAITING), WAITING)
    settings = dev_stack.settings()
    requests = [
        request_for(settings, tenant_id, case.run_id, case.ticket_id, ttl)
        for case, ttl in zip(cases, minutes, strict=True)
    ]
    truth = in_thread(start_and_wait(settings, requests))
    return Crowd(tenant_id, reviewer_id, {case.run_id for case in cases}, truth)


@pytest.fixture
def paged(app_settings: Settings) -> Iterator[TestClient]:
    settings = app_settings.model_copy(update={"auth": "proxy", "page_size": PAGE_SIZE})
    with TestClient(create_app(settings), follow_redirects=False) as client:
        yield client


def signoff_paged(stack: DevStack, *args: str) -> Any:
    """A `signoff` command with pages of 25, its JSON output parsed."""
    env = {**stack.env, "SIGNOFF_PAGE_SIZE": str(PAGE_SIZE)}
    done = subprocess.run(
        [SIGNOFF, *args, "--json"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_cli_and_api_page_through_every_request_once_soonest_expiry_first(
    dev_stack: DevStack, crowd: Crowd, paged: TestClient
) -> None:
    assert len(crowd.truth) == WAITING  # one refund per run
    cli_pages, api_pages = [], []
    after: str | None = None
    while True:
        args = ["pending", "--tenant", crowd.tenant_id] + (["--after", after] if after else [])
        cli_pages.append(signoff_paged(dev_stack, *args))
        api = paged.get(
            "/api/approvals",
            params={"after": after} if after else {},
            headers={"X-Forwarded-User": crowd.reviewer_id},
        )
        assert api.status_code == 200, api.text
        api_pages.append(api.json())
        after = cli_pages[-1]["next"]
        if after is None:
            break
    assert [len(page["items"]) for page in cli_pages] == [25, 25, 10]
    for cli, api in zip(cli_pages, api_pages, strict=True):
        assert cli["total"] == api["total"] == WAITING
        assert cli["waiting_runs"] == api["waiting_runs"] == WAITING
        assert cli["unread_runs"] == api["unread_runs"] == 0
        assert cli["next"] == api["next"]
        assert [(row["run_id"], row["action_hash"]) for row in cli["items"]] == [
            (item["run_id"], item["action"]["action_hash"]) for item in api["items"]
        ]
    listed = [(row["run_id"], row["action_hash"]) for page in cli_pages for row in page["items"]]
    assert listed == crowd.truth  # each exactly once, soonest expiry first
    assert listed[0] == crowd.truth[0]  # the request that expires next leads page one


def test_signoff_pending_says_how_many_wait_and_how_to_go_on(
    dev_stack: DevStack, crowd: Crowd
) -> None:
    env = {**dev_stack.env, "SIGNOFF_PAGE_SIZE": str(PAGE_SIZE)}
    done = subprocess.run(
        [SIGNOFF, "pending", "--tenant", crowd.tenant_id],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == (
        f"{WAITING} requests waiting for a decision (in {WAITING} runs), soonest expiry "
        "first; 1-25 on this page"
    )
    assert lines[1].startswith(crowd.truth[0][0])  # the request that expires next
    assert lines[-1].startswith("more on the next page: add --after p1.")


def test_the_inbox_counts_all_and_links_page_to_page(crowd: Crowd, paged: TestClient) -> None:
    headers = {"X-Forwarded-User": crowd.reviewer_id}
    page = paged.get("/approvals", headers=headers)
    assert page.status_code == 200
    assert f"{WAITING} requests are waiting." in page.text
    assert f"Requests 1–25 of {WAITING}; more on the next page." in page.text
    seen: list[tuple[str, str]] = []
    links = 0
    while True:
        seen += CARD.findall(page.text)
        found = NEXT_LINK.search(page.text)
        if found is None:
            break
        links += 1
        page = paged.get(f"/approvals?after={found.group(1)}", headers=headers)
        assert page.status_code == 200
        assert f'hx-get="/approvals/rows?after={found.group(1)}"' in page.text  # the poll
    assert links == 2 and seen == crowd.truth
    assert f"Requests 51–60 of {WAITING}." in page.text and "First page" in page.text


def test_signoff_list_pages_with_the_count_of_all(dev_stack: DevStack, crowd: Crowd) -> None:
    base = ["list", "--tenant", crowd.tenant_id, "--status", "waiting_for_approval"]
    run_ids: list[str] = []
    after: str | None = None
    while True:
        page = signoff_paged(dev_stack, *base, *(["--after", after] if after else []))
        assert page["total"] == WAITING
        assert len(page["items"]) <= PAGE_SIZE
        run_ids += [row["run_id"] for row in page["items"]]
        after = page["next"]
        if after is None:
            break
    assert len(run_ids) == WAITING and set(run_ids) == crowd.run_ids


def test_a_cursor_not_given_out_is_refused(crowd: Crowd, paged: TestClient) -> None:
    headers = {"X-Forwarded-User": crowd.reviewer_id}
    api = paged.get("/api/approvals", params={"after": "p1.forged"}, headers=headers)
    assert api.status_code == 422 and "follow `next`" in api.json()["detail"]
    inbox = paged.get("/approvals?after=p1.forged", headers=headers)
    assert inbox.status_code == 400 and "Open the first page of the inbox." in inbox.text


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    yield from new_page(browser, **PHONE)


def test_a_paged_inbox_in_the_browser_is_accessible_and_keeps_its_page(
    phone: Page, dev_stack: DevStack, crowd: Crowd
) -> None:
    sign_in(phone, dev_stack, crowd.reviewer_id)  # the launcher's UI: 50 a page
    count = phone.locator("#inbox-count")
    expect(count).to_have_text(f"{WAITING} requests are waiting.")
    cards = phone.locator("li.card")
    expect(cards).to_have_count(50)
    assert cards.first.get_attribute("data-run-id") == crowd.truth[0][0]  # expires next
    problems = accessibility_problems(phone)
    problems += phone_problems(phone)
    phone.get_by_role("link", name="Next page").click()
    expect(phone.get_by_text(f"Requests 51–60 of {WAITING}.")).to_be_visible()
    expect(cards).to_have_count(WAITING - 50)
    problems += accessibility_problems(phone)
    problems += phone_problems(phone)
    screenshot(phone, "phone-inbox-page-2.png")
    assert not problems, "\n".join(problems)
    phone.evaluate(NEXT_INBOX_SWAP)  # a poll: the list is fetched again, for this page
    shown = [card.get_attribute("data-run-id") for card in cards.all()]
    assert shown == [run_id for run_id, _ in crowd.truth[50:]]
    expect(phone.get_by_role("link", name="First page")).to_be_visible()

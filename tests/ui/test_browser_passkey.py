"""The passkey step-up in Chromium, with the DevTools virtual authenticator (a platform
passkey that verifies its user): the demo tenant's approvals above 50.00 need the
reviewer's passkey (SIGNOFF_PASSKEY_ABOVE).

Alice registers a passkey on the Passkeys page, approves a 60.00 refund with it, and
the refund is made. Without a passkey the decision is refused at the page and at the
service, and `signoff approve` says to decide it in the reviewer UI (exit 2). The very
form that carried alice's assertion, sent again, is refused: its use was counted.

Its own `signoff dev`: the UI is opened at http://localhost (WebAuthn wants a secure
context, which localhost is, and a host name, not an IP, as its relying party id).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Request, expect
from sqlalchemy import Engine, select

from activities.store import make_engine
from activities.store.database import use_session
from activities.store.refunds import list_refunds
from activities.store.schema import DecisionRow
from signoff.wiring.local_stack import free_port, signoff_dev_stack
from tests.conftest import demo_home
from tests.ui.browser import sign_in, watch_console
from tests.ui.conftest import DevStack, RefundCase, add_case, start_run, wait_until_pending

pytestmark = [pytest.mark.devserver, pytest.mark.browser]
REFUNDED_SECONDS = 60
NEEDS_PASSKEY = "this decision needs a passkey: decide it in the reviewer UI"
ACCENT = "rgb(11, 92, 173)"  # a primary button's background (app.css --accent)
DISABLED_LOOK = "el => [getComputedStyle(el).cursor, getComputedStyle(el).backgroundColor]"
VIRTUAL_PASSKEY = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
}


@pytest.fixture(scope="module")
def passkey_stack(
    tmp_path_factory: pytest.TempPathFactory, demo_store_template: Path
) -> Iterator[DevStack]:
    home = demo_home(demo_store_template, tmp_path_factory.mktemp("signoff-passkey-home"))
    port = str(free_port())
    with signoff_dev_stack(
        home,
        task_queue=f"passkey-{os.getpid()}",
        SIGNOFF_UI_PORT=port,
        SIGNOFF_PASSKEY_ABOVE=json.dumps({"demo": "50.00"}),
        SIGNOFF_PASSKEY_RP_ID="localhost",
        SIGNOFF_PASSKEY_ORIGINS=f"http://localhost:{port}",
    ) as (env, _):
        yield DevStack(env=env, home=home, ui_url=f"http://localhost:{port}")


@pytest.fixture(scope="module")
def passkey_store(passkey_stack: DevStack) -> Iterator[Engine]:
    engine = make_engine(passkey_stack.settings().resolved_database_url)
    yield engine
    engine.dispose()


def with_virtual_passkey(page: Page) -> None:
    """The page's browser gets a platform authenticator that verifies its user."""
    devtools = page.context.new_cdp_session(page)
    devtools.send("WebAuthn.enable")
    devtools.send("WebAuthn.addVirtualAuthenticator", {"options": VIRTUAL_PASSKEY})


def pending(stack: DevStack, store: Engine) -> tuple[RefundCase, str]:
    case = add_case(store)  # 60.00 EUR, refunded in full by the demo script: above 50.00
    start_run(stack, case)
    return case, wait_until_pending(stack, case)


def refunds_of(store: Engine, case: RefundCase) -> list[Any]:
    return list_refunds(store, case.tenant_id, case.order_id)


def wait_for_refund(store: Engine, case: RefundCase) -> None:
    deadline = time.monotonic() + REFUNDED_SECONDS
    while not refunds_of(store, case):
        assert time.monotonic() < deadline, "the approved refund was never made"
        time.sleep(0.3)


def test_register_approve_with_the_passkey_and_a_replay_is_refused(
    page: Page, passkey_stack: DevStack, passkey_store: Engine
) -> None:
    problems = watch_console(page)
    with_virtual_passkey(page)
    sign_in(page, passkey_stack, "alice")
    page.get_by_role("link", name="Passkeys").click()
    expect(page.locator("#no-passkeys")).to_be_visible()
    page.get_by_role("button", name="Register a passkey").click()
    expect(page.locator("#passkey-list tbody tr")).to_have_count(1)

    case, _ = pending(passkey_stack, passkey_store)
    page.goto(f"{passkey_stack.ui_url}/approvals/{case.run_id}")
    expect(page.locator(".passkey-needed")).to_be_visible()
    sent: list[Request] = []
    page.on("request", lambda r: sent.append(r) if r.url.endswith("/decision") else None)
    page.get_by_role("button", name="Approve refund of 60.00 EUR with your passkey").click()
    expect(page.locator("p.notice[role=status]")).to_contain_text("Approved")
    wait_for_refund(passkey_store, case)
    (refund,) = refunds_of(passkey_store, case)
    assert refund.approver_list == ["alice"]

    # The same form, assertion and all, sent again: refused before any decision.
    (form,) = sent
    again = page.request.post(
        form.url,
        data=form.post_data or "",
        headers={"content-type": "application/x-www-form-urlencoded"},
        max_redirects=0,
    )
    assert again.status == 403, again.status
    assert "does not prove this decision" in again.text() and "sign count" in again.text()
    assert len(refunds_of(passkey_store, case)) == 1
    assert problems == []


def test_without_a_passkey_the_decision_is_refused_everywhere(
    page: Page, passkey_stack: DevStack, passkey_store: Engine
) -> None:
    """Bob has no passkey: the page asks him to register one first, the decision service
    refuses the form sent without it, and the CLI (which cannot do a passkey) says where
    to decide. Nothing is refunded and the run still waits."""
    problems = watch_console(page)
    case, action_hash = pending(passkey_stack, passkey_store)
    sign_in(page, passkey_stack, "bob")
    page.goto(f"{passkey_stack.ui_url}/approvals/{case.run_id}")
    expect(page.locator("#register-first")).to_contain_text("you have none yet")
    approve = page.get_by_role("button", name="Approve refund of 60.00 EUR with your passkey")
    expect(approve).to_be_disabled()
    # It looks disabled, not like the blue primary action, and says why beside it.
    cursor, background = approve.evaluate(DISABLED_LOOK)
    assert (cursor, background == ACCENT) == ("not-allowed", False), (cursor, background)
    expect(approve).to_have_attribute("aria-describedby", "register-first")

    csrf = page.locator("input[name=csrf_token]").first.input_value()
    plain = page.request.post(
        f"{passkey_stack.ui_url}/approvals/{case.run_id}/decision",
        form={"csrf_token": csrf, "action_hash": action_hash, "verdict": "approve"},
        max_redirects=0,
    )
    assert plain.status == 403 and NEEDS_PASSKEY in plain.text()

    cli = passkey_stack.signoff(
        *("approve", case.run_id, "--hash", action_hash, "--as", "bob", "--password-stdin"),
        stdin="demo-bob\n",
    )
    assert cli.returncode == 2, cli.stderr
    assert NEEDS_PASSKEY in cli.stderr and "Traceback" not in cli.stderr

    assert refunds_of(passkey_store, case) == []
    with use_session(passkey_store) as session:
        kinds = session.scalars(select(DecisionRow.kind).where(DecisionRow.run_id == case.run_id))
        assert "approved" not in list(kinds)
    wait_until_pending(passkey_stack, case)  # still waiting for a decision
    assert problems == []

"""One-tap e-mail links on real runs (`/decide/{code}`): opening one decides nothing, its
confirmation POST decides once through the decision service, and a used, expired or
another reviewer's link says so and decides nothing. Expiry is built from the clock the
code reads (links issued that long ago), never from the calendar."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.email_links import decision_link
from signoff.service.handles import Store
from tests.clock import clock_now
from tests.ui.conftest import DevStack, RefundCase, csrf_of, sign_in
from tests.ui.conftest import wait_until_pending as wait_pending
from tests.ui.test_routes import wait_completed

pytestmark = pytest.mark.devserver


def path_of(url: str) -> str:
    return url[url.index("/decide/") :]


def test_opening_decides_nothing_and_the_confirmation_decides_once(
    ui: TestClient,
    store: Engine,
    app_settings: Settings,
    pending_case: RefundCase,
    dev_stack: DevStack,
) -> None:
    action_hash = wait_pending(dev_stack, pending_case)
    url, grant = decision_link(
        Store(store), app_settings, "bob", pending_case.run_id, action_hash, "approve"
    )
    assert url.startswith(app_settings.ui_base_url) and grant.reviewer_id == "bob"
    token = sign_in(ui, "bob")
    page = ui.get(path_of(url))
    assert page.status_code == 200 and 'id="decide-confirm"' in page.text
    assert wait_pending(dev_stack, pending_case) == action_hash  # a GET never decides
    forged = ui.post(path_of(url), data={"csrf_token": "forged"})
    assert forged.status_code == 403
    decided = ui.post(path_of(url), data={"csrf_token": token})
    assert decided.status_code == 200 and "Approved" in decided.text, decided.text
    again = ui.post(path_of(url), data={"csrf_token": token})
    assert again.status_code == 410 and "used already" in again.text
    timeline = wait_completed(ui, pending_case.run_id)
    assert "Approved from an e-mail link." in timeline


def test_an_expired_link_decides_nothing(
    ui: TestClient,
    store: Engine,
    app_settings: Settings,
    pending_case: RefundCase,
    dev_stack: DevStack,
) -> None:
    action_hash = wait_pending(dev_stack, pending_case)
    long_ago = clock_now() - timedelta(minutes=app_settings.email_link_minutes, seconds=1)
    url, _ = decision_link(
        Store(store), app_settings, "bob", pending_case.run_id, action_hash, "approve", now=long_ago
    )
    token = sign_in(ui, "bob")
    opened = ui.get(path_of(url))
    assert opened.status_code == 410 and "has expired" in opened.text
    posted = ui.post(path_of(url), data={"csrf_token": token})
    assert posted.status_code == 410 and "has expired" in posted.text
    assert wait_pending(dev_stack, pending_case) == action_hash


def test_another_reviewers_link_is_refused_and_stays_theirs(
    ui: TestClient,
    store: Engine,
    app_settings: Settings,
    pending_case: RefundCase,
    dev_stack: DevStack,
) -> None:
    action_hash = wait_pending(dev_stack, pending_case)
    url, _ = decision_link(
        Store(store), app_settings, "bob", pending_case.run_id, action_hash, "reject"
    )
    assert ui.get(path_of(url)).status_code == 303  # signed out: to the sign-in page first
    token = sign_in(ui, "alice")
    assert ui.get(path_of(url)).status_code == 403
    taken = ui.post(path_of(url), data={"csrf_token": token, "category": "other", "reason": "x"})
    assert taken.status_code == 403 and "sent to another reviewer" in taken.text
    assert wait_pending(dev_stack, pending_case) == action_hash
    with TestClient(create_app(app_settings), follow_redirects=False) as bob:
        bobs = sign_in(bob, "bob")
        short = bob.post(path_of(url), data={"csrf_token": bobs})  # no category nor reason
        assert short.status_code == 400 and "choose why" in short.text
        page = bob.get(path_of(url))  # still unused
        assert page.status_code == 200
        rejected = bob.post(
            path_of(url),
            data={
                "csrf_token": csrf_of(page.text),
                "category": "not_eligible",
                "reason": "past 30 days",
            },
        )
        assert rejected.status_code == 200 and "Rejected" in rejected.text, rejected.text
        timeline = wait_completed(bob, pending_case.run_id)
    assert "past 30 days" in timeline and "no refund was made" in timeline

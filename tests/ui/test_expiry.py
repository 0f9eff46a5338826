"""A refund nobody decided on in time, as a reviewer sees it: the routes of the reviewer
UI against a run on the time-skipping server, whose clock moves past the expiry.

The dev server cannot skip the 24 h expiry, so this UI runs on the time-skipping test
server: `create_app` gets that server's client and the seeded store, and the test
drives it in its own event loop (httpx over ASGI). The run proposes a refund, lets it
expire, then proposes a smaller one: it stays alive, so the late decision on the first
reaches the workflow's validator, whose words the reviewer reads. (The inbox lists
runs through visibility queries, which the test server does not answer: the inbox is
tested on the dev server, in test_routes.py and the browser tests.)
"""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.store import list_refunds
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.handles import Runs, Store
from tests.ui.conftest import CSRF_PATTERN
from tests.workflow.approvals import (
    WAIT_SECONDS,
    audit_caught_up,
    gate_run,
    pending_actions,
    state_when,
)
from tests.workflow.fakes import FakeModel, text_reply, tool_reply

FIRST = ("refund", {"amount": "89.90", "reason": "The vase arrived broken."})
SECOND = ("refund", {"amount": "40.00", "reason": "Half, as a gesture."})
# The first request expires after 24 h; the clock stops an hour later.
PAST_EXPIRY = timedelta(hours=25)


@pytest.fixture
async def reviewer_ui(
    isolated_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> AsyncIterator[httpx.AsyncClient]:
    async def connect(_: Settings) -> Runs:
        return Runs(isolated_env.client)

    settings = Settings(
        home=tmp_path, ui_secret=SecretStr("expiry-test-secret-of-at-least-32-bytes")
    )
    app = create_app(settings, temporal_connect=connect, engine=Store(seeded_engine))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


async def sign_in(client: httpx.AsyncClient, name: str) -> str:
    """Signs a demo reviewer in; returns the session's CSRF token."""
    form = await client.get("/signin")
    token = csrf(form.text)
    answer = await client.post(
        "/signin", data={"csrf_token": token, "username": name, "password": f"demo-{name}"}
    )
    assert answer.status_code == 303, answer.text
    token: str = (await client.get("/api/me")).json()["csrf_token"]
    return token


def csrf(html: str) -> str:
    found = CSRF_PATTERN.search(html)
    assert found is not None, html
    return found.group(1)


async def test_a_late_decision_reads_how_long_ago_it_expired(
    isolated_env: WorkflowEnvironment, seeded_engine: Engine, reviewer_ui: httpx.AsyncClient
) -> None:
    env, ui = isolated_env, reviewer_ui
    model = FakeModel().enqueue(tool_reply(FIRST), tool_reply(SECOND), text_reply("unused"))
    async with gate_run(env, model, seeded_engine) as handle:
        run_id = handle.id
        (first,) = await pending_actions(handle)
        token = await sign_in(ui, "alice")
        opened = await ui.get(f"/approvals/{run_id}")
        assert opened.status_code == 200 and first.action_hash in opened.text

        # Nobody decides; a day passes. The run tells the model, which asks again.
        await asyncio.wait_for(env.sleep(PAST_EXPIRY), WAIT_SECONDS)
        state = await state_when(
            handle,
            lambda s: [a.arguments["amount"] for a in s.pending_actions] == ["40.00"],
            "asking again after the expiry",
        )
        (second,) = state.pending_actions

        # The reviewer who opened the page yesterday clicks Approve on it.
        late = await ui.post(
            f"/approvals/{run_id}/decision",
            data={"csrf_token": token, "action_hash": first.action_hash, "verdict": "approve"},
        )
        # The same click on a page in French: the run's refusal, in French.
        late_fr = await ui.post(
            f"/approvals/{run_id}/decision",
            data={"csrf_token": token, "action_hash": first.action_hash, "verdict": "approve"},
            headers={"Accept-Language": "fr"},
        )
        late_api = await ui.post(
            f"/api/approvals/{run_id}/decision",
            json={"action_hash": first.action_hash, "verdict": "approve"},
            headers={"X-CSRF-Token": token},
        )
        trail = (await ui.get(f"/runs/{run_id}")).text

        # The run is cancelled; a decision on what it still waited for is refused, and
        # the reviewer reads what became of the request.
        await audit_caught_up(handle, seeded_engine)
        await handle.cancel()
        await asyncio.wait_for(handle.result(), WAIT_SECONDS)
        too_late = await ui.post(
            f"/api/approvals/{run_id}/decision",
            json={"action_hash": second.action_hash, "verdict": "approve"},
            headers={"X-CSRF-Token": token},
        )

    assert late.status_code == 409
    refusal = re.search(r'<p class="refusal"[^>]*>([^<]*)</p>', late.text)
    assert refusal is not None, late.text
    assert refusal.group(1) == "Expired 60 minutes ago; it did not happen."
    refusal_fr = re.search(r'<p class="refusal"([^>]*)>([^<]*)</p>', late_fr.text)
    assert refusal_fr is not None, late_fr.text
    assert html.unescape(refusal_fr.group(2)) == (
        "Expirée il y a 60 minutes ; elle n'a pas eu lieu."
    )
    assert 'lang="en"' not in refusal_fr.group(1)  # not marked as a sentence left in English
    # The page now offers the request that is waiting, not the expired one.
    assert second.action_hash in late.text
    assert f'name="action_hash" value="{first.action_hash}"' not in late.text
    assert late_api.status_code == 409
    assert late_api.json()["detail"] == "Expired 60 minutes ago; it did not happen."
    # The run's timeline shows the expiry, with what expired.
    decisions = trail.split('<table class="decisions')[1].split("</table>")[0]
    assert '<td data-label="Decision" data-kind="expired">expired</td>' in decisions
    assert '89.90 EUR on <bdi class="id">C-1042</bdi>' in decisions
    assert too_late.status_code == 409
    assert too_late.json()["detail"] == (
        "This run ended before this request was decided (cancelled); the refund did not happen."
    )
    assert list_refunds(seeded_engine, "demo", "C-1042") == []

"""The decision page of a refund through Stripe, as the reviewer reads it: the order's
prior refunds are Stripe's, read when the page is drawn (one made in Stripe's own
dashboard, which signoff never saw, is listed with its amount and id); and a Stripe
that cannot be read is said above the table, never hidden.

The UI runs against a run waiting on the time-skipping server: `create_app` gets that
server's client, the seeded store and the settings naming localstripe, and the test
drives it in its own event loop (httpx over ASGI), as tests/ui/test_expiry.py does.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
from pydantic import SecretStr
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.payments.registry import PaymentConnectors
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.handles import Runs, Store
from tests.payments.conftest import link_paid_order
from tests.payments.localstripe import LocalStripe
from tests.ui.test_expiry import sign_in
from tests.workflow.approvals import decide, decision, gate_run, pending_actions
from tests.workflow.fakes import FakeModel, text_reply, tool_reply

SECRET = SecretStr("stripe-page-test-secret-of-at-least-32-bytes")
REFUND = ("refund", {"amount": "12.50", "reason": "The vase arrived broken."})


@asynccontextmanager
async def reviewer_ui(
    env: WorkflowEnvironment, engine: Engine, settings: Settings
) -> AsyncIterator[httpx.AsyncClient]:
    async def connect(_: Settings) -> Runs:
        return Runs(env.client)

    app = create_app(
        settings.model_copy(update={"ui_secret": SECRET}),
        temporal_connect=connect,
        engine=Store(engine),
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


def refund_rows(page: str) -> list[str]:
    table = re.search(r'<table class="refunds.*?</table>', page, re.S)
    return re.findall(r"<tr>(.*?)</tr>", table.group(0), re.S)[1:] if table else []


async def waiting_page(
    env: WorkflowEnvironment,
    engine: Engine,
    payments: PaymentConnectors,
    page_settings: Settings,
    check: Callable[[str], None],
) -> None:
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded."))
    async with gate_run(env, model, engine, payments=payments) as handle:
        (action,) = await pending_actions(handle)
        async with reviewer_ui(env, engine, page_settings) as ui:
            await sign_in(ui, "alice")
            page = await ui.get(f"/approvals/{handle.id}")
            assert page.status_code == 200, page.text
            check(page.text)
        # The run ends as runs do, so nothing of it outlives the test.
        await decide(handle, decision(engine, "alice", action.action_hash))
        await handle.result()


async def test_the_page_lists_stripe_s_refunds_read_now(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    localstripe: LocalStripe,
    payments: PaymentConnectors,
    stripe_home: Settings,
) -> None:
    _, charge = link_paid_order(seeded_engine, payments, localstripe, 4999)
    # Made in Stripe itself: signoff has no row of it, only Stripe knows.
    made = localstripe.client().v1.refunds.create(params={"charge": charge, "amount": 700})

    def check(page: str) -> None:
        (row,) = refund_rows(page)
        assert made.id in row
        assert "7.00 EUR" in row
        assert 'id="refunds-unavailable"' not in page
        assert re.search(r'id="paid">\s*49\.99 EUR', page)  # Stripe's charge, not 89.90

    await waiting_page(time_skipping_env, seeded_engine, payments, stripe_home, check)


async def test_an_unreadable_stripe_is_said_above_the_table(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    localstripe: LocalStripe,
    payments: PaymentConnectors,
    stripe_home: Settings,
) -> None:
    link_paid_order(seeded_engine, payments, localstripe, 4999)
    unreachable = stripe_home.model_copy(update={"stripe_api_base": "http://127.0.0.1:9"})

    def check(page: str) -> None:
        warning = re.search(r'id="refunds-unavailable">(.*?)</p>', page, re.S)
        assert warning is not None, page
        assert "did not answer" in warning.group(1)
        assert refund_rows(page) == []

    await waiting_page(time_skipping_env, seeded_engine, payments, unreachable, check)

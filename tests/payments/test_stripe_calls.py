"""How many calls an approved refund makes to Stripe, counted on the SDK's transport
against localstripe: docs/connect-stripe.md says how many fit in the refund activity's
time (`SIGNOFF_STRIPE_TIMEOUT_SECONDS` each), and this holds the page to the count.

The effect reads the payment once (the PaymentIntent, its charge expanded), lists the
charge's refunds once (a refund an earlier attempt made under the key is found there,
and what remains refundable is read from the same list), then creates the refund. It
used to make six: the refunds were listed twice and the PaymentIntent read three times.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import stripe
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.payments.registry import PaymentConnectors
from activities.payments.stripe_connector import StripeConnector
from signoff.config.settings import Settings
from signoff.config.stripe_keys import read_key
from signoff.payments.registry import TenantPlatform
from tests.payments.conftest import TEST_TIMEOUT_SECONDS, link_paid_order
from tests.payments.localstripe import LocalStripe
from tests.workflow.approvals import decide, decision, gate_run, pending_actions
from tests.workflow.fakes import FakeModel, text_reply, tool_reply

PAGE = Path(__file__).resolve().parents[2] / "docs" / "connect-stripe.md"
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
REFUND = ("refund", {"amount": "12.50", "reason": "The vase arrived broken."})


class CountingTransport(stripe.RequestsClient):
    """The SDK's own transport, which notes each call's method and path."""

    def __init__(self, timeout_seconds: float) -> None:
        super().__init__(timeout=timeout_seconds)
        self.calls: list[tuple[str, str]] = []

    def request(self, method: str, url: str, headers: Any, post_data: Any = None) -> Any:
        path = re.sub(r"^https?://[^/]+", "", url).split("?")[0]
        self.calls.append((method.upper(), re.sub(r"/(pi|ch)_\w+", r"/\1_ID", path)))
        return super().request(method, url, headers, post_data)


class CountedConnectors(PaymentConnectors):
    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.transport = CountingTransport(TEST_TIMEOUT_SECONDS)

    def _connector(self, tenant: TenantPlatform) -> StripeConnector:
        return StripeConnector(
            read_key(tenant.source),
            api_base=self._settings.stripe_api_base,
            timeout_seconds=TEST_TIMEOUT_SECONDS,
            http_client=self.transport,
        )


def calls_the_page_states() -> int:
    said = re.search(r"A refund's effect makes (\w+) calls", PAGE.read_text())
    assert said is not None, "the page no longer says how many calls a refund makes"
    return WORDS[said[1]]


async def test_an_approved_refund_makes_the_calls_the_page_says(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    localstripe: LocalStripe,
    payments: PaymentConnectors,
    stripe_home: Settings,
) -> None:
    _, charge = link_paid_order(seeded_engine, payments, localstripe, 4999)
    counted = CountedConnectors(stripe_home)
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Refunded."))
    async with gate_run(time_skipping_env, model, seeded_engine, payments=counted) as handle:
        (action,) = await pending_actions(handle)
        proposed = list(counted.transport.calls)
        counted.transport.calls.clear()  # from here on: the effect's calls alone
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        await handle.result()

    assert [refund["amount"] for refund in localstripe.refunds(charge)] == [1250]
    effect = counted.transport.calls
    assert effect == [
        ("GET", "/v1/payment_intents/pi_ID"),
        ("GET", "/v1/refunds"),
        ("POST", "/v1/refunds"),
    ], effect
    assert len(effect) == calls_the_page_states()
    # The proposal read the same payment once, for the state the reviewer judged.
    assert proposed == [("GET", "/v1/payment_intents/pi_ID"), ("GET", "/v1/refunds")], proposed

"""What the reply-delivery tests share: connectors pointed at the local helpdesk, an
effect activity that delivers through them, and a ticket that came from Zendesk."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from sqlalchemy import Engine

from activities.connectors.breaker import BreakerPolicy
from activities.connectors.breakers import Breakers, Clock, utc_now
from activities.connectors.replies import HelpdeskReplies
from activities.store.intake_deliveries import DeliveryKey, NewTicket, store_delivery
from activities.tool_effects import ToolEffects
from signoff.config.helpdesks import HelpdeskConnector
from signoff.config.profiles import BUILTIN_PROFILES, LoadedProfiles, load_profile_file
from signoff.helpdesks.webhook_kind import WebhookConnector
from signoff.helpdesks.zendesk_kind import ZendeskConnector
from tests.workflow.approvals import MCP_TIMEOUT_SECONDS, TEST_KEYS

ZENDESK_TOKEN = "zendesk-api-token-for-the-tests-only"
WEBHOOK_TOKEN = "webhook-bearer-token-for-the-tests-only"
POLICY = BreakerPolicy(
    failures_to_open=2, cooldown=timedelta(minutes=5), trial_timeout=timedelta(minutes=1)
)
TIMEOUT_SECONDS = 5.0


def zendesk(url: str) -> ZendeskConnector:
    return ZendeskConnector(
        kind="zendesk", url=url, email="agent@example.com", api_token=ZENDESK_TOKEN
    )


def webhook(url: str) -> WebhookConnector:
    return WebhookConnector(kind="webhook", url=f"{url}/replies", token=WEBHOOK_TOKEN)


class MovableClock:
    """The breakers' clock: the wall clock, plus what the test moved it by."""

    def __init__(self, base: Clock = utc_now) -> None:
        self._base = base
        self.ahead = timedelta()

    def __call__(self) -> datetime:
        return self._base() + self.ahead


def helpdesk_effects(
    engine: Engine,
    connector: HelpdeskConnector,
    clock: Clock = utc_now,
    tenant_id: str = "demo",
    profiles: LoadedProfiles | None = None,
) -> tuple[ToolEffects, Breakers]:
    breakers = Breakers(engine, POLICY, clock)
    replies = HelpdeskReplies(engine, {tenant_id: connector}, breakers, TIMEOUT_SECONDS)
    effects = ToolEffects(
        engine,
        TEST_KEYS,
        profiles or load_profile_file(BUILTIN_PROFILES),
        MCP_TIMEOUT_SECONDS,
        helpdesks=replies,
    )
    return effects, breakers


def ticket_from_zendesk(engine: Engine, zendesk_ticket_id: str = "4512") -> str:
    """A ticket the intake stored from a Zendesk delivery; our ticket id."""
    key = DeliveryKey("demo", "zendesk", zendesk_ticket_id, f"event-{uuid.uuid4().hex}")
    ticket = NewTicket(customer_name="Ana Martin", text="Where is my kettle?", order_reference=None)
    return store_delivery(
        engine, key, ticket, f"triage-demo-{uuid.uuid4().hex}", utc_now()
    ).ticket_id

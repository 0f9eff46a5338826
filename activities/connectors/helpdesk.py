"""The helpdesk connectors: a reply from the outbox, delivered to the tenant's helpdesk.

Every delivery carries the reply's idempotency key in the `Idempotency-Key` header (and,
for the generic webhook, in the body): a delivery retried after a crash or a timeout is
the same delivery, and the helpdesk must answer it without posting the reply twice
(docs: "Connect your helpdesk"). What the helpdesk answers decides what happens next:

- 2xx: delivered.
- 408, 429, 5xx, a timeout, a refused connection: `HelpdeskUnavailable`. The effect is
  retried with the same key, and the failure counts against the connector's breaker.
- any other 4xx: `HelpdeskRefused`. The helpdesk said no (a wrong token, a deleted
  ticket): retrying cannot change it, and it says nothing of the helpdesk's health.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from signoff.config.helpdesks import HelpdeskConnector
from signoff.helpdesks.registry import known_kinds

if TYPE_CHECKING:  # httpx loads rich and pygments for its own CLI: only when a reply goes
    import httpx

IDEMPOTENCY_HEADER = "Idempotency-Key"
RETRYABLE_STATUSES = frozenset({408, 429})
# What a refusal shows of the helpdesk's answer: enough to act on, never a page of HTML.
SHOWN_ANSWER_CHARS = 200


@dataclass(frozen=True)
class OutgoingReply:
    reply_id: str
    tenant_id: str
    ticket_id: str  # ours
    # The helpdesk's own id of the ticket (from the delivery that brought it in); None
    # for a ticket that did not come through the intake.
    source_ticket_id: str | None
    text: str
    idempotency_key: str


class HelpdeskUnavailable(Exception):
    """The helpdesk did not take the reply now; the same delivery may be tried again."""


class HelpdeskRefused(Exception):
    """The helpdesk refused the reply; sending it again would be refused again."""


def connector_name(tenant_id: str) -> str:
    """The breaker's name of a tenant's helpdesk: one tenant's outage is its own."""
    return f"helpdesk:{tenant_id}"


def target_problem(connector: HelpdeskConnector, reply: OutgoingReply) -> str | None:
    """Why this reply cannot go to this helpdesk at all; None when it can."""
    problem: str | None = _delivery(connector).target_problem(connector, reply)
    return problem


async def deliver(
    connector: HelpdeskConnector, reply: OutgoingReply, timeout_seconds: float
) -> None:
    """Send the reply once under its key; raises HelpdeskUnavailable or HelpdeskRefused."""
    import httpx  # here: a worker of tenants without a helpdesk never loads it

    timeout = connector.timeout_seconds or timeout_seconds
    try:
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
            answer = await client.send(_request(client, connector, reply), auth=_auth(connector))
    except httpx.TimeoutException:
        raise HelpdeskUnavailable(f"no answer within {timeout:g} s") from None
    except httpx.HTTPError as error:
        raise HelpdeskUnavailable(f"could not reach it ({type(error).__name__})") from None
    if answer.is_success:
        return
    shown = answer.text[:SHOWN_ANSWER_CHARS].strip()
    if answer.status_code in RETRYABLE_STATUSES or answer.status_code >= 500:
        raise HelpdeskUnavailable(f"HTTP {answer.status_code}")
    raise HelpdeskRefused(f"HTTP {answer.status_code}" + (f": {shown}" if shown else ""))


def _request(
    client: httpx.AsyncClient, connector: HelpdeskConnector, reply: OutgoingReply
) -> httpx.Request:
    request: httpx.Request = _delivery(connector).request(client, connector, reply)
    return request


def _auth(connector: HelpdeskConnector) -> httpx.Auth | None:
    auth: httpx.Auth | None = _delivery(connector).auth(connector)
    return auth


def _delivery(connector: HelpdeskConnector) -> Any:
    """The delivery its kind declares (signoff/helpdesks): imported on first use."""
    return known_kinds()[connector.kind].delivery_of()

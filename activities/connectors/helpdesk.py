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
from typing import TYPE_CHECKING
from urllib.parse import quote

from signoff.config.helpdesks import HelpdeskConnector, WebhookConnector, ZendeskConnector

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
    if isinstance(connector, ZendeskConnector) and reply.source_ticket_id is None:
        return (
            f"ticket {reply.ticket_id} did not come from Zendesk, so there is no Zendesk "
            "ticket to comment on"
        )
    return None


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
    headers = {IDEMPOTENCY_HEADER: reply.idempotency_key}
    base = connector.url.rstrip("/")
    if isinstance(connector, WebhookConnector):
        if connector.token is not None:
            headers["Authorization"] = f"Bearer {connector.token.get_secret_value()}"
        body = {
            "tenant_id": reply.tenant_id,
            "ticket_id": reply.source_ticket_id or reply.ticket_id,
            "signoff_ticket_id": reply.ticket_id,
            "reply_id": reply.reply_id,
            "text": reply.text,
            "idempotency_key": reply.idempotency_key,
        }
        return client.build_request("POST", connector.url, json=body, headers=headers)
    comment = {"ticket": {"comment": {"body": reply.text, "public": True}}}
    url = f"{base}/api/v2/tickets/{quote(reply.source_ticket_id or '', safe='')}.json"
    return client.build_request("PUT", url, json=comment, headers=headers)


def _auth(connector: HelpdeskConnector) -> httpx.Auth | None:
    """Zendesk's API token authentication: `EMAIL/token` and the token, as Basic."""
    if isinstance(connector, ZendeskConnector):
        import httpx

        return httpx.BasicAuth(f"{connector.email}/token", connector.api_token.get_secret_value())
    return None

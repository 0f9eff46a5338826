"""The generic webhook's delivery (signoff/helpdesks/webhook_kind.py): a JSON POST to
the connector's url, the reply's idempotency key in the body too, so that a helpdesk
that reads only bodies can still post each reply once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from activities.connectors.helpdesk import IDEMPOTENCY_HEADER, OutgoingReply

if TYPE_CHECKING:
    import httpx


class WebhookDelivery:
    def target_problem(self, connector: Any, reply: OutgoingReply) -> str | None:
        return None  # any ticket: the body names ours and the helpdesk's

    def request(
        self, client: httpx.AsyncClient, connector: Any, reply: OutgoingReply
    ) -> httpx.Request:
        headers = {IDEMPOTENCY_HEADER: reply.idempotency_key}
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

    def auth(self, connector: Any) -> httpx.Auth | None:
        return None


DELIVERY = WebhookDelivery()

"""Zendesk's delivery (signoff/helpdesks/zendesk_kind.py): the reply as a public comment
on the Zendesk ticket it answers, with API-token authentication."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from activities.connectors.helpdesk import IDEMPOTENCY_HEADER, OutgoingReply

if TYPE_CHECKING:
    import httpx


class ZendeskDelivery:
    def target_problem(self, connector: Any, reply: OutgoingReply) -> str | None:
        if reply.source_ticket_id is None:
            return (
                f"ticket {reply.ticket_id} did not come from Zendesk, so there is no Zendesk "
                "ticket to comment on"
            )
        return None

    def request(
        self, client: httpx.AsyncClient, connector: Any, reply: OutgoingReply
    ) -> httpx.Request:
        headers = {IDEMPOTENCY_HEADER: reply.idempotency_key}
        comment = {"ticket": {"comment": {"body": reply.text, "public": True}}}
        ticket = quote(reply.source_ticket_id or "", safe="")
        url = f"{connector.url.rstrip('/')}/api/v2/tickets/{ticket}.json"
        return client.build_request("PUT", url, json=comment, headers=headers)

    def auth(self, connector: Any) -> httpx.Auth | None:
        """Zendesk's API token authentication: `EMAIL/token` and the token, as Basic."""
        import httpx

        return httpx.BasicAuth(f"{connector.email}/token", connector.api_token.get_secret_value())


DELIVERY = ZendeskDelivery()

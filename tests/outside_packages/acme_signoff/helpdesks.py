"""The `acmedesk` kind of helpdesk: declared here, registered by the package's entry
point. A tenant's entry in SIGNOFF_HELPDESK_CONNECTORS names `"kind": "acmedesk"`, its
url and its api_key (a secret the logs blank); a reply is a POST to
`{url}/acme/replies` with the key in `X-Acme-Key`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import SecretStr

from activities.connectors.helpdesk import IDEMPOTENCY_HEADER
from signoff.helpdesks import ConnectorSettings, HelpdeskKind


class AcmeDeskConnector(ConnectorSettings):
    kind: Literal["acmedesk"]
    api_key: SecretStr


class AcmeDeskDelivery:
    def target_problem(self, connector: Any, reply: Any) -> str | None:
        return None

    def request(self, client: Any, connector: Any, reply: Any) -> Any:
        headers = {
            IDEMPOTENCY_HEADER: reply.idempotency_key,
            "X-Acme-Key": connector.api_key.get_secret_value(),
        }
        body = {"ticket": reply.ticket_id, "message": reply.text}
        url = f"{connector.url.rstrip('/')}/acme/replies"
        return client.build_request("POST", url, json=body, headers=headers)

    def auth(self, connector: Any) -> Any:
        return None


DELIVERY = AcmeDeskDelivery()

ACMEDESK = HelpdeskKind(
    name="acmedesk",
    settings="acme_signoff.helpdesks:AcmeDeskConnector",
    delivery="acme_signoff.helpdesks:DELIVERY",
)

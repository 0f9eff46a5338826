"""The generic helpdesk: each reply is a JSON POST to `url`, with `Authorization:
Bearer <token>` when a token is set (activities/connectors/webhook_delivery.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import SecretStr

from signoff.helpdesks.registry import ConnectorSettings, HelpdeskKind


class WebhookConnector(ConnectorSettings):
    kind: Literal["webhook"]
    token: SecretStr | None = None


WEBHOOK = HelpdeskKind(
    name="webhook",
    settings="signoff.helpdesks.webhook_kind:WebhookConnector",
    delivery="activities.connectors.webhook_delivery:DELIVERY",
)

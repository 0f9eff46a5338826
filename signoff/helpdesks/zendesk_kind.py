"""Zendesk's ticket-comment API at `url` (https://SUBDOMAIN.zendesk.com), as the agent
`email` with an API token (activities/connectors/zendesk_delivery.py)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, SecretStr

from signoff.helpdesks.registry import ConnectorSettings, HelpdeskKind


class ZendeskConnector(ConnectorSettings):
    kind: Literal["zendesk"]
    email: Annotated[str, Field(min_length=3, max_length=254)]
    api_token: SecretStr


ZENDESK = HelpdeskKind(
    name="zendesk",
    settings="signoff.helpdesks.zendesk_kind:ZendeskConnector",
    delivery="activities.connectors.zendesk_delivery:DELIVERY",
)

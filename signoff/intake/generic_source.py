"""The generic source, documented in "Connect your helpdesk": any helpdesk or script that
signs its deliveries with `X-Signoff-Signature` and `X-Signoff-Timestamp` and sends

    {"event_id": "...", "ticket": {"id": "...", "text": "...",
     "customer_name": "...", "order_id": "..."}}
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from signoff.intake.registry import IncomingTicket, IntakeRefused, IntakeSource, SourceId, Text


class _GenericTicket(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: SourceId
    text: Annotated[Text, Field(min_length=1)]
    customer_name: Annotated[Text, Field(min_length=1)] = "unknown"
    order_id: SourceId | None = None


class _Generic(BaseModel):
    model_config = ConfigDict(extra="ignore")

    event_id: SourceId
    ticket: _GenericTicket


def read_ticket(document: Any) -> IncomingTicket:
    body = _Generic.model_validate(document)
    text = body.ticket.text.strip()
    if not text:
        raise IntakeRefused("malformed", "ticket.text is empty.")
    return IncomingTicket(
        body.ticket.id, body.event_id, body.ticket.customer_name, text, body.ticket.order_id
    )


GENERIC = IntakeSource(
    name="generic",
    signature_header="x-signoff-signature",
    timestamp_header="x-signoff-timestamp",
    reader="signoff.intake.generic_source:read_ticket",
)

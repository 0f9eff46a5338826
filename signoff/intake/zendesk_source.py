"""Zendesk's event webhook, for `zen:event-type:ticket.created`, signed with Zendesk's
`X-Zendesk-Webhook-Signature` and `X-Zendesk-Webhook-Signature-Timestamp`: the event's
`id` is the event id, `detail.id` the ticket, `detail.subject` and `detail.description`
its text, and `detail.external_id`, when it names one of the tenant's orders, its order.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from signoff.intake.registry import IncomingTicket, IntakeRefused, IntakeSource, SourceId, Text

ZENDESK_TICKET_CREATED = "zen:event-type:ticket.created"
# Zendesk's subject field holds at most this; a longer one is not Zendesk's.
MAX_SUBJECT_CHARS = 1000
# Zendesk's ids are integers; a longer requester id is not Zendesk's.
MAX_REQUESTER_CHARS = 64


class _ZendeskDetail(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: Annotated[str, Field(pattern=r"^[0-9]{1,20}$")]
    subject: Annotated[Text, Field(max_length=MAX_SUBJECT_CHARS)] = ""
    description: Text = ""
    requester_id: int | Annotated[str, Field(max_length=MAX_REQUESTER_CHARS)] | None = None
    external_id: str | None = None


class _Zendesk(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: SourceId
    type: str
    detail: _ZendeskDetail


def read_ticket(document: Any) -> IncomingTicket:
    body = _Zendesk.model_validate(document)
    if body.type != ZENDESK_TICKET_CREATED:
        raise IntakeRefused(
            "malformed",
            f"Event type {body.type[:100]!r} is not taken here; subscribe the webhook to "
            f"{ZENDESK_TICKET_CREATED} alone.",
        )
    detail = body.detail
    parts = (detail.subject.strip(), detail.description.strip())
    text = "\n\n".join(part for part in parts if part)
    if not text:
        raise IntakeRefused("malformed", "The ticket has neither a subject nor a description.")
    requester = f"Zendesk user {detail.requester_id}" if detail.requester_id else "unknown"
    external = (detail.external_id or "").strip() or None
    return IncomingTicket(detail.id, body.id, requester, text, external)


ZENDESK = IntakeSource(
    name="zendesk",
    signature_header="x-zendesk-webhook-signature",
    timestamp_header="x-zendesk-webhook-signature-timestamp",
    reader="signoff.intake.zendesk_source:read_ticket",
)

"""The two bodies a helpdesk may send, read into one ticket (after the signature held).

Generic (documented in "Connect your helpdesk"):

    {"event_id": "...", "ticket": {"id": "...", "text": "...",
     "customer_name": "...", "order_id": "..."}}

Zendesk: an event webhook's body for `zen:event-type:ticket.created`; the event's `id`
is the event id, `detail.id` the ticket, `detail.subject` and `detail.description` its
text, and `detail.external_id`, when it names one of the tenant's orders, its order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from activities.store.schema import NAME_LENGTH
from activities.store.tickets import MAX_TICKET_TEXT_CHARS
from signoff.config.helpdesks import IntakeSource
from signoff.service.intake_signatures import IntakeRefused
from workflows.contract_base import IDENTIFIER_PATTERN
from workflows.outside_text import refuse_nul

ZENDESK_TICKET_CREATED = "zen:event-type:ticket.created"
# The biggest body the intake reads: a ticket's text at its limit, with room for JSON.
MAX_BODY_BYTES = 4 * MAX_TICKET_TEXT_CHARS + 16_384
SourceId = Annotated[str, Field(pattern=IDENTIFIER_PATTERN)]
# Text with no NUL byte, which no store keeps (workflows/outside_text.py).
Text = Annotated[str, AfterValidator(refuse_nul)]


@dataclass(frozen=True)
class IncomingTicket:
    source_ticket_id: str
    event_id: str
    customer_name: str
    text: str
    # An order id as the helpdesk gave it; linked only if it is one of the tenant's.
    order_reference: str | None


class _GenericTicket(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: SourceId
    text: Annotated[Text, Field(min_length=1, max_length=MAX_TICKET_TEXT_CHARS)]
    customer_name: Annotated[Text, Field(min_length=1, max_length=NAME_LENGTH)] = "unknown"
    order_id: SourceId | None = None


class _Generic(BaseModel):
    model_config = ConfigDict(extra="ignore")

    event_id: SourceId
    ticket: _GenericTicket


class _ZendeskDetail(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: Annotated[str, Field(pattern=r"^[0-9]{1,20}$")]
    subject: Annotated[Text, Field(max_length=1000)] = ""
    description: Annotated[Text, Field(max_length=MAX_TICKET_TEXT_CHARS)] = ""
    requester_id: str | int | None = None
    external_id: str | None = None


class _Zendesk(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: SourceId
    type: str
    detail: _ZendeskDetail


def incoming_ticket(source: IntakeSource, body: bytes) -> IncomingTicket:
    """The ticket in a verified body; IntakeRefused("malformed") saying what is wrong."""
    try:
        document = json.loads(body)
    except ValueError:
        raise IntakeRefused("malformed", "The body is not JSON.") from None
    try:
        if source == "zendesk":
            return _from_zendesk(_Zendesk.model_validate(document))
        return _from_generic(_Generic.model_validate(document))
    except ValidationError as error:
        problem = f"The {source} body is not valid: {_first(error)}"
        raise IntakeRefused("malformed", problem) from None


def _from_generic(body: _Generic) -> IncomingTicket:
    text = body.ticket.text.strip()
    if not text:
        raise IntakeRefused("malformed", "ticket.text is empty.")
    return IncomingTicket(
        body.ticket.id, body.event_id, body.ticket.customer_name, text, body.ticket.order_id
    )


def _from_zendesk(body: _Zendesk) -> IncomingTicket:
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
    if len(text) > MAX_TICKET_TEXT_CHARS:
        raise IntakeRefused(
            "malformed", f"The ticket's text is longer than {MAX_TICKET_TEXT_CHARS} characters."
        )
    requester = f"Zendesk user {detail.requester_id}" if detail.requester_id else "unknown"
    external = (detail.external_id or "").strip() or None
    return IncomingTicket(detail.id, body.id, requester[:NAME_LENGTH], text, external)


def _first(error: ValidationError) -> str:
    item = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in item["loc"]) or "the body"
    return f"{where}: {str(item['msg']).removeprefix('Value error, ').rstrip('.')}."

"""`ask_customer`: what crosses the workflow boundary when a run asks the customer and
waits for the answer (the `customer_reply` update's input and answer), and how the
answer reaches the model.

Design note. The customer's reply is third-party text, like the ticket: it reaches the
model only as the result of its `ask_customer` call, JSON-encoded, with its provenance
(where it came from, that nobody verified it). No reply within the profile's
`reply_within` is an outcome the model reads, `no_reply`, not an error: the question
was sent, and the model decides what to do without the answer.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from workflows.contract_base import Contract, Identifier, TenantId
from workflows.model_contracts import PROVIDER_NAME_PATTERN
from workflows.outside_text import refuse_nul
from workflows.policy import MAX_TOOL_RESULT_CHARS, bound_text

CUSTOMER_REPLY_UPDATE = "customer_reply"
# The type of the update's refusal (the run cannot take this reply), for intake to tell.
REPLY_REFUSED = "CustomerReplyRefused"
# A profile's `reply_within`, in days: how long a run waits for the customer's answer.
DEFAULT_REPLY_WITHIN_DAYS = 3
# A run that waits longer holds its worker's memory and its approvals' budget for
# nothing: a customer who answers after a month starts a new ticket.
MAX_REPLY_WITHIN_DAYS = 30
# As long as a ticket's text (activities/store/tickets.py MAX_TICKET_TEXT_CHARS).
MAX_REPLY_CHARS = 20_000
REPLY_PROVENANCE = "customer's reply through the helpdesk, unverified free text"
NO_REPLY = "no_reply"
# What the model is shown of a long reply: the result's limit, less room for the rest of
# its JSON, so that the cut falls inside the text and the result stays valid JSON.
SHOWN_REPLY_CHARS = MAX_TOOL_RESULT_CHARS - 1000

# The intake source whose signature the reply carried, by its registry name (signoff/
# intake): data to the workflow, which cannot ask the registry.
ReplySource = Annotated[str, Field(pattern=PROVIDER_NAME_PATTERN)]


class CustomerReply(Contract):
    """A customer's answer on a ticket, as intake matched it: the tenant is the one
    whose signing secret verified the delivery, never a field of its body."""

    tenant_id: TenantId
    ticket_id: Identifier
    text: Annotated[
        str, Field(min_length=1, max_length=MAX_REPLY_CHARS), AfterValidator(refuse_nul)
    ]
    source: ReplySource
    event_id: Identifier
    received_at: datetime


class CustomerReplyTaken(Contract):
    """What the run answers intake: the reply is the answer to its open question."""

    status: Literal["delivered"] = "delivered"
    run_id: str
    tool_use_id: str


def replied(sent: str, reply: CustomerReply) -> str:
    """The `ask_customer` result once the customer answered: what sending said, and the
    reply marked as customer text."""
    return json.dumps(
        {
            "question": _sent(sent),
            "customer_reply": {
                "ticket_id": reply.ticket_id,
                "provenance": REPLY_PROVENANCE,
                "received_at": reply.received_at.isoformat(),
                "text": bound_text(reply.text, SHOWN_REPLY_CHARS),
            },
        }
    )


def no_reply(sent: str, days: int) -> str:
    """The `ask_customer` result when the customer did not answer in time."""
    unit = "day" if days == 1 else "days"
    return json.dumps(
        {
            "question": _sent(sent),
            "outcome": NO_REPLY,
            "message": f"no reply in {days} {unit}: the customer did not answer your "
            "question. Decide with what you know, or say in your answer what is missing.",
        }
    )


def _sent(content: str) -> object:
    """What the helpdesk connector said of the question (JSON), kept as it was."""
    try:
        return json.loads(content)
    except ValueError:
        return content

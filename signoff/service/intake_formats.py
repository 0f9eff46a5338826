"""A verified body, read into one ticket by its source's reader (signoff/intake: the
built-in `generic` and `zendesk`, or an installed source), then held to the bounds
every ticket has, whichever source it came from.
"""

from __future__ import annotations

import json

from pydantic import ValidationError

from activities.store.schema import NAME_LENGTH
from activities.store.tickets import MAX_TICKET_TEXT_CHARS
from signoff.intake import IncomingTicket, IntakeRefused, known_sources

__all__ = ["MAX_BODY_BYTES", "IncomingTicket", "incoming_ticket"]

# The biggest body the intake reads: a ticket's text at its limit, with room for JSON.
MAX_BODY_BYTES = 4 * MAX_TICKET_TEXT_CHARS + 16_384


def incoming_ticket(source: str, body: bytes) -> IncomingTicket:
    """The ticket in a verified body; IntakeRefused("malformed") saying what is wrong."""
    try:
        document = json.loads(body)
    except ValueError:
        raise IntakeRefused("malformed", "The body is not JSON.") from None
    try:
        ticket = known_sources()[source].read(document)
    except ValidationError as error:
        problem = f"The {source} body is not valid: {_first(error)}"
        raise IntakeRefused("malformed", problem) from None
    return _bounded(ticket)


def _bounded(ticket: IncomingTicket) -> IncomingTicket:
    """What the store keeps of any ticket: some text, none longer than its columns."""
    if not ticket.text.strip():
        raise IntakeRefused("malformed", "The ticket's text is empty.")
    if len(ticket.text) > MAX_TICKET_TEXT_CHARS:
        raise IntakeRefused(
            "malformed", f"The ticket's text is longer than {MAX_TICKET_TEXT_CHARS} characters."
        )
    if len(ticket.customer_name) > NAME_LENGTH:
        raise IntakeRefused(
            "malformed", f"The customer's name is longer than {NAME_LENGTH} characters."
        )
    return ticket


def _first(error: ValidationError) -> str:
    item = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in item["loc"]) or "the body"
    return f"{where}: {str(item['msg']).removeprefix('Value error, ').rstrip('.')}."

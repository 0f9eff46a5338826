"""The `acmedesk` intake source: declared here, registered by the package's entry point.
The intake secrets file names it for a tenant (`{"demo": {"acmedesk": [SECRET]}}`);
AcmeDesk signs its deliveries with `X-Acme-Signature` over `X-Acme-Timestamp` and the
body, and sends

    {"delivery": "...", "case": {"number": 17, "body": "...", "customer": "..."}}
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from signoff.intake import IncomingTicket, IntakeRefused, IntakeSource, SourceId, Text


class _Case(BaseModel):
    number: int
    body: Text
    customer: Text = "unknown"


class _Delivery(BaseModel):
    delivery: SourceId
    case: _Case


def read_ticket(document: Any) -> IncomingTicket:
    body = _Delivery.model_validate(document)
    if not body.case.body.strip():
        raise IntakeRefused("malformed", "The case has no body.")
    case = body.case
    return IncomingTicket(f"case-{case.number}", body.delivery, case.customer, case.body, None)


ACMEDESK = IntakeSource(
    name="acmedesk",
    signature_header="x-acme-signature",
    timestamp_header="x-acme-timestamp",
    reader="acme_signoff.intake:read_ticket",
)

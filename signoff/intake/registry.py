"""Intake sources are a registry: an installed package declares a source of incoming
tickets under the entry-point group `signoff.intake`, and `POST /api/intake/tickets`
asks here which source signed a delivery and how its body becomes a ticket.

    # pyproject.toml of your package
    [project.entry-points."signoff.intake"]
    acmedesk = "acme_signoff.intake:ACMEDESK"

A source declares its name (the intake secrets file's key for it, e.g. `zendesk`), the
two headers its deliveries are signed with (`signature_header`: the base64 of
HMAC-SHA256 over the timestamp header's value followed by the raw body, under the
webhook's signing secret; `timestamp_header`: ISO 8601 or Unix seconds) and its reader
(`reader`, named as `module:function` and imported when used): the verified body's JSON
in, an `IncomingTicket` out, or `IntakeRefused("malformed", why)` (a pydantic
ValidationError is turned into one, naming the field). What every source shares is
signoff's: the signature, the tenant it names, the time window, the body's size and
the ticket's bounds (signoff/service/intake_signatures.py, intake_formats.py). The
built-in `generic` and `zendesk` sources register the same way, through signoff's
pyproject.toml.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from signoff.entry_points import RegistrationError, load_group, load_reference, reference_problem
from workflows.contract_base import IDENTIFIER_PATTERN
from workflows.outside_text import refuse_nul

ENTRY_POINT_GROUP = "signoff.intake"
# An HTTP header's name, as the intake reads it (lower case).
HEADER_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")

RefusalReason = Literal["unsigned", "bad_signature", "stale", "malformed"]
STATUS_OF: dict[RefusalReason, int] = {
    "unsigned": 401,
    "bad_signature": 401,
    "stale": 401,
    "malformed": 422,
}
# For a source's reader: an id as the helpdesk gives it, and outside text (no NUL byte,
# which no store keeps: workflows/outside_text.py).
SourceId = Annotated[str, Field(pattern=IDENTIFIER_PATTERN)]
Text = Annotated[str, AfterValidator(refuse_nul)]


class IntakeRefused(Exception):
    """A delivery refused before anything was stored or started."""

    def __init__(self, reason: RefusalReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    @property
    def status_code(self) -> int:
        return STATUS_OF[self.reason]


@dataclass(frozen=True)
class IncomingTicket:
    """What a source's reader gives of a verified body."""

    source_ticket_id: str
    event_id: str
    customer_name: str
    text: str
    # An order id as the helpdesk gave it; linked only if it is one of the tenant's.
    order_reference: str | None


@dataclass(frozen=True)
class IntakeSource:
    """One source of incoming tickets, as declared under the `signoff.intake` entry points."""

    name: str
    signature_header: str
    timestamp_header: str
    # `module:function`: (the body's JSON) -> IncomingTicket; raises IntakeRefused.
    reader: str

    def read(self, document: Any) -> IncomingTicket:
        ticket: IncomingTicket = load_reference(self.reader)(document)
        return ticket


def known_sources() -> Mapping[str, IntakeSource]:
    """Every intake source installed, by name."""
    return _loaded()


def reload_sources() -> None:
    """Read the entry points again (after a package was installed in this process)."""
    _loaded.cache_clear()


@cache
def _loaded() -> Mapping[str, IntakeSource]:
    sources = load_group(ENTRY_POINT_GROUP, IntakeSource, lambda source: source.name, _problem)
    claimed: dict[str, str] = {}
    for source in sources.values():
        # The signature header names the source of a delivery: one source per header.
        other = claimed.setdefault(source.signature_header, source.name)
        if other != source.name:
            raise RegistrationError(
                f"intake sources '{other}' and '{source.name}' of group '{ENTRY_POINT_GROUP}' "
                f"both sign with {source.signature_header}; give each its own header"
            )
    return sources


def _problem(name: str, source: IntakeSource) -> str | None:
    for header in (source.signature_header, source.timestamp_header):
        if not HEADER_PATTERN.match(header):
            return f"{header!r} is not a header name in lower case, e.g. 'x-acme-signature'"
    if source.signature_header == source.timestamp_header:
        return "its signature and timestamp headers are the same"
    return reference_problem(source.reader)

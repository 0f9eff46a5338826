"""`POST /api/intake/tickets`: a helpdesk's signed delivery becomes a ticket and a triage.

The steps, each of which may refuse, in this order: the signature names the tenant
(intake_signatures.py), the verified body gives the ticket (intake_formats.py), then
the delivery and its ticket are stored together, and the triage starts. Nothing is
stored or started for a delivery refused at the first two steps.

A delivery sent again (the same source, ticket id and event id, for the same tenant)
finds what the first stored and starts nothing new: its triage is asked to start again
under the same workflow id, which Temporal refuses once used. A first delivery whose
triage could not start (Temporal away) is therefore finished by the helpdesk's retry.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from activities.store.errors import StoreError
from activities.store.intake_deliveries import (
    DeliveryKey,
    NewTicket,
    StoredDelivery,
    find_delivery,
    store_delivery,
)
from signoff.config.helpdesks import IntakeSecrets
from signoff.config.settings import Settings
from signoff.service.handles import Runs, Store, engine_of
from signoff.service.intake_formats import MAX_BODY_BYTES, incoming_ticket
from signoff.service.intake_signatures import IntakeRefused, delivery_signer
from signoff.service.triage_start import ensure_triage, triage_id, triage_request

__all__ = ["IntakeAccepted", "IntakeRefused", "MAX_BODY_BYTES", "StoreError", "receive_ticket"]


@dataclass(frozen=True)
class IntakeAccepted:
    tenant_id: str
    ticket_id: str
    run_id: str
    replayed: bool


def request_id_of(key: DeliveryKey) -> str:
    """The same delivery, the same request id (and so the same triage workflow id)."""
    material = "\x1f".join((key.tenant_id, key.source, key.source_ticket_id, key.event_id))
    return "intake-" + hashlib.sha256(material.encode()).hexdigest()[:32]


async def receive_ticket(
    store: Store,
    runs: Callable[[], Awaitable[Runs]],
    settings: Settings,
    secrets: IntakeSecrets,
    delivery: tuple[Mapping[str, str], bytes],
    now: datetime,
) -> IntakeAccepted:
    """The delivery's ticket and triage; IntakeRefused, StoreError, or the connect's
    own error when Temporal cannot be reached (the ticket is then stored, and a retry
    of the delivery starts its triage)."""
    engine = engine_of(store)
    signer = delivery_signer(delivery, secrets, settings, now, MAX_BODY_BYTES)
    body = delivery[1]
    ticket = incoming_ticket(signer.source, body)
    key = DeliveryKey(signer.tenant_id, signer.source, ticket.source_ticket_id, ticket.event_id)
    request_id = request_id_of(key)
    stored: StoredDelivery | None = await asyncio.to_thread(find_delivery, engine, key)
    if stored is None:
        new = NewTicket(ticket.customer_name, ticket.text, ticket.order_reference)
        run_id = triage_id(key.tenant_id, request_id)
        stored = await asyncio.to_thread(store_delivery, engine, key, new, run_id, now)
    request = await asyncio.to_thread(
        triage_request, settings, store, key.tenant_id, stored.ticket_id, request_id
    )
    run_id = await ensure_triage(await runs(), request, settings.task_queue)
    return IntakeAccepted(key.tenant_id, stored.ticket_id, run_id, stored.replayed)

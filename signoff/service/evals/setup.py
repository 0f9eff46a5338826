"""A scenario's starting state, made unique for one attempt, and written to the store.

Tenant ids get a `_<token>` suffix and reviewer ids a `.<token>` suffix (reviewer ids
are unique across tenants); order and ticket ids stay as written, since they are keyed
within their tenant, so that a script or an expectation can name them.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import Engine

from activities.store.eval_fixtures import (
    FixtureOrder,
    FixtureReviewer,
    FixtureTenant,
    FixtureTicket,
    create_fixture,
)
from signoff.service.evals.scenario import Scenario, TicketSpec

FILLER = "This sentence is filler that stands for a long customer message. "
TOKEN_CHARS = 10


def minor(amount: Decimal) -> int:
    return int(amount * 100)


@dataclass(frozen=True)
class Attempt:
    """One attempt of a scenario: its unique names."""

    token: str

    @classmethod
    def new(cls) -> Attempt:
        return cls(uuid.uuid4().hex[:TOKEN_CHARS])

    def tenant(self, name: str) -> str:
        return f"{name}_{self.token}"

    def reviewer(self, name: str) -> str:
        return f"{name}.{self.token}"


def ticket_text(ticket: TicketSpec) -> str:
    text = ticket.text
    if ticket.pad_to_chars is not None and len(text) < ticket.pad_to_chars:
        repeats = (ticket.pad_to_chars - len(text)) // len(FILLER) + 1
        text = (text + "\n\n" + FILLER * repeats)[: ticket.pad_to_chars]
    return text


def fixture_tenants(scenario: Scenario, attempt: Attempt) -> list[FixtureTenant]:
    return [
        FixtureTenant(
            id=attempt.tenant(tenant.id),
            name=f"Eval tenant {tenant.id}",
            review_threshold_minor=minor(tenant.review_threshold),
            orders=[
                FixtureOrder(
                    id=order.id,
                    paid_minor=minor(order.paid),
                    currency=order.currency,
                    status=order.status,
                    tracking=order.tracking,
                    customer_name=order.customer,
                )
                for order in tenant.orders
            ],
            prior_refunds=[(refund.order, minor(refund.amount)) for refund in tenant.refunds],
            tickets=[
                FixtureTicket(
                    id=ticket.id,
                    order_id=ticket.order,
                    customer_name=ticket.customer,
                    text=ticket_text(ticket),
                )
                for ticket in tenant.tickets
            ],
            reviewers=[
                FixtureReviewer(
                    id=attempt.reviewer(reviewer.id),
                    display_name=f"Eval reviewer {reviewer.id}",
                    roles=tuple(reviewer.roles),
                )
                for reviewer in tenant.reviewers
            ],
        )
        for tenant in scenario.tenants
    ]


async def write_fixture(engine: Engine, tenants: list[FixtureTenant]) -> None:
    await asyncio.to_thread(create_fixture, engine, tenants)

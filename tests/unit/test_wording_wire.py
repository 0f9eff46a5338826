"""A refusal's wording crosses Temporal whole (workflows/wording_wire.py): the template
and every kind of value come back as they went, and details that are not a wording
read as none (the English message then stands alone)."""

from __future__ import annotations

import json

import pytest

from workflows.wording import AnyOf, InOrder, Money, Role, worded
from workflows.wording_wire import wire_of, wording_of


def test_every_kind_of_value_comes_back_as_it_went() -> None:
    inner = worded("approved")
    wording = worded(
        "%(who)s %(n)s %(money)s %(chain)s %(any)s %(role)s (%(inner)s)",
        who="Zoë",
        n=3,
        money=Money(4500, "EUR"),
        chain=InOrder(("support_lead", "finance")),
        any=AnyOf(("refund_approver", "admin")),
        role=Role("finance"),
        inner=inner,
    )
    # Through JSON, as Temporal's payload converter carries an error's details.
    back = wording_of(json.loads(json.dumps(wire_of(wording))))
    assert back == wording
    assert back is not None and back.english() == (
        "Zoë 3 45.00 EUR support_lead, then finance refund_approver or admin finance (approved)"
    )


@pytest.mark.parametrize(
    "details",
    [
        None,
        "Expired",
        {"template": 3, "values": {}},
        {"template": "x"},
        {"template": "%(a)s", "values": {"a": {"spell": 1}}},
        {"template": "x", "values": {"a": {"int": "z"}}},
    ],
)
def test_details_that_are_not_a_wording_read_as_none(details: object) -> None:
    assert wording_of(details) is None

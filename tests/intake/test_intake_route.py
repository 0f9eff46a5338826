"""`POST /api/intake/tickets` through the app, with httpx, on the time-skipping server:
a good delivery in either format stores its ticket and starts its triage under the
tenant whose secret signed it; the same delivery again starts nothing new; unsigned,
badly signed, stale and malformed deliveries get 401 or 422 naming why, and nothing is
stored or started."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

from temporalio.client import WorkflowExecutionStatus

from activities.store.tickets import get_ticket
from tests.clock import clock_now
from tests.intake.conftest import (
    DEMO_GENERIC,
    DEMO_ZENDESK,
    GLOBEX_GENERIC,
    Intake,
    generic_body,
    generic_headers,
    sign,
    zendesk_body,
    zendesk_headers,
)
from workflows.triage_contracts import TriageRequest


async def test_a_signed_generic_delivery_stores_the_ticket_and_starts_its_triage(
    intake: Intake,
) -> None:
    body = generic_body("4512", "evt-1", order_id="4512")
    answer = await intake.post(body, generic_headers(DEMO_GENERIC, body))
    assert answer.status_code == 202, answer.text
    accepted = answer.json()
    assert accepted["tenant_id"] == "demo" and accepted["replayed"] is False
    ticket = get_ticket(intake.engine, "demo", accepted["ticket_id"])
    assert ticket is not None and ticket.text == "Where is my order 4512?"
    assert ticket.order_id == "4512" and ticket.customer_name == "Sam Lee"
    handle = intake.client.get_workflow_handle(accepted["run_id"])
    description = await handle.describe()
    assert description.workflow_type == "TriageTicket"
    (request,) = await intake.client.data_converter.decode(
        (await handle.fetch_history())
        .events[0]
        .workflow_execution_started_event_attributes.input.payloads,
        [TriageRequest],
    )
    assert (request.tenant_id, request.ticket_id) == ("demo", accepted["ticket_id"])
    assert request.actor_id == "service:signoff"  # the deployment's, never the body's


async def test_a_zendesk_delivery_signed_as_zendesk_signs_becomes_a_ticket(
    intake: Intake,
) -> None:
    body = zendesk_body("35436")
    answer = await intake.post(body, zendesk_headers(DEMO_ZENDESK, body))
    assert answer.status_code == 202, answer.text
    ticket = get_ticket(intake.engine, "demo", answer.json()["ticket_id"])
    assert ticket is not None
    assert ticket.text.startswith("Lamp arrived broken\n\nThe lamp of order 4512")
    assert ticket.order_id == "4512"  # external_id names one of the tenant's orders
    assert ticket.customer_name == "Zendesk user 7001"


async def test_the_same_delivery_again_starts_nothing_new_even_after_its_triage_ended(
    intake: Intake,
) -> None:
    body = zendesk_body("35436", "01HEVENT")
    first = await intake.post(body, zendesk_headers(DEMO_ZENDESK, body))
    assert first.status_code == 202
    counts = intake.counts()
    again = await intake.post(body, zendesk_headers(DEMO_ZENDESK, body))  # re-signed now
    assert again.status_code == 200
    assert again.json() == {**first.json(), "replayed": True}
    assert intake.counts() == counts
    handle = intake.client.get_workflow_handle(first.json()["run_id"])
    await handle.terminate("ended")
    once_more = await intake.post(body, zendesk_headers(DEMO_ZENDESK, body))
    assert once_more.status_code == 200 and once_more.json()["run_id"] == first.json()["run_id"]
    described = await handle.describe()
    assert described.status == WorkflowExecutionStatus.TERMINATED  # no new run under the id
    # Another event on the same Zendesk ticket is a new delivery.
    other = zendesk_body("35436", "01HOTHER")
    assert (await intake.post(other, zendesk_headers(DEMO_ZENDESK, other))).status_code == 202


async def test_the_tenant_is_the_one_whose_secret_signed_never_the_body(intake: Intake) -> None:
    body = json.dumps(
        {
            "event_id": "evt-9",
            "tenant_id": "demo",
            "ticket": {"id": "G-1", "text": "Hello", "tenant_id": "demo", "order_id": "4512"},
        }
    ).encode()
    answer = await intake.post(body, generic_headers(GLOBEX_GENERIC, body))
    assert answer.status_code == 202 and answer.json()["tenant_id"] == "globex"
    ticket_id = answer.json()["ticket_id"]
    assert get_ticket(intake.engine, "demo", ticket_id) is None
    stored = get_ticket(intake.engine, "globex", ticket_id)
    assert stored is not None and stored.order_id is None  # demo's order is not globex's


async def refused(intake: Intake, body: bytes, headers: dict[str, str], code: int) -> str:
    counts = intake.counts()
    answer = await intake.post(body, headers)
    assert answer.status_code == code, answer.text
    assert intake.counts() == counts  # nothing stored
    reason: str = answer.json()["reason"]
    assert answer.json()["detail"]
    return reason


async def test_an_unsigned_delivery_is_401_unsigned(intake: Intake) -> None:
    body = generic_body()
    assert await refused(intake, body, {"Content-Type": "application/json"}, 401) == "unsigned"
    no_time = {"X-Zendesk-Webhook-Signature": "c2lnbmF0dXJl"}
    assert await refused(intake, body, no_time, 401) == "unsigned"


async def test_a_badly_signed_delivery_is_401_and_starts_nothing(intake: Intake) -> None:
    body = generic_body("4512", "evt-bad")
    headers = generic_headers(DEMO_GENERIC, body)
    tampered = body.replace(b"Where is my order", b"Refund me now for")
    assert await refused(intake, tampered, headers, 401) == "bad_signature"
    wrong_secret = generic_headers("an-attackers-guess-at-the-secret-0123456789", body)
    assert await refused(intake, body, wrong_secret, 401) == "bad_signature"
    # A tenant's Zendesk secret does not sign its generic deliveries, nor the reverse.
    crossed = generic_headers(DEMO_ZENDESK, body)
    assert await refused(intake, body, crossed, 401) == "bad_signature"
    not_base64 = {**headers, "X-Signoff-Signature": "%%%"}
    assert await refused(intake, body, not_base64, 401) == "bad_signature"
    assert intake.started == []


async def test_a_stale_delivery_is_401_stale_both_ways(intake: Intake) -> None:
    body = zendesk_body("35436", "01HSTALE")
    old = zendesk_headers(DEMO_ZENDESK, body, at=clock_now() - timedelta(minutes=6))
    assert await refused(intake, body, old, 401) == "stale"
    ahead = zendesk_headers(DEMO_ZENDESK, body, at=clock_now() + timedelta(minutes=6))
    assert await refused(intake, body, ahead, 401) == "stale"
    within = zendesk_headers(DEMO_ZENDESK, body, at=clock_now() - timedelta(minutes=4))
    assert (await intake.post(body, within)).status_code == 202


async def test_a_malformed_delivery_is_422_and_says_what_is_wrong(intake: Intake) -> None:
    cases = [
        (b"not json", "not JSON"),
        (json.dumps({"event_id": "e", "ticket": {"id": "1"}}).encode(), "ticket.text"),
        (json.dumps({"event_id": "e", "ticket": {"id": "1 2", "text": "x"}}).encode(), "id"),
        (generic_body(text=" "), "empty"),
        # A NUL byte, which SQLite would keep and PostgreSQL refuse: refused on both.
        (generic_body(text="Broken\x00lamp"), "ticket.text: The value holds a NUL byte"),
        (generic_body(customer_name="Sam\x00"), "ticket.customer_name: The value holds a NUL"),
    ]
    for body, said in cases:
        answer = await intake.post(body, generic_headers(DEMO_GENERIC, body))
        assert answer.status_code == 422 and answer.json()["reason"] == "malformed", body
        assert said in answer.json()["detail"], answer.json()
    nul = zendesk_body("35437", description="Cracked\x00")
    answer = await intake.post(nul, zendesk_headers(DEMO_ZENDESK, nul))
    assert (
        answer.status_code == 422
        and "detail.description: The value holds a NUL" in (answer.json()["detail"])
    )
    other_event = zendesk_body("35436").replace(b"ticket.created", b"ticket.status_changed")
    headers = zendesk_headers(DEMO_ZENDESK, other_event)
    assert await refused(intake, other_event, headers, 422) == "malformed"
    body = generic_body()
    yesterday = {
        "X-Signoff-Timestamp": "yesterday",
        "X-Signoff-Signature": sign(DEMO_GENERIC, "yesterday", body),
    }
    assert await refused(intake, body, yesterday, 422) == "malformed"
    assert intake.started == [] and intake.counts()[1] == 0


async def test_the_same_delivery_twice_at_once_makes_one_ticket_and_one_triage(
    intake: Intake,
) -> None:
    body = generic_body("7007", "evt-twice")
    headers = generic_headers(DEMO_GENERIC, body)
    first, second = await asyncio.gather(intake.post(body, headers), intake.post(body, headers))
    assert sorted([first.status_code, second.status_code]) == [200, 202]
    assert first.json()["run_id"] == second.json()["run_id"]
    assert first.json()["ticket_id"] == second.json()["ticket_id"]
    assert intake.counts()[1] == 1


async def test_a_zendesk_ticket_id_must_be_zendesks_number(intake: Intake) -> None:
    body = zendesk_body("../../users/1")
    assert await refused(intake, body, zendesk_headers(DEMO_ZENDESK, body), 422) == "malformed"

"""`POST /api/intake/replies` against a run that asked its customer (`ask_customer`) on
the time-skipping server: the signed reply reaches the run and the model reads it; a
second reply, a reply after the run ended, a reply for another tenant's ticket and a
reply where no one asked are each answered with why and written on the tenant's
audit; the tenant is the one whose secret signed, never the body."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment

from activities.store.database import use_session
from activities.store.schema import DecisionRow
from tests.connectors.replies import ticket_from_zendesk
from tests.intake.conftest import (
    DEMO_GENERIC,
    DEMO_ZENDESK,
    GLOBEX_GENERIC,
    Intake,
    generic_headers,
    zendesk_headers,
)
from tests.workflow.approvals import gate_run
from tests.workflow.fakes import FakeModel, text_reply, tool_reply
from tests.workflow.test_ask_customer import ANSWER, ASK, ASKING, waiting_for_customer
from tests.workflow.test_python_tools import on_profile, tool_results
from workflows.customer_questions import REPLY_PROVENANCE

URL = "/api/intake/replies"


def reply_body(ticket_id: str = "T-1042", event_id: str = "reply-1", text: str = ANSWER) -> bytes:
    return json.dumps(
        {"event_id": event_id, "reply": {"ticket_id": ticket_id, "text": text}}
    ).encode()


async def post(intake: Intake, body: bytes, secret: str = DEMO_GENERIC) -> Any:
    return await intake.http.post(URL, content=body, headers=generic_headers(secret, body))


def refused_replies(engine: Engine, tenant_id: str) -> list[str]:
    with use_session(engine) as session:
        return list(
            session.scalars(
                select(DecisionRow.reason)
                .where(DecisionRow.tenant_id == tenant_id, DecisionRow.kind == "refused")
                .order_by(DecisionRow.seq)
            )
        )


async def test_a_signed_reply_reaches_the_run_that_asked_and_odd_ones_are_refused(
    intake: Intake, time_skipping_env: WorkflowEnvironment
) -> None:
    model = FakeModel().enqueue(tool_reply(ASK), text_reply("Thanks for the photo."))
    engine = intake.engine
    async with gate_run(time_skipping_env, model, engine, **on_profile(ASKING)) as handle:
        await waiting_for_customer(handle)
        # Another tenant's secret, the same ticket id: globex has no such ticket.
        other = await post(intake, reply_body(event_id="reply-0"), GLOBEX_GENERIC)
        assert (other.status_code, other.json()["reason"]) == (404, "no_question")
        delivered = await post(intake, reply_body())
        assert delivered.status_code == 202, delivered.text
        assert delivered.json() == {
            "tenant_id": "demo",
            "ticket_id": "T-1042",
            "run_id": handle.id,
            "status": "delivered",
        }
        second = await post(intake, reply_body(event_id="reply-2", text="And another thing"))
        assert second.status_code == 409
        assert second.json()["reason"] in ("not_waiting", "run_ended")
        assert (await handle.result()).status == "completed"
        late = await post(intake, reply_body(event_id="reply-3", text="Too late"))
        assert (late.status_code, late.json()["reason"]) == (409, "run_ended")
    (result,) = tool_results(model, 1)
    answer = json.loads(result.content)["customer_reply"]
    assert (answer["text"], answer["provenance"]) == (ANSWER, REPLY_PROVENANCE)
    demo = refused_replies(engine, "demo")
    assert len(demo) == 2 and all("T-1042" in reason for reason in demo)
    assert "has ended" in demo[-1]
    (globex,) = refused_replies(engine, "globex")
    assert "no ticket T-1042" in globex


async def test_a_reply_where_no_run_asked_is_404_and_audited(intake: Intake) -> None:
    answer = await post(intake, reply_body(ticket_id="T-1042"))
    assert (answer.status_code, answer.json()["reason"]) == (404, "no_question")
    (reason,) = refused_replies(intake.engine, "demo")
    assert "No run asked the customer of ticket T-1042" in reason


async def test_a_tenant_named_in_the_body_changes_nothing(intake: Intake) -> None:
    document = json.loads(reply_body())
    document["tenant_id"] = "demo"
    body = json.dumps(document).encode()
    answer = await post(intake, body, GLOBEX_GENERIC)
    assert (answer.status_code, answer.json()["reason"]) == (404, "no_question")
    assert refused_replies(intake.engine, "demo") == []


async def test_unsigned_and_malformed_replies_are_refused_before_any_lookup(
    intake: Intake,
) -> None:
    body = reply_body()
    unsigned = await intake.http.post(URL, content=body)
    assert (unsigned.status_code, unsigned.json()["reason"]) == (401, "unsigned")
    bad = await intake.http.post(URL, content=body, headers=generic_headers("not-it", body))
    assert (bad.status_code, bad.json()["reason"]) == (401, "bad_signature")
    empty = json.dumps({"event_id": "e", "reply": {"ticket_id": "T-1042"}}).encode()
    malformed = await post(intake, empty)
    assert malformed.status_code == 422 and "reply.text" in malformed.json()["detail"]
    assert refused_replies(intake.engine, "demo") == []


async def test_a_zendesk_trigger_answers_a_zendesk_ticket_by_its_zendesk_id(
    intake: Intake, time_skipping_env: WorkflowEnvironment
) -> None:
    """Signed as Zendesk signs, the one reply body, the ticket as Zendesk numbers it: the
    run that asked on the ticket the intake made of it takes the reply."""
    ticket_id = ticket_from_zendesk(intake.engine, "35436")
    model = FakeModel().enqueue(tool_reply(ASK), text_reply("Thanks for the photo."))
    async with gate_run(
        time_skipping_env, model, intake.engine, ticket_id=ticket_id, **on_profile(ASKING)
    ) as handle:
        await waiting_for_customer(handle)
        body = reply_body(ticket_id="35436", event_id="comment-9001")
        headers = zendesk_headers(DEMO_ZENDESK, body)
        delivered = await intake.http.post(URL, content=body, headers=headers)
        assert delivered.status_code == 202, delivered.text
        assert delivered.json()["ticket_id"] == ticket_id
        assert (await handle.result()).status == "completed"
    (result,) = tool_results(model, 1)
    assert json.loads(result.content)["customer_reply"]["ticket_id"] == ticket_id

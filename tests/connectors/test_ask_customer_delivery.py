"""`ask_customer` through the tenant's helpdesk connector, as a reply goes: the question
is posted once under the effect's idempotency key (the generic webhook's body names
signoff's ticket id, which the customer's answer then names; a Zendesk ticket gets a
public comment), and the run waits for the answer."""

from __future__ import annotations

import json

from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from tests.connectors.helpdesk_server import helpdesk_server
from tests.connectors.replies import helpdesk_effects, ticket_from_zendesk, webhook, zendesk
from tests.store.outbox import replies_of
from tests.workflow.approvals import gate_run
from tests.workflow.fakes import FakeModel, text_reply, tool_reply
from tests.workflow.test_ask_customer import (
    ASK,
    ASKING,
    QUESTION,
    reply,
    send,
    waiting_for_customer,
)
from tests.workflow.test_python_tools import on_profile, tool_results


async def test_the_question_goes_through_the_generic_webhook_once_under_its_key(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(ASK), text_reply("Thanks."))
    with helpdesk_server() as helpdesk:
        helpdesk.lose_next_answer()  # posted, but the worker hears a 504: retried
        effects, _ = helpdesk_effects(seeded_engine, webhook(helpdesk.url), profiles=ASKING)
        async with gate_run(
            time_skipping_env, model, seeded_engine, effects=effects, **on_profile(ASKING)
        ) as handle:
            await waiting_for_customer(handle)
            await send(handle, reply())
            assert (await handle.result()).status == "completed"
    (question,) = replies_of(seeded_engine, "demo", "T-1042")
    assert ":ask_customer:" in question.idempotency_key
    assert list(helpdesk.posted) == [question.idempotency_key]  # posted once
    first = helpdesk.requests[0]
    assert (first.body["text"], first.body["ticket_id"]) == (QUESTION, "T-1042")
    (result,) = tool_results(model, 1)
    sent = json.loads(result.content)["question"]
    assert sent == {"status": "sent", "reply_id": question.id, "helpdesk": "webhook"}


async def test_a_zendesk_ticket_gets_the_question_as_a_public_comment(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    ticket_id = ticket_from_zendesk(seeded_engine, "4512")
    model = FakeModel().enqueue(tool_reply(ASK), text_reply("Thanks."))
    with helpdesk_server() as helpdesk:
        effects, _ = helpdesk_effects(seeded_engine, zendesk(helpdesk.url), profiles=ASKING)
        async with gate_run(
            time_skipping_env,
            model,
            seeded_engine,
            ticket_id=ticket_id,
            effects=effects,
            **on_profile(ASKING),
        ) as handle:
            await waiting_for_customer(handle)
            await send(handle, reply(ticket_id=ticket_id))
            assert (await handle.result()).status == "completed"
    (request,) = helpdesk.requests
    assert (request.method, request.path) == ("PUT", "/api/v2/tickets/4512.json")
    assert request.body == {"ticket": {"comment": {"body": QUESTION, "public": True}}}
    (question,) = replies_of(seeded_engine, "demo", ticket_id)
    assert request.headers["Idempotency-Key"] == question.idempotency_key

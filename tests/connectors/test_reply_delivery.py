"""`send_reply` through a tenant's helpdesk connector, on the time-skipping server with
the real effect activity and store, against a local helpdesk: the reply is posted once
under its idempotency key (even when the first answer was lost and the effect retried),
Zendesk gets its ticket-comment call on its own ticket, and the outbox row records
where and when it was delivered."""

from __future__ import annotations

import base64
import json

from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment

from activities.store.connector_schema import ToolEffect
from activities.store.database import use_session
from signoff.config.profiles import BUILTIN_PROFILES, load_profile_file
from tests.connectors.helpdesk_server import helpdesk_server
from tests.connectors.replies import (
    WEBHOOK_TOKEN,
    ZENDESK_TOKEN,
    helpdesk_effects,
    ticket_from_zendesk,
    webhook,
    zendesk,
)
from tests.store.outbox import replies_of
from tests.workflow.approvals import gate_run
from tests.workflow.fakes import FakeModel, text_reply, tool_reply
from tests.workflow.test_python_tools import on_profile, tool_results

DRAFT = "Hello Ms Martin, your kettle ships again tomorrow. Kind regards, Support"
REPLY = ("send_reply", {"text": DRAFT})
BUILT_IN = on_profile(load_profile_file(BUILTIN_PROFILES))


def effect_key_of(engine: Engine) -> str:
    with use_session(engine) as session:
        (key,) = session.scalars(
            select(ToolEffect.idempotency_key).where(ToolEffect.tool == "send_reply")
        )
        return key


async def test_a_zendesk_ticket_gets_the_reply_as_a_public_comment_under_its_key(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    ticket_id = ticket_from_zendesk(seeded_engine, "4512")
    model = FakeModel().enqueue(tool_reply(REPLY), text_reply("Replied."))
    with helpdesk_server() as helpdesk:
        effects, _ = helpdesk_effects(seeded_engine, zendesk(helpdesk.url))
        async with gate_run(
            time_skipping_env,
            model,
            seeded_engine,
            ticket_id=ticket_id,
            effects=effects,
            **BUILT_IN,
        ) as handle:
            assert (await handle.result()).status == "completed"
    key = effect_key_of(seeded_engine)
    (request,) = helpdesk.requests
    assert (request.method, request.path) == ("PUT", "/api/v2/tickets/4512.json")
    assert request.body == {"ticket": {"comment": {"body": DRAFT, "public": True}}}
    assert request.headers["Idempotency-Key"] == key
    basic = base64.b64encode(f"agent@example.com/token:{ZENDESK_TOKEN}".encode()).decode()
    assert request.headers["Authorization"] == f"Basic {basic}"
    (sent,) = replies_of(seeded_engine, "demo", ticket_id)  # the outbox keeps the record
    assert sent.text == DRAFT and sent.idempotency_key == key
    assert sent.delivered_to == "zendesk" and sent.delivered_at is not None
    (result,) = tool_results(model, 1)
    assert json.loads(result.content) == {
        "status": "sent",
        "reply_id": sent.id,
        "helpdesk": "zendesk",
    }


async def test_a_delivery_whose_answer_was_lost_is_retried_and_posted_once(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REPLY), text_reply("Replied."))
    with helpdesk_server() as helpdesk:
        helpdesk.lose_next_answer()  # posted, but the worker hears a 504
        effects, breakers = helpdesk_effects(seeded_engine, webhook(helpdesk.url))
        async with gate_run(
            time_skipping_env, model, seeded_engine, effects=effects, **BUILT_IN
        ) as handle:
            assert (await handle.result()).status == "completed"
    key = effect_key_of(seeded_engine)
    assert len(helpdesk.requests) == 2  # the first attempt and its retry
    assert {r.headers["Idempotency-Key"] for r in helpdesk.requests} == {key}
    assert list(helpdesk.posted) == [key]  # the helpdesk posted it once
    first = helpdesk.requests[0]
    assert first.path == "/replies" and first.headers["Authorization"] == f"Bearer {WEBHOOK_TOKEN}"
    assert first.body["text"] == DRAFT and first.body["ticket_id"] == "T-1042"
    assert first.body["idempotency_key"] == key
    (sent,) = replies_of(seeded_engine, "demo", "T-1042")  # one outbox row
    assert sent.delivered_to == "webhook"
    assert (await breakers.state("helpdesk:demo"))[0] == "closed"  # the success closed it


async def test_a_reply_the_helpdesk_refuses_is_told_to_the_model_as_not_sent(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REPLY), text_reply("I could not reply."))
    with helpdesk_server() as helpdesk:
        helpdesk.fail_next(401)
        effects, _ = helpdesk_effects(seeded_engine, webhook(helpdesk.url))
        async with gate_run(
            time_skipping_env, model, seeded_engine, effects=effects, **BUILT_IN
        ) as handle:
            assert (await handle.result()).status == "completed"
    assert len(helpdesk.requests) == 1 and helpdesk.posted == {}  # not retried
    (result,) = tool_results(model, 1)
    assert result.is_error and "did not happen" in result.content
    assert "the helpdesk refused the reply (HTTP 401" in result.content
    with use_session(seeded_engine) as session:  # on the record: failed, and why
        (effect,) = session.scalars(select(ToolEffect).where(ToolEffect.tool == "send_reply"))
        assert effect.status == "failed" and "HTTP 401" in effect.output
    (kept,) = replies_of(seeded_engine, "demo", "T-1042")
    assert kept.delivered_at is None  # the outbox says it never reached the helpdesk


async def test_zendesk_cannot_take_a_reply_to_a_ticket_that_did_not_come_from_it(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(REPLY), text_reply("I could not reply."))
    with helpdesk_server() as helpdesk:
        effects, _ = helpdesk_effects(seeded_engine, zendesk(helpdesk.url))
        async with gate_run(
            time_skipping_env, model, seeded_engine, effects=effects, **BUILT_IN
        ) as handle:
            assert (await handle.result()).status == "completed"
    assert helpdesk.requests == []
    assert replies_of(seeded_engine, "demo", "T-1042") == []
    (result,) = tool_results(model, 1)
    assert result.is_error and "did not come from Zendesk" in result.content

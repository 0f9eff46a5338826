"""ask_customer on the Temporal dev server (real persistence, a real sticky queue): the
question goes to the tenant's generic webhook once under its key, the worker stops while
the run waits, a new worker takes over, and the customer's signed reply through the
intake reaches the run, which completes with it. (Days of waiting, and no reply at all,
need skipped time: tests/workflow/test_ask_customer*.py.)"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.store.started_runs import record_started_run
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.handles import Runs, Store
from signoff.service.run_requests import run_offer
from tests.conftest import dev_server as started_dev_server
from tests.connectors.helpdesk_server import helpdesk_server
from tests.connectors.replies import helpdesk_effects, webhook
from tests.intake.conftest import DEMO_GENERIC, generic_headers, write_private
from tests.store.outbox import replies_of
from tests.workflow.approvals import APPROVAL_RUN_DEADLINE, gate_worker
from tests.workflow.fakes import (
    FakeModel,
    new_task_queue,
    run_request,
    start,
    text_reply,
    tool_reply,
)
from tests.workflow.test_ask_customer import ANSWER, ASK, ASKING, QUESTION, waiting_for_customer
from tests.workflow.test_python_tools import tool_results

pytestmark = pytest.mark.devserver


@pytest.fixture
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    async with started_dev_server() as env:
        yield env


async def test_a_question_waits_across_a_worker_restart_for_the_signed_reply(
    dev_server: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    env, engine = dev_server, seeded_engine
    model = FakeModel().enqueue(tool_reply(ASK), text_reply("Thanks for the photo."))
    queue = new_task_queue()
    offer = run_offer(Store(engine), ASKING, "demo").fields()
    request = run_request(
        await env.get_current_time(), ticket_id="T-1042", deadline=APPROVAL_RUN_DEADLINE, **offer
    )
    record_started_run(engine, request)
    secrets = write_private(tmp_path / "intake-secrets.json", {"demo": {"generic": DEMO_GENERIC}})
    settings = Settings(
        home=tmp_path,
        database_url=str(engine.url),
        intake_secrets=secrets,
        task_queue=f"unused-{uuid.uuid4().hex}",
    )

    async def connect(_: Settings) -> Runs:
        return Runs(env.client)

    with helpdesk_server() as helpdesk:
        effects, _ = helpdesk_effects(engine, webhook(helpdesk.url), profiles=ASKING)
        async with gate_worker(env, model, engine, queue, profiles=ASKING, effects=effects):
            handle = await start(env.client, request, queue)
            before = await waiting_for_customer(handle)
        # No worker now; a new one takes the waiting run over.
        async with gate_worker(env, model, engine, queue, profiles=ASKING, effects=effects):
            app = create_app(settings, temporal_connect=connect)
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://ui.test") as http:
                body = json.dumps(
                    {"event_id": "reply-1", "reply": {"ticket_id": "T-1042", "text": ANSWER}}
                ).encode()
                answer = await http.post(
                    "/api/intake/replies", content=body, headers=generic_headers(DEMO_GENERIC, body)
                )
                assert answer.status_code == 202, answer.text
                outcome = await handle.result()
    assert outcome.status == "completed"
    (question,) = replies_of(engine, "demo", "T-1042")
    assert question.text == QUESTION
    assert list(helpdesk.posted) == [question.idempotency_key]  # posted once
    assert before.waiting_for_customer_since is not None
    (result,) = tool_results(model, 1)
    assert json.loads(result.content)["customer_reply"]["text"] == ANSWER

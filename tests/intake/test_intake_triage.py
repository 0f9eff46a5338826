"""A delivered ticket is triaged by a worker like any other: the scripted triage reads
the ticket the intake stored and answers the tracking question from its order."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from activities.model_turn import build_model_turns
from signoff.config.settings import Settings
from tests.intake.conftest import DEMO_GENERIC, Intake, generic_body, generic_headers
from tests.workflow.test_triage import triage_worker
from workflows.triage import TriageTicket

pytestmark = pytest.mark.slow  # a worker and a whole triage: about 15 s on 2 cores


async def test_the_triage_a_delivery_starts_reads_its_ticket_and_answers(
    intake: Intake, settings: Settings, time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    body = generic_body("4512", "evt-track", order_id="4512")
    model = build_model_turns(Settings(home=tmp_path))
    async with triage_worker(time_skipping_env.client, settings.task_queue, intake.engine, model):
        answer = await intake.post(body, generic_headers(DEMO_GENERIC, body))
        assert answer.status_code == 202, answer.text
        handle = time_skipping_env.client.get_workflow_handle_for(
            TriageTicket.run, answer.json()["run_id"]
        )
        outcome = await handle.result()
    assert (outcome.status, outcome.category) == ("answered", "tracking")
    assert outcome.answer is not None and "TRK-88" in outcome.answer

"""What the intake does when it cannot take a delivery now: a secrets file it cannot use
is a 503 naming no secret; Temporal out of reach is a 503 after the ticket is stored,
and the helpdesk's retry of the same delivery starts its triage, once."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
from temporalio.testing import WorkflowEnvironment

from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.handles import Runs
from signoff.service.store import close_store
from tests.intake.conftest import DEMO_GENERIC, URL, Intake, generic_body, generic_headers


async def test_a_secrets_file_others_can_read_is_503_and_names_no_secret(
    intake: Intake, settings: Settings
) -> None:
    assert settings.intake_secrets is not None
    os.chmod(settings.intake_secrets, 0o644)
    body = generic_body()
    answer = await intake.post(body, generic_headers(DEMO_GENERIC, body))
    assert answer.status_code == 503 and answer.json()["reason"] == "unavailable"
    assert DEMO_GENERIC not in answer.text
    assert intake.counts()[1] == 0


async def test_temporal_away_stores_the_ticket_and_the_retry_starts_its_triage(
    home: Path, settings: Settings, time_skipping_env: WorkflowEnvironment
) -> None:
    reachable = False

    async def connect(_: Settings) -> Runs:
        if not reachable:
            raise RuntimeError("connection refused")
        return Runs(time_skipping_env.client)

    app = create_app(settings, temporal_connect=connect)
    body = generic_body("4512", "evt-away")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://intake.test") as http:

        async def post() -> Any:
            return await http.post(URL, content=body, headers=generic_headers(DEMO_GENERIC, body))

        away = await post()
        assert away.status_code == 503 and away.json()["reason"] == "unavailable"
        reachable = True
        retried = await post()
        assert retried.status_code == 200, retried.text  # the delivery was stored: a replay
        run_id = retried.json()["run_id"]
        handle = time_skipping_env.client.get_workflow_handle(run_id)
        assert (await handle.describe()).workflow_type == "TriageTicket"
        await handle.terminate("test over")
    close_store(app.state.engine)

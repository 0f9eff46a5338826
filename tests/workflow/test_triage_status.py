"""`signoff status` of a triage (`signoff triage`'s workflow) shows its outcome as
`signoff triage` does, instead of failing on a `state` query a triage does not have."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from tests.workflow.test_status_reading import status_cli
from tests.workflow.test_triage import scripted, triage, triage_request  # noqa: F401


async def test_status_shows_a_finished_triage(
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    scripted: Any,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = time_skipping_env
    request = triage_request("T-4512", seeded_engine)
    outcome = await triage(env, seeded_engine, request, scripted, tmp_path)
    triage_id = f"triage-{request.request_id}"

    shown = await asyncio.to_thread(status_cli, env, monkeypatch, triage_id)
    as_json = await asyncio.to_thread(status_cli, env, monkeypatch, triage_id, "--json")

    assert shown.exit_code == 0, shown.output
    assert f"triage:   {outcome.triage_id}" in shown.output
    assert "status:   answered" in shown.output
    assert "class:    tracking" in shown.output
    document = json.loads(as_json.output)
    assert (document["kind"], document["status"]) == ("triage", "answered")
    assert document["outcome"]["answer"] == outcome.answer

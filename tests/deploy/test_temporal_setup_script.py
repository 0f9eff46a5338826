"""temporal-dev.yml's one-shot `temporal-setup` script, run for real against a dev server
with the `temporal` CLI (the one admin-tools ships too): it creates a namespace that is
missing, registers signoff's search attributes there, and a second run changes nothing."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
from temporalio.testing import WorkflowEnvironment

from signoff.config.data_converter import data_converter
from signoff.wiring.search_attributes import SEARCH_ATTRIBUTES
from tests.conftest import venv_binary
from tests.deploy.compose_file import REPO_ROOT

pytestmark = pytest.mark.devserver

SETUP_SCRIPT = REPO_ROOT / "deploy" / "temporal" / "setup.sh"
NAMESPACE = "signoff-staging"
SCRIPT_SECONDS = 180


@pytest.fixture
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(
        data_converter=data_converter,
        dev_server_existing_path=venv_binary("temporal"),
    )
    try:
        yield env
    finally:
        await env.shutdown()


def run_setup(address: str) -> subprocess.CompletedProcess[str]:
    cli_folder = str(Path(venv_binary("temporal")).parent)
    env = dict(os.environ, TEMPORAL_ADDRESS=address, TEMPORAL_NAMESPACE=NAMESPACE)
    env["PATH"] = f"{cli_folder}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        ["sh", str(SETUP_SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=SCRIPT_SECONDS,
        check=False,
    )


async def test_setup_creates_the_namespace_and_registers_the_attributes_once(
    dev_server: WorkflowEnvironment,
) -> None:
    address = dev_server.client.service_client.config.target_host
    first = await asyncio.to_thread(run_setup, address)
    assert first.returncode == 0, first.stdout + first.stderr
    listed = await dev_server.client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace=NAMESPACE)
    )
    assert {name: listed.custom_attributes[name] for name in SEARCH_ATTRIBUTES} == SEARCH_ATTRIBUTES

    again = await asyncio.to_thread(run_setup, address)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "search attributes ready" in again.stdout

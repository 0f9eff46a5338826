"""`signoff status` loads no SDK it does not use (issue 13: it must answer in 0.6 s).

It reads a run over Temporal's bare service: no `temporalio.client`, no worker, no
tracing contrib, no workflow module, no store, no model SDK, no web framework. Checked
in a fresh interpreter, where nothing else has imported them first;
tests/workflow/test_status_reading.py checks a `signoff status` of a real run the same way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import demo_home

# What status must not import: the packages whole, and the modules by name.
NOT_FOR_STATUS = (
    "anthropic",
    "openai",
    "sqlalchemy",
    "fastapi",
    "activities",
    "opentelemetry",
    "temporalio.client",
    "temporalio.worker",
    "temporalio.contrib.opentelemetry",
    "temporalio.contrib.pydantic",
    "temporalio.converter",
    "workflows.agent_run",
)

# Prints the modules of $UNWANTED (a JSON list) loaded after `signoff ARGS...`, as JSON.
MODULES_AFTER = """
import json, os, sys
sys.argv = ["signoff", *sys.argv[1:]]
from signoff.wiring.app import app
try:
    app()
except SystemExit:
    pass
unwanted = json.loads(os.environ["UNWANTED"])
loaded = sorted(
    name for name in sys.modules if any(name == u or name.startswith(u + ".") for u in unwanted)
)
sys.stdout.write("\\n" + json.dumps(loaded) + "\\n")
sys.stdout.flush()
os._exit(0)  # as signoff's main: the Temporal client's threads must not finalize
"""


def unwanted_after(
    *arguments: str, env: dict[str, str] | None = None, unwanted: tuple[str, ...] = NOT_FOR_STATUS
) -> tuple[list[str], str]:
    """The `unwanted` modules a fresh `signoff ARGUMENTS` loaded, and what it printed."""
    ran = subprocess.run(
        [sys.executable, "-c", MODULES_AFTER, *arguments],
        capture_output=True,
        text=True,
        check=True,
        env={**(env or os.environ), "UNWANTED": json.dumps(unwanted)},
    )
    *said, last = ran.stdout.strip().splitlines()
    return json.loads(last), "\n".join(said) + ran.stderr


def test_status_help_loads_no_sdk_it_does_not_use() -> None:
    loaded, said = unwanted_after("status", "--help")
    assert "The run id printed by `signoff run`" in said  # it did show status's help
    assert loaded == []


def test_status_of_an_unreachable_server_loads_none_either() -> None:
    # The whole command up to the connection, which fails here.
    env = {**os.environ, "SIGNOFF_TEMPORAL_ADDRESS": "127.0.0.1:9"}
    loaded, said = unwanted_after("status", "run-demo-x", env=env)
    assert "Cannot reach Temporal at 127.0.0.1:9" in said
    assert loaded == []


@pytest.mark.parametrize("command", [["list"], ["cancel", "run-demo-x"]])
def test_list_and_cancel_load_no_tracing(command: list[str]) -> None:
    # They make none of the calls the tracing interceptor traces: no OpenTelemetry
    # contrib, with its SDK and temporalio.worker (0.1 s). The tracing API is light.
    env = {**os.environ, "SIGNOFF_TEMPORAL_ADDRESS": "127.0.0.1:9"}
    unwanted = (
        "temporalio.contrib.opentelemetry",
        "temporalio.worker",
        "opentelemetry.sdk",
        "sqlalchemy",
        "anthropic",
        "openai",
    )
    loaded, said = unwanted_after(*command, env=env, unwanted=unwanted)
    assert "Cannot reach Temporal at 127.0.0.1:9" in said
    assert loaded == []


def test_pending_reads_the_store_without_temporal_sqlalchemy_or_alembic(
    tmp_path: Path, demo_store_template: Path
) -> None:
    # `signoff pending` lists from the store's read model: no Temporal SDK, no workflow
    # code, and for a store already at its revision neither Alembic nor SQLAlchemy (the
    # database driver alone, service/pending_quick.py). Nor a run's contracts: its rows
    # are pending actions, and the progress line it prints (cli/render.py) names the
    # contracts in annotations alone.
    env = {**os.environ, "SIGNOFF_HOME": str(tmp_path)}
    # The store, created and migrated (as `signoff seed` leaves it: tests/conftest.py).
    demo_home(demo_store_template, tmp_path)
    unwanted = (
        "temporalio",
        "sqlalchemy",
        "alembic",
        "workflows.agent_run",
        "workflows.contracts",
        "anthropic",
        "openai",
        "fastapi",
    )
    loaded, said = unwanted_after("pending", "--json", env=env, unwanted=unwanted)
    assert json.loads(said)["total"] == 0
    assert loaded == []

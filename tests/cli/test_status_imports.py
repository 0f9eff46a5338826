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
    "workflows.agent_run",
)

# Prints the modules of NOT_FOR_STATUS loaded after `signoff ARGS...`, as JSON.
MODULES_AFTER = f"""
import json, os, sys
sys.argv = ["signoff", *sys.argv[1:]]
from signoff.wiring.app import app
try:
    app()
except SystemExit:
    pass
unwanted = {NOT_FOR_STATUS!r}
loaded = sorted(
    name for name in sys.modules if any(name == u or name.startswith(u + ".") for u in unwanted)
)
sys.stdout.write("\\n" + json.dumps(loaded) + "\\n")
sys.stdout.flush()
os._exit(0)  # as signoff's main: the Temporal client's threads must not finalize
"""


def unwanted_after(*arguments: str, env: dict[str, str] | None = None) -> tuple[list[str], str]:
    """The unwanted modules a fresh `signoff ARGUMENTS` loaded, and what it printed."""
    ran = subprocess.run(
        [sys.executable, "-c", MODULES_AFTER, *arguments],
        capture_output=True,
        text=True,
        check=True,
        env=env,
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

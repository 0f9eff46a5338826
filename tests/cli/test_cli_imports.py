"""What `signoff --help`, `status --help`, `pending` and `approve` import, so that a
command typed all day cannot silently grow slow again (bench/cli: p50 at most 0.3 s).

Each runs in a fresh interpreter, where nothing else imported the modules first.
`tests/cli/test_status_imports.py` holds `status` and `pending` to the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.cli.test_status_imports import MODULES_AFTER, unwanted_after

# What starting the CLI must never pay for: the migration tool, the web framework, the
# model SDKs and their HTTP client.
NEVER_AT_START = ("alembic", "fastapi", "starlette", "anthropic", "openai", "httpx")
# What `approve` does not need: it sends the decision to the decision service over HTTP.
NOT_FOR_APPROVE = (
    *NEVER_AT_START,
    "sqlalchemy",
    "activities",
    "temporalio",
    "cryptography",
    "argon2",
    "rich",
    "workflows.agent_run",
    # A run's contracts, the profiles' and the tools': its settings name the model's
    # contracts alone (workflows/model_contracts.py), and one decision needs no batch.
    "workflows.contracts",
    "workflows.profile_contracts",
    "workflows.tool_catalog",
    "signoff.cli.batch_approvals",
    "urllib.request",  # read only when a proxy variable is set (service_http.proxy_for)
)


@pytest.mark.parametrize("command", [["--help"], ["status", "--help"]])
def test_help_loads_no_migrations_web_framework_or_model_sdk(command: list[str]) -> None:
    loaded, said = unwanted_after(*command, unwanted=NEVER_AT_START)
    assert "Usage: signoff" in said  # it did show the help
    assert loaded == []


def test_approve_loads_neither_temporal_nor_the_store() -> None:
    # The whole command up to the decision service, which does not answer here.
    env = {
        **{name: value for name, value in os.environ.items() if "proxy" not in name.lower()},
        "SIGNOFF_DECISION_SERVICE_URL": "http://127.0.0.1:9",
        "UNWANTED": json.dumps(NOT_FOR_APPROVE),
    }
    ran = subprocess.run(
        [sys.executable, "-c", MODULES_AFTER, "approve", "run-demo-x", "--hash", "a" * 64]
        + ["--as", "alice", "--password-stdin"],
        input="demo-alice\n",
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    *_, last = ran.stdout.strip().splitlines()
    assert "The decision service at http://127.0.0.1:9 did not answer" in ran.stderr
    assert json.loads(last) == []

"""The codec endpoint as Temporal's own tools call it: `temporal workflow show
--codec-endpoint` against a private `signoff dev` whose payloads are encrypted.

The run's ticket text is not in what the server holds (the CLI without the codec shows
ciphertext); through the reviewer UI's `/api/codec`, with a reviewer's API token, the
same command shows it; with a token of a reviewer who may not decide, or none, it does
not.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from activities.store import issue_token, make_engine
from signoff.config.settings import Settings
from signoff.wiring.local_stack import signoff_dev_stack
from tests.admin import ADMIN
from tests.conftest import venv_binary
from tests.e2e.cli import signoff

pytestmark = pytest.mark.devserver

PAYLOAD_KEYS = "k1:" + base64.b64encode(b"codec-endpoint-test-key-32-bytes").decode()
TICKET_WORDS = "Where is my order 4512?"  # T-4512's text, in the demo data


def show(env: dict[str, str], run_id: str, *codec: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [venv_binary("temporal"), "workflow", "show", "-w", run_id, "--output", "json"]
        + ["--address", env["SIGNOFF_TEMPORAL_ADDRESS"], *codec],
        capture_output=True,
        text=True,
        timeout=60,
    )


def payload_text(shown: subprocess.CompletedProcess[str]) -> str:
    """Every payload's data in the history the CLI printed, base64-decoded, joined."""
    assert shown.returncode == 0, shown.stderr
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("data"), str) and "metadata" in node:
                found.append(base64.b64decode(node["data"]).decode("utf-8", errors="replace"))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(shown.stdout))
    return "\n".join(found)


def test_temporal_reads_encrypted_payloads_through_the_codec_endpoint(tmp_path: Path) -> None:
    with signoff_dev_stack(
        tmp_path, task_queue=f"e2e-codec-{os.getpid()}", SIGNOFF_PAYLOAD_KEYS=PAYLOAD_KEYS
    ) as (env, _):
        done = signoff(env, "run", "--ticket", "T-4512", "--request-id", "codec-1", "--wait")
        assert done.returncode == 0, done.stderr
        run_id = "run-demo-codec-1"
        store = make_engine(Settings(home=tmp_path).resolved_database_url)
        try:  # dave is a reviewer who may not decide; carol decides for globex
            tokens = {
                name: issue_token(store, ADMIN, name, timedelta(days=1))[2]
                for name in ("alice", "dave", "carol")
            }
        finally:
            store.dispose()
        endpoint = f"http://127.0.0.1:{env['SIGNOFF_UI_PORT']}/api/codec"

        stored = show(env, run_id)
        decoded = show(
            env, run_id, "--codec-endpoint", endpoint, "--codec-auth", f"Bearer {tokens['alice']}"
        )
        # At once: the CLI gives up on a codec that refuses it after 10 s, each time.
        with ThreadPoolExecutor() as threads:
            refused = list(
                threads.map(
                    lambda auth: show(env, run_id, "--codec-endpoint", endpoint, *auth),
                    (
                        ["--codec-auth", f"Bearer {tokens['dave']}"],
                        ["--codec-auth", f"Bearer {tokens['carol']}"],
                        [],
                    ),
                )
            )

    assert TICKET_WORDS not in payload_text(stored)
    assert TICKET_WORDS in payload_text(decoded)
    for answer in refused:  # the CLI shows what it could not decode as it is stored
        assert TICKET_WORDS not in answer.stdout
        assert answer.returncode != 0 or TICKET_WORDS not in payload_text(answer)

"""No secret in any log line, span or printed line, with every secret set and every
output on.

A private `signoff dev` on a PostgreSQL store whose URL carries a password, with JSON
logs, OTLP export to a receiver in this test, a webhook whose token is in its path, an
Anthropic and an OpenAI key (the run itself is scripted), a decision key, a UI secret,
a payload key and a metrics token, each set to a value found nowhere else. An
administrator's token (SIGNOFF_TOKEN) issues a reviewer's API token, which is used. One
refund runs end to end: `signoff run`, pending, approved through the JSON API with that
token, refunded, answered; `signoff seed`, `status`, `list` and `history export` run
too, and both `/metrics` are scraped.

Then every byte written is searched for every secret: the launcher's output (the
worker's and the UI's log lines), the Temporal server's log, every span exported (the
raw OTLP bodies), every webhook post, the exported history, and what each command
printed. The one place a secret may appear is where it is the answer asked for: the
token `signoff user token` prints.

The Temporal API key is not here: setting it turns TLS on, which the dev server does
not speak; tests/unit/test_observability_setup.py shows it blanked from log lines.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from activities.store import make_engine
from signoff.wiring.local_stack import free_port, signoff_dev_stack
from tests.admin import admin_token
from tests.e2e.cli import eventually, json_of, signoff
from tests.e2e.test_approvals_on_dev_server import pending_rows
from tests.e2e.test_observability_on_dev_server import otlp_receiver
from tests.postgres import postgres_cluster
from tests.workflow.webhook_receiver import webhook_receiver

pytestmark = [pytest.mark.devserver, pytest.mark.postgres]

ANTHROPIC_KEY = "sk-ant-grepme-anthropic-7c1d9e"
OPENAI_KEY = "sk-grepme-openai-4b8a2f"
DB_PASSWORD = "grepme-pg-password-e5a7"
UI_SECRET = "grepme-ui-secret-fedcba9876543210fedcba"
WEBHOOK_TOKEN = "grepme-webhook-token-31f5"
METRICS_TOKEN = "grepme-metrics-token-9d2c"
PAYLOAD_KEY = base64.b64encode(b"grepme-payload-key-32-bytes-long").decode()
POLL_SECONDS = 60
SPANS_SECONDS = 30.0


def http(url: str, token: str, body: dict[str, Any] | None = None) -> Any:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        text = answer.read().decode()
    return json.loads(text) if text.startswith(("{", "[")) else text


@pytest.fixture
def home() -> Iterator[Path]:
    # Traversable, as the PostgreSQL tests need (tests/postgres.py).
    path = Path(tempfile.mkdtemp(prefix="signoff-secrets-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_no_secret_is_written_anywhere(home: Path) -> None:
    printed: list[str] = []

    def run(env: dict[str, str], *args: str, stdin: str | None = None) -> Any:
        done = signoff(env, *args, stdin=stdin)
        printed.extend([done.stdout, done.stderr])
        assert done.returncode == 0, done.stderr
        return done

    metrics_port = free_port()
    with (
        postgres_cluster() as plain_url,
        otlp_receiver() as (otlp_port, spans),
        webhook_receiver() as webhook,
    ):
        database_url = plain_url.replace("postgres@", f"postgres:{DB_PASSWORD}@")
        webhook_url = webhook.url.replace("/hook", f"/services/T01/B02/{WEBHOOK_TOKEN}")
        with signoff_dev_stack(
            home,
            task_queue=f"e2e-secrets-{os.getpid()}",
            SIGNOFF_DATABASE_URL=database_url,
            SIGNOFF_LOG_FORMAT="json",
            SIGNOFF_LOG_LEVEL="DEBUG",
            OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{otlp_port}",
            OTEL_BSP_SCHEDULE_DELAY="200",
            SIGNOFF_MODEL="scripted",
            SIGNOFF_ANTHROPIC_API_KEY=ANTHROPIC_KEY,
            SIGNOFF_OPENAI_API_KEY=OPENAI_KEY,
            SIGNOFF_UI_SECRET=UI_SECRET,
            SIGNOFF_NOTIFY_WEBHOOK_URL=webhook_url,
            SIGNOFF_METRICS_PORT=str(metrics_port),
            SIGNOFF_METRICS_TOKEN=METRICS_TOKEN,
            SIGNOFF_PAYLOAD_KEYS=f"k1:{PAYLOAD_KEY}",
        ) as (env, _):
            ui = f"http://127.0.0.1:{env['SIGNOFF_UI_PORT']}"
            # The decision service's private keys, made at its first start.
            ring = json.loads((home / "decision-signing-keys.json").read_text())
            private_keys = list(ring["private_keys"].values())
            run(env, "seed")
            # The administrator's token from the store; then the CLI, with it in
            # SIGNOFF_TOKEN, issues alice's (its output is the one place that may show it).
            store = make_engine(database_url)
            try:
                admin = admin_token(store)
            finally:
                store.dispose()
            issued = signoff(
                {**env, "SIGNOFF_TOKEN": admin}, "user", "token", "alice", "--as", "admin", "--json"
            )
            assert issued.returncode == 0, issued.stderr
            api_token = json_of(issued)["token"]
            printed.append(issued.stderr)

            started = json_of(
                run(env, "run", "--ticket", "T-1042", "--request-id", "sec-1", "--json")
            )
            run_id = started["run_id"]
            rows = eventually(
                lambda: pending_rows(env),
                lambda rows: run_id in rows,
                "listing the run as pending",
                within=POLL_SECONDS,
            )
            listed = http(f"{ui}/api/approvals", api_token)
            decided = http(
                f"{ui}/api/approvals/{run_id}/decision",
                api_token,
                {"action_hash": rows[run_id]["action_hash"], "verdict": "approve"},
            )
            printed += [json.dumps(listed), json.dumps(decided)]
            status = eventually(
                lambda: json_of(run(env, "status", run_id, "--json")),
                lambda status: status["status"] == "completed",
                "the run's end",
                within=POLL_SECONDS,
            )
            assert status["outcome"]["reason"] == "answered", status
            run(env, "list")
            run(env, "history", "export", run_id, "--output", str(home / "exported.json"))
            printed.append(http(f"{ui}/metrics", METRICS_TOKEN))
            printed.append(http(f"http://127.0.0.1:{metrics_port}/metrics", METRICS_TOKEN))
            turns = status["outcome"]["turns_used"]
            deadline = time.monotonic() + SPANS_SECONDS
            while len(model_turns(spans.of_run(run_id))) < turns:
                assert time.monotonic() < deadline, "the run's spans never arrived"
                time.sleep(0.5)
        written = {
            "launcher output and log lines": (home / "dev.log").read_text(),
            "Temporal server log": (home / "temporal.log").read_text(errors="replace"),
            "spans": b"".join(spans.bodies).decode("latin-1"),
            "webhook posts": "".join(post.raw for post in webhook.posts),
            "exported history": (home / "exported.json").read_text(),
            "printed lines": "\n".join(printed),
        }

    assert webhook.kinds() == ["waiting"]  # the webhook was used, under its secret URL
    assert any(json.loads(line).get("run_id") == run_id for line in logged(written))
    assert len(spans.of_run(run_id)) > 5
    secrets = {
        "Anthropic key": ANTHROPIC_KEY,
        "OpenAI key": OPENAI_KEY,
        "database password": DB_PASSWORD,
        "UI secret": UI_SECRET,
        "webhook token": WEBHOOK_TOKEN,
        "metrics token": METRICS_TOKEN,
        "payload key": PAYLOAD_KEY,
        "API token": api_token,
        "administrator's token (SIGNOFF_TOKEN)": admin,
    }
    secrets.update({f"decision private key {n}": key for n, key in enumerate(private_keys)})
    found = [
        f"{name} in {where}"
        for where, text in written.items()
        for name, secret in secrets.items()
        if secret in text
    ]
    assert found == []


def model_turns(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The `chat {model}` spans (OpenTelemetry's GenAI conventions)."""
    return [span for span in spans if span["name"].startswith("chat ")]


def logged(written: dict[str, str]) -> list[str]:
    lines = written["launcher output and log lines"].splitlines()
    return [line for line in lines if line.startswith("{")]

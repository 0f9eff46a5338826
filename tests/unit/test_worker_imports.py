"""A worker in the default configuration loads only what it uses (its memory: issue 13).

Each SDK below is tens of MiB of a worker's resident memory (docs/benchmarks/memory.md,
"What a worker's memory is"): the Anthropic SDK about 50, the MCP SDK with its HTTP
server stack about 30, Alembic about 20, py_webauthn about 10. A worker whose profiles
use the scripted model, declare no MCP server, whose tenants have no Stripe key, no
helpdesk and no reviewers' webhook, on a store already at its revision and with no OTLP
endpoint, loads none of them: each loads where it is first used. Checked in a fresh
interpreter, which imports what `signoff worker` imports and builds every activity
object, so that an import at the top of a module cannot bring one back unnoticed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from activities.store import make_engine
from signoff.config.decision_keys import ensure_key_ring
from signoff.config.settings import Settings

NOT_FOR_A_DEFAULT_WORKER = (
    "anthropic",
    "openai",
    "mcp",
    "httpx",
    "httpx2",
    "stripe",
    "alembic",
    "webauthn",
    "fastapi",
    "starlette",
    "uvicorn",
    "jinja2",
    "babel",
    "rich",
    "pygments",
    "approvals_ui",
    "opentelemetry.sdk.trace.export",
    "opentelemetry.exporter",
)

# What `signoff worker` runs before it connects, then every activity object it builds
# (signoff/wiring/app.py, signoff/wiring/worker.py); prints the unwanted modules loaded.
WORKER_START = """
import asyncio, json, os, sys
from signoff.cli.support import settings
from signoff.config.decision_keys import load_verification_keys
from signoff.config.helpdesks import load_helpdesk_connectors
from signoff.config.payload_keys import payload_cipher
from signoff.payments.registry import platform_tenants
from signoff.config.telemetry import worker_runtime
from signoff.config.temporal_tls import connection_security
from signoff.service.mcp_servers import startup_report
from signoff.wiring.app import loaded_profiles_or_stop
from signoff.wiring.observability import start_observability
from signoff.wiring.worker import activity_parts
from signoff.wiring.worker_activities import worker_activities
from activities.store import make_engine

current = settings()
profiles = loaded_profiles_or_stop(current)
connection_security(current)
payload_cipher(current)
load_verification_keys(current)
load_helpdesk_connectors(current.helpdesk_connectors)
platform_tenants(current)
start_observability(current, "worker")
worker_runtime(current)
assert asyncio.run(startup_report(profiles.profiles, current.mcp_timeout_seconds)) == []
engine = make_engine(current.resolved_database_url, migrate=current.migrate_at_start)
assert len(worker_activities(activity_parts(current, engine, profiles=profiles))) > 10
def loaded(packages):
    names = set(sys.modules)
    return sorted({u for u in packages for n in names if n == u or n.startswith(u + ".")})
print(json.dumps(loaded(json.loads(os.environ["UNWANTED"]))))
# The same filter finds what the worker does load: the check is not blind.
print(json.dumps(loaded(["sqlalchemy", "temporalio.worker"])))
"""


def test_a_default_worker_loads_no_sdk_it_does_not_use(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    # What `signoff dev` leaves in its home: the store at its revision (migrating is the
    # one time a worker loads Alembic), the decision keys. Made here, not in the child.
    make_engine(settings.resolved_database_url).dispose()
    ensure_key_ring(settings)
    env = {
        **{name: value for name, value in os.environ.items() if not name.startswith("SIGNOFF_")},
        "SIGNOFF_HOME": str(tmp_path),
        "UNWANTED": json.dumps(NOT_FOR_A_DEFAULT_WORKER),
    }
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OTEL_EXPORTER_OTLP_ENDPOINT"):
        env.pop(name, None)
    ran = subprocess.run(
        [sys.executable, "-c", WORKER_START], env=env, check=True, capture_output=True, text=True
    )
    unwanted, used = (json.loads(line) for line in ran.stdout.strip().splitlines()[-2:])
    assert unwanted == []
    assert used == ["sqlalchemy", "temporalio.worker"]

"""The intake's fixtures: a seeded store, a secrets file, and the reviewer app on the
time-skipping server's client, driven by httpx in the test's own event loop."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, func, select
from temporalio.client import Client
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment

from activities.store.connector_schema import IntakeDelivery
from activities.store.database import use_session
from activities.store.schema import Ticket
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.handles import Runs, engine_of
from signoff.service.store import close_store
from tests.clock import clock_now
from tests.conftest import fresh_demo_store

DEMO_GENERIC = "demo-generic-signing-secret-0123456789abcdef"
DEMO_ZENDESK = "demo-zendesk-signing-secret-0123456789abcdef"
GLOBEX_GENERIC = "globex-generic-signing-secret-0123456789abcd"
URL = "/api/intake/tickets"


def write_private(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document))
    os.chmod(path, 0o600)
    return path


@pytest.fixture
def home(tmp_path: Path, demo_store_template: Path) -> Path:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    engine.dispose()
    write_private(
        tmp_path / "intake-secrets.json",
        {
            "demo": {"generic": DEMO_GENERIC, "zendesk": [DEMO_ZENDESK]},
            "globex": {"generic": [GLOBEX_GENERIC]},
        },
    )
    return tmp_path


@pytest.fixture
def settings(home: Path) -> Settings:
    return Settings(
        home=home,
        intake_secrets=home / "intake-secrets.json",
        task_queue=f"intake-{uuid.uuid4().hex}",
        model="scripted",
    )


@dataclass
class Intake:
    http: httpx.AsyncClient
    client: Client
    engine: Engine
    started: list[str]

    async def post(self, body: bytes, headers: dict[str, str]) -> httpx.Response:
        answer = await self.http.post(URL, content=body, headers=headers)
        if answer.status_code in (200, 202):
            self.started.append(answer.json()["run_id"])
        return answer

    def counts(self) -> tuple[int, int]:
        """(tickets, intake deliveries) in the store."""
        with use_session(self.engine) as session:
            tickets = session.scalar(select(func.count()).select_from(Ticket))
            deliveries = session.scalar(select(func.count()).select_from(IntakeDelivery))
            return int(tickets or 0), int(deliveries or 0)

    async def exists(self, workflow_id: str) -> bool:
        try:
            await self.client.get_workflow_handle(workflow_id).describe()
        except RPCError:
            return False
        return True


@pytest.fixture
async def intake(
    settings: Settings, time_skipping_env: WorkflowEnvironment
) -> AsyncIterator[Intake]:
    client = time_skipping_env.client

    async def connect(_: Settings) -> Runs:
        return Runs(client)

    app = create_app(settings, temporal_connect=connect)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://intake.test") as http:
        intake = Intake(http, client, engine_of(app.state.engine), [])
        try:
            yield intake
        finally:
            for workflow_id in set(intake.started):  # no worker runs them: end them here
                try:
                    await client.get_workflow_handle(workflow_id).terminate("test over")
                except RPCError:
                    pass  # ended already
            close_store(app.state.engine)


def generic_body(ticket_id: str = "4512", event_id: str = "evt-1", **ticket: Any) -> bytes:
    values = {"id": ticket_id, "text": "Where is my order 4512?", "customer_name": "Sam Lee"}
    values.update(ticket)
    return json.dumps({"event_id": event_id, "ticket": values}).encode()


def zendesk_body(ticket_id: str = "35436", event_id: str | None = None, **detail: Any) -> bytes:
    values = {
        "id": ticket_id,
        "subject": "Lamp arrived broken",
        "description": "The lamp of order 4512 arrived cracked. Money back please.",
        "requester_id": "7001",
        "external_id": "4512",
        "status": "NEW",
    }
    values.update(detail)
    document = {
        "account_id": 22222,
        "detail": values,
        "event": {},
        "id": event_id or str(uuid.uuid4()),
        "subject": f"zen:ticket:{ticket_id}",
        "time": clock_now().isoformat(),
        "type": "zen:event-type:ticket.created",
        "zendesk_event_version": "2022-11-06",
    }
    return json.dumps(document).encode()


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """Zendesk's documented signature, written here apart from the code under test:
    base64(HMAC-SHA256(secret, TIMESTAMP + BODY))."""
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def generic_headers(secret: str, body: bytes, at: datetime | None = None) -> dict[str, str]:
    timestamp = str(int((at or clock_now()).timestamp()))
    return {
        "Content-Type": "application/json",
        "X-Signoff-Timestamp": timestamp,
        "X-Signoff-Signature": sign(secret, timestamp, body),
    }


def zendesk_headers(secret: str, body: bytes, at: datetime | None = None) -> dict[str, str]:
    timestamp = (at or clock_now()).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "Content-Type": "application/json",
        "X-Zendesk-Webhook-Signature-Timestamp": timestamp,
        "X-Zendesk-Webhook-Signature": sign(secret, timestamp, body),
    }

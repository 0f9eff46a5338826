"""The codec endpoint (`/api/codec/decode`, `/encode`): Temporal's remote codec protocol,
for a reviewer who may decide, from this site or the Temporal Web UI's origin only.

On a seeded store with no Temporal, like `test_metrics_route.py`. The payloads are what
the worker's converter writes with the same keys (`data_converter_for`), in the JSON
form the Temporal Web UI posts.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from google.protobuf.json_format import MessageToDict
from sqlalchemy import Engine
from temporalio.api.common.v1 import Payloads
from temporalio.converter import WorkflowSerializationContext

from approvals_ui.main import create_app
from signoff.config.data_converter import data_converter_for
from signoff.config.settings import Settings
from signoff.service.accounts import issue_token
from signoff.service.handles import Store
from tests.admin import ADMIN
from tests.conftest import fresh_demo_store

KEYS = "k1:" + base64.b64encode(b"k" * 32).decode()
TEMPORAL_UI = "http://localhost:8233"
TICKET_TEXT = "my parcel arrived crushed"


async def unreachable_connect(_: Settings) -> Any:
    raise RuntimeError("connection refused")


@pytest.fixture
def store(tmp_path: Path, demo_store_template: Path) -> Iterator[Engine]:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    yield engine
    engine.dispose()


def settings_for(home: Path, **values: Any) -> Settings:
    return Settings(home=home, payload_keys=KEYS, **values)


@pytest.fixture
def client(tmp_path: Path, store: Engine) -> Iterator[TestClient]:
    app = create_app(
        settings_for(tmp_path), temporal_connect=unreachable_connect, engine=Store(store)
    )
    with TestClient(app, follow_redirects=False) as client:
        yield client


def bearer(store: Engine, name: str) -> dict[str, str]:
    _, _, token = issue_token(Store(store), ADMIN, name, timedelta(days=1))
    return {"Authorization": f"Bearer {token}"}


async def sealed_body(home: Path, workflow_id: str | None = "run-demo-T1") -> dict[str, Any]:
    """A payload as the worker seals it for `workflow_id`'s run (None: for no run)."""
    converter = data_converter_for(settings_for(home))
    if workflow_id is not None:
        converter = converter.with_context(
            WorkflowSerializationContext(namespace="default", workflow_id=workflow_id)
        )
    payloads = await converter.encode([{"text": TICKET_TEXT}])
    return MessageToDict(Payloads(payloads=payloads))


def texts(answer: dict[str, Any]) -> list[str]:
    return [base64.b64decode(p["data"]).decode() for p in answer["payloads"]]


async def test_a_reviewer_decodes_what_the_worker_sealed(
    client: TestClient, store: Engine, tmp_path: Path
) -> None:
    body = await sealed_body(tmp_path)
    assert TICKET_TEXT not in str(body)
    answer = client.post("/api/codec/decode", json=body, headers=bearer(store, "alice"))
    assert answer.status_code == 200, answer.text
    assert texts(answer.json()) == [f'{{"text":"{TICKET_TEXT}"}}']
    # And back: what /encode seals, /decode opens.
    sealed = client.post("/api/codec/encode", json=answer.json(), headers=bearer(store, "alice"))
    assert TICKET_TEXT not in sealed.text
    opened = client.post("/api/codec/decode", json=sealed.json(), headers=bearer(store, "alice"))
    assert texts(opened.json()) == texts(answer.json())


async def test_no_credential_no_clear_text(
    client: TestClient, store: Engine, tmp_path: Path
) -> None:
    body = await sealed_body(tmp_path)
    refused = [
        client.post("/api/codec/decode", json=body),
        client.post("/api/codec/decode", json=body, headers={"Authorization": "Bearer forged"}),
        # dave is a reviewer without the right to decide refunds.
        client.post("/api/codec/decode", json=body, headers=bearer(store, "dave")),
    ]
    assert [answer.status_code for answer in refused] == [401, 401, 403]
    assert all(TICKET_TEXT not in answer.text for answer in refused)


async def test_only_the_temporal_ui_origin_is_answered(
    client: TestClient, store: Engine, tmp_path: Path
) -> None:
    body = await sealed_body(tmp_path)
    preflight = client.options(
        "/api/codec/decode",
        headers={"Origin": TEMPORAL_UI, "Access-Control-Request-Method": "POST"},
    )
    assert preflight.headers["access-control-allow-origin"] == TEMPORAL_UI
    assert "x-namespace" in preflight.headers["access-control-allow-headers"]
    allowed = client.post(
        "/api/codec/decode",
        json=body,
        headers={"Origin": TEMPORAL_UI, "X-Namespace": "default", **bearer(store, "alice")},
    )
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == TEMPORAL_UI
    assert allowed.headers["access-control-allow-credentials"] == "true"

    evil = "https://evil.example"
    assert client.options("/api/codec/decode", headers={"Origin": evil}).status_code == 403
    stolen = client.post(
        "/api/codec/decode", json=body, headers={"Origin": evil, **bearer(store, "alice")}
    )
    assert stolen.status_code == 403 and TICKET_TEXT not in stolen.text
    assert "access-control-allow-origin" not in stolen.headers


async def test_bad_requests_say_what_was_wrong(
    client: TestClient, store: Engine, tmp_path: Path
) -> None:
    alice = bearer(store, "alice")
    body = await sealed_body(tmp_path)
    other_namespace = client.post(
        "/api/codec/decode", json=body, headers={"X-Namespace": "prod", **alice}
    )
    assert other_namespace.status_code == 400 and "namespace" in other_namespace.json()["detail"]
    not_payloads = client.post("/api/codec/decode", json={"payloads": "x"}, headers=alice)
    assert not_payloads.status_code == 400 and "payloads" in not_payloads.json()["detail"]
    form = client.post("/api/codec/decode", content=b"payloads=1", headers=alice)
    assert form.status_code == 415
    # A payload sealed under a key this UI does not hold: named, not a crash.
    other = Settings(home=tmp_path, payload_keys="old:" + base64.b64encode(b"o" * 32).decode())
    demo_run = WorkflowSerializationContext(namespace="default", workflow_id="run-demo-T1")
    sealed = await data_converter_for(other).with_context(demo_run).encode(["x"])
    unknown = client.post(
        "/api/codec/decode", json=MessageToDict(Payloads(payloads=sealed)), headers=alice
    )
    assert unknown.status_code == 400 and "'old'" in unknown.json()["detail"]


def test_off_without_keys(tmp_path: Path, store: Engine) -> None:
    app = create_app(
        Settings(home=tmp_path), temporal_connect=unreachable_connect, engine=Store(store)
    )
    with TestClient(app) as client:
        answer = client.post(
            "/api/codec/decode", json={"payloads": []}, headers=bearer(store, "alice")
        )
    assert answer.status_code == 404 and "SIGNOFF_PAYLOAD_KEYS" in answer.json()["detail"]


async def test_a_reviewer_reads_only_the_payloads_of_their_tenant(
    client: TestClient, store: Engine, tmp_path: Path
) -> None:
    """carol (globex) holds demo's ciphertext, as anyone with the Temporal UI may: 403.
    A payload of no run opens for an administrator only."""
    demo = await sealed_body(tmp_path, "run-demo-T1")
    other = client.post("/api/codec/decode", json=demo, headers=bearer(store, "carol"))
    assert other.status_code == 403 and "tenant demo" in other.json()["detail"]
    assert TICKET_TEXT not in other.text
    globex = await sealed_body(tmp_path, "run-globex-T9")
    assert client.post("/api/codec/decode", json=globex, headers=bearer(store, "carol")).is_success

    untagged = await sealed_body(tmp_path, None)
    refused = client.post("/api/codec/decode", json=untagged, headers=bearer(store, "alice"))
    assert refused.status_code == 403 and "administrator" in refused.json()["detail"]
    opened = client.post("/api/codec/decode", json=untagged, headers=bearer(store, "admin"))
    assert opened.status_code == 200 and texts(opened.json()) == [f'{{"text":"{TICKET_TEXT}"}}']

    # What carol seals is sealed with her tenant: alice (demo) cannot open it.
    sealed = client.post("/api/codec/encode", json=opened.json(), headers=bearer(store, "carol"))
    assert (
        client.post(
            "/api/codec/decode", json=sealed.json(), headers=bearer(store, "alice")
        ).status_code
        == 403
    )

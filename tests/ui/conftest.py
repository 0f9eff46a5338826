"""Fixtures of the reviewer UI tests: a real `signoff dev` stack, and refund cases in it.

One dev stack (Temporal dev server, worker, demo data, the UI on a free port) serves
every test here, as a process started the way `make demo` starts it. Each test gets its
own order and ticket, so that refunds in one test never change what another judges.
Route tests drive `create_app` through FastAPI's TestClient against the same Temporal
server and store; browser tests drive the UI the launcher serves.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page
from sqlalchemy import Engine

from activities.store import make_engine, write_transaction
from activities.store.schema import Order, Ticket
from approvals_ui.main import create_app
from signoff.settings import Settings
from tests.dev_stack import SIGNOFF, running_signoff_dev, stack_env

PENDING_SECONDS = 30
CSRF_PATTERN = re.compile(r'name="csrf_token" value="([^"]+)"')


@dataclass(frozen=True)
class DevStack:
    env: dict[str, str]
    home: Path
    ui_url: str

    def settings(self) -> Settings:
        return Settings(
            home=self.home,
            temporal_address=self.env["SIGNOFF_TEMPORAL_ADDRESS"],
            task_queue=self.env["SIGNOFF_TASK_QUEUE"],
            ui_secret=None,
        )

    def signoff(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [SIGNOFF, *args], env=self.env, input=stdin, capture_output=True, text=True, timeout=120
        )


@pytest.fixture(scope="session")
def dev_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevStack]:
    home = tmp_path_factory.mktemp("signoff-ui-home")
    env = stack_env(home, task_queue=f"ui-{os.getpid()}", SIGNOFF_UI_INBOX_REFRESH_SECONDS="1")
    ui_port = env["SIGNOFF_UI_PORT"]
    log_path = home / "dev.log"
    with running_signoff_dev(env, log_path):
        assert f"Reviewer UI on http://127.0.0.1:{ui_port}/" in log_path.read_text()
        yield DevStack(env=env, home=home, ui_url=f"http://127.0.0.1:{ui_port}")


@pytest.fixture(scope="session")
def store(dev_stack: DevStack) -> Iterator[Engine]:
    engine = make_engine(dev_stack.settings().resolved_database_url)
    yield engine
    engine.dispose()


@dataclass(frozen=True)
class RefundCase:
    tenant_id: str
    order_id: str
    ticket_id: str
    run_id: str


DAMAGED_TEXT = "Hello, my parcel arrived damaged: the lamp is broken. Can you help? Kim"


def add_case(engine: Engine, tenant_id: str = "demo", text: str = DAMAGED_TEXT) -> RefundCase:
    """A fresh order of 60.00 EUR and a ticket on it that the demo script refunds in full."""
    suffix = uuid.uuid4().hex[:8].upper()
    order_id, ticket_id = f"UI-{suffix}", f"T-UI-{suffix}"
    with write_transaction(engine) as session:
        session.add(
            Order(
                tenant_id=tenant_id,
                id=order_id,
                amount_paid_minor=6000,
                currency="EUR",
                status="delivered",
                tracking=None,
                customer_name="Kim Test",
            )
        )
        session.flush()
        session.add(
            Ticket(
                tenant_id=tenant_id,
                id=ticket_id,
                order_id=order_id,
                customer_name="Kim Test",
                text=text,
                created_at=datetime.now(UTC),
            )
        )
    return RefundCase(tenant_id, order_id, ticket_id, f"run-{tenant_id}-{suffix.lower()}")


def start_run(stack: DevStack, case: RefundCase) -> None:
    request_id = case.run_id.removeprefix(f"run-{case.tenant_id}-")
    started = stack.signoff(
        "run", "--ticket", case.ticket_id, "--tenant", case.tenant_id, "--request-id", request_id
    )
    assert started.returncode == 0, started.stderr


def wait_until_pending(stack: DevStack, case: RefundCase) -> str:
    """The action hash, once the run waits for a decision and visibility lists it."""
    deadline = time.monotonic() + PENDING_SECONDS
    while True:
        listed = stack.signoff("pending", "--tenant", case.tenant_id, "--json")
        if listed.returncode == 0 and case.run_id in listed.stdout:
            import json

            for row in json.loads(listed.stdout):
                if row["run_id"] == case.run_id:
                    return str(row["action_hash"])
        assert time.monotonic() < deadline, listed.stdout + listed.stderr
        time.sleep(0.3)


@pytest.fixture
def pending_case(dev_stack: DevStack, store: Engine) -> RefundCase:
    case = add_case(store)
    start_run(dev_stack, case)
    wait_until_pending(dev_stack, case)
    return case


@pytest.fixture(scope="session")
def app_settings(dev_stack: DevStack) -> Settings:
    return dev_stack.settings()


@pytest.fixture
def ui(app_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(app_settings), follow_redirects=False) as client:
        yield client


def csrf_of(html: str) -> str:
    found = CSRF_PATTERN.search(html)
    assert found is not None, html
    return found.group(1)


def sign_in(client: TestClient, name: str, password: str | None = None) -> str:
    """Signs in and returns the session's CSRF token."""
    token = csrf_of(client.get("/signin").text)
    answer = client.post(
        "/signin",
        data={"csrf_token": token, "username": name, "password": password or f"demo-{name}"},
    )
    assert answer.status_code == 303, answer.text
    return csrf_of(client.get("/approvals").text)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    from tests.ui.browser import launched_browser

    yield from launched_browser()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    from tests.ui.browser import new_page

    yield from new_page(browser)

"""Fixtures of the reviewer UI tests: a real `signoff dev` stack, and refund cases in it.

One dev stack (Temporal dev server, worker, demo data, the UI on a free port) serves
every test here, as a process started the way `make demo` starts it. Each test gets its
own order and ticket, so that refunds in one test never change what another judges.
Route tests drive `create_app` through FastAPI's TestClient against the same Temporal
server and store; browser tests drive the UI the launcher serves.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import time
import uuid
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page
from sqlalchemy import Engine

from activities.store import make_engine, write_transaction
from activities.store.schema import Order, Refund, Ticket
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.config.temporal_client import connect
from signoff.service.handles import Runs, Store
from signoff.service.pending import run_state
from signoff.service.run_control import start
from signoff.service.run_requests import new_run_request
from signoff.service.waiting_listing import read_pending_page
from signoff.wiring.local_stack import SIGNOFF, signoff_dev_stack
from tests.conftest import demo_home
from tests.live_ui import served
from workflows.model_contracts import ModelRef

PENDING_SECONDS = 30
Result = TypeVar("Result")
CSRF_PATTERN = re.compile(r'name="csrf_token" value="([^"]+)"')


@dataclass(frozen=True)
class DevStack:
    env: dict[str, str]
    home: Path
    ui_url: str

    def settings(self) -> Settings:
        """The stack's settings, as its processes read them from its environment: where
        it is, and the agent profiles its worker and CLI use (a run started from here
        gets the stack's agent, as `signoff run` in that environment would)."""
        profiles = self.env.get("SIGNOFF_PROFILES")
        return Settings(
            home=self.home,
            temporal_address=self.env["SIGNOFF_TEMPORAL_ADDRESS"],
            task_queue=self.env["SIGNOFF_TASK_QUEUE"],
            ui_secret=None,
            **({"profiles": Path(profiles)} if profiles else {}),
        )

    def signoff(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [SIGNOFF, *args], env=self.env, input=stdin, capture_output=True, text=True, timeout=120
        )


# Per package: the stack stops when the UI tests end, and its server, worker and UI do
# not load the machine under the time-skipping tests that come after.
@pytest.fixture(scope="package")
def dev_stack(
    tmp_path_factory: pytest.TempPathFactory, demo_store_template: Path
) -> Iterator[DevStack]:
    home = demo_home(demo_store_template, tmp_path_factory.mktemp("signoff-ui-home"))
    with signoff_dev_stack(
        home, task_queue=f"ui-{os.getpid()}", SIGNOFF_UI_INBOX_REFRESH_SECONDS="1"
    ) as (env, _):
        ui_port = env["SIGNOFF_UI_PORT"]
        assert f"Reviewer UI on http://localhost:{ui_port}/" in (home / "dev.log").read_text()
        yield DevStack(env=env, home=home, ui_url=f"http://127.0.0.1:{ui_port}")


@pytest.fixture(scope="package")
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


def change_order_meanwhile(store: Engine, case: RefundCase) -> None:
    """The order changes after the request was raised: 10.00 more paid and 10.00 refunded
    by hand. 60.00 stays refundable, so an approval of the old request goes void and the
    refund is asked again under a new hash (not denied)."""
    with write_transaction(store) as session:
        order = session.get(Order, (case.tenant_id, case.order_id))
        assert order is not None, case
        order.amount_paid_minor = 7000
        session.add(
            Refund(
                id="R-" + uuid.uuid4().hex[:10].upper(),
                tenant_id=case.tenant_id,
                order_id=case.order_id,
                amount_minor=1000,
                currency="EUR",
                idempotency_key=f"test-{uuid.uuid4().hex}",
                run_id="manual",
                action_hash="0" * 64,
                approvers="bob",
                reason="made by hand in a test",
                created_at=datetime.now(UTC),
            )
        )


def in_thread(coroutine: Coroutine[Any, Any, Result]) -> Result:
    """The coroutine run to its end on an event loop of its own, in a thread of its own:
    apart from the loop the sync Playwright API keeps running in the test's thread."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def start_run(stack: DevStack, case: RefundCase, model: ModelRef | None = None) -> None:
    """The run `signoff run --ticket T --tenant X --request-id R [--model M]` starts,
    through the same service calls, in this process: the UI tests judge the run, not the
    command that started it (tests/e2e and tests/cli run the command), and a CLI process
    per case cost about a second of CPU each, a hundred times a full run."""
    settings = stack.settings()
    engine = make_engine(settings.resolved_database_url)
    try:
        request = new_run_request(
            settings,
            Store(engine),
            tenant_id=case.tenant_id,
            ticket_id=case.ticket_id,
            request_id=case.run_id.removeprefix(f"run-{case.tenant_id}-"),
            model=model,
        )
    finally:
        engine.dispose()

    async def started() -> str:
        run_id, _ = await start(Runs(await connect(settings)), request, settings.task_queue)
        return run_id

    assert in_thread(started()) == case.run_id


def wait_until_pending(stack: DevStack, case: RefundCase) -> str:
    """The action hash, once the inbox lists the run's request (the store's read model,
    as `signoff pending` and the inbox read it) and the run's own state waits on it.

    Polls in process: a CLI process per poll cost seconds on a loaded machine. A thread
    of its own keeps the event loop apart from Playwright's.
    """

    async def poll() -> str:
        client = await connect(stack.settings())
        engine = make_engine(stack.settings().resolved_database_url)
        deadline = time.monotonic() + PENDING_SECONDS
        try:
            while True:
                listed = read_pending_page(Store(engine), case.tenant_id, 500).page.items
                for item in listed:
                    if item.run_id == case.run_id:
                        state = await run_state(Runs(client), case.run_id)
                        waiting = state.pending_actions if state is not None else []
                        if item.action.action_hash in {a.action_hash for a in waiting}:
                            return item.action.action_hash
                assert time.monotonic() < deadline, f"{case.run_id} never waited for a decision"
                await asyncio.sleep(0.2)
        finally:
            engine.dispose()

    return in_thread(poll())


@pytest.fixture
def pending_case(dev_stack: DevStack, store: Engine) -> RefundCase:
    case = add_case(store)
    start_run(dev_stack, case)
    wait_until_pending(dev_stack, case)
    return case


@pytest.fixture(scope="package")
def app_settings(dev_stack: DevStack) -> Settings:
    return dev_stack.settings()


@pytest.fixture
def ui(app_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(app_settings), follow_redirects=False) as client:
        yield client


@pytest.fixture
def live_url(app_settings: Settings) -> Iterator[str]:
    """The reviewer UI served over real HTTP (uvicorn), for what TestClient cannot read
    as a browser does (a server-sent event stream)."""
    with served(create_app(app_settings)) as url:
        yield url


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


# Per module: the sync Playwright API keeps an event loop running while it is open,
# and the async tests of other modules (pytest-asyncio) cannot start theirs meanwhile.
@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from tests.ui.browser import launched_browser

    yield from launched_browser()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    from tests.ui.browser import new_page

    yield from new_page(browser)

"""The JSON API fuzzed by schemathesis against the app's own OpenAPI schema.

Two servers, each a real uvicorn on a free port (one event loop for the app's Temporal
client, as in production): the app on the dev stack's real Temporal and store, in proxy
mode as reviewer alice, so that generated requests reach the real reads and the real
`decide` update; and the app with Temporal unreachable, where every route that needs it
must answer the 503 JSON its schema documents. Checks: no 5xx other than that
documented 503, documented status codes and content types, bodies that match their
schema. Bounded: a few examples per operation, no shrinking.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
import uvicorn
from fastapi import FastAPI
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.decisions import UNAVAILABLE
from signoff.wiring.local_stack import free_port
from tests.conftest import fresh_demo_store

pytestmark = pytest.mark.devserver
MAX_EXAMPLES = 12
SERVER_START_SECONDS = 10
OPERATIONS = 13  # every route under /api/
PROXY_USER = {"X-Forwarded-User": "alice"}
CONFORMANCE = [status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def serve() -> Iterator[Callable[[FastAPI], str]]:
    servers: list[tuple[uvicorn.Server, threading.Thread]] = []

    def start(app: FastAPI) -> str:
        port = free_port()
        server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + SERVER_START_SECONDS
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        servers.append((server, thread))
        return f"http://127.0.0.1:{port}"

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def live_api(serve: Callable[[FastAPI], str], app_settings: Settings) -> Any:
    base = serve(create_app(app_settings.model_copy(update={"auth": "proxy"})))
    return schemathesis.openapi.from_url(f"{base}/api/openapi.json")


async def unreachable(_: Settings) -> Any:
    raise RuntimeError("connection refused")


@pytest.fixture(scope="module")
def offline_api(
    serve: Callable[[FastAPI], str],
    tmp_path_factory: pytest.TempPathFactory,
    demo_store_template: Path,
) -> Any:
    home: Path = tmp_path_factory.mktemp("fuzz-offline")
    engine = fresh_demo_store(demo_store_template, home / "signoff.db")
    engine.dispose()
    app = create_app(Settings(home=home, auth="proxy"), temporal_connect=unreachable)
    return schemathesis.openapi.from_url(f"{serve(app)}/api/openapi.json")


BOUNDED = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,  # a request reaches Temporal: its time is not the code's speed
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


def fuzz(schema: Any, check: Callable[[schemathesis.Case], None]) -> int:
    """Runs `check` on generated cases of every operation; returns how many operations.

    Hypothesis is driven by hand (`as_strategy`) rather than by schemathesis' pytest
    plugin, whose lazy fixture loading does not work with the pytest we run.
    """
    operations = [result.ok() for result in schema.get_all_operations()]
    for operation in operations:

        @BOUNDED
        @given(case=operation.as_strategy())
        def run(case: schemathesis.Case) -> None:
            check(case)

        run()
    return len(operations)


def test_api_on_real_runs_conforms_to_its_schema(live_api: Any) -> None:
    seen: set[int] = set()

    def check(case: schemathesis.Case) -> None:
        response = case.call_and_validate(
            headers=PROXY_USER, checks=[not_a_server_error, *CONFORMANCE]
        )
        seen.add(response.status_code)

    assert fuzz(live_api, check) == OPERATIONS
    assert {200, 404} <= seen, seen  # real reads answered, unknown runs refused


def test_api_without_temporal_answers_its_documented_503(offline_api: Any) -> None:
    seen: set[int] = set()

    def check(case: schemathesis.Case) -> None:
        response = case.call_and_validate(headers=PROXY_USER, checks=CONFORMANCE)
        assert response.status_code < 500 or response.status_code == 503
        if response.status_code == 503:
            detail = response.json()["detail"]
            # Reads say Temporal is down; a decision says so in the words every face uses.
            assert detail.startswith("Temporal cannot be reached") or detail == UNAVAILABLE
        seen.add(response.status_code)

    assert fuzz(offline_api, check) == OPERATIONS
    assert {200, 503} <= seen, seen  # /api/me needs no Temporal; the rest answer 503

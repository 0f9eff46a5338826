"""What the live benchmarks share: a refund request that will wait, timing, a reviewer.

`python -m bench.scale` starts real runs on a private dev stack, each
on a refund case of its own (`testkit/refund_cases.py`), and time the faces against them.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Awaitable, Callable

from fastapi.testclient import TestClient

from bench.common.timings import p50_p95
from signoff.config.settings import Settings
from signoff.service.handles import Store
from signoff.service.run_requests import new_run_request
from workflows.contracts import ModelRef, RunRequest

TENANT = "demo"
# Approval times, shuffled over the runs so that expiry order is not start order: 2 h to
# 24 h, minutes. The worker clamps a request to its settings' TTL (24 h by default).
TTL_MINUTES = (120, 24 * 60)
# A demo reviewer of tenant demo with the approver role (activities/store/seed.py).
REVIEWER = ("alice", "demo-alice")


def refund_request(
    settings: Settings,
    store: Store,
    ticket_id: str,
    ttl_minutes: tuple[int, int] = TTL_MINUTES,
) -> RunRequest:
    """A scripted run on the ticket: it proposes the refund and waits for a decision."""
    return new_run_request(
        settings,
        store,
        tenant_id=TENANT,
        ticket_id=ticket_id,
        model=ModelRef(provider="scripted", model_id="demo"),
        actor_id="bench",
        request_id=uuid.uuid4().hex[:12],
        approval_ttl_seconds=random.randint(*ttl_minutes) * 60,
    )


async def timings(call: Callable[[], Awaitable[object]], rounds: int) -> tuple[float, float]:
    """p50 and p95 in ms of `rounds` calls, after one call to warm up."""
    await call()
    samples = []
    for _ in range(rounds):
        began = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - began) * 1000)
    return p50_p95(samples)


def sign_in(client: TestClient) -> None:
    """The TestClient signed in as the demo reviewer, through the sign-in form."""
    token = client.get("/signin").text.split('name="csrf_token" value="')[1].split('"')[0]
    username, password = REVIEWER
    answer = client.post(
        "/signin",
        data={"csrf_token": token, "username": username, "password": password},
        follow_redirects=False,
    )
    assert answer.status_code in (302, 303), f"sign-in failed: {answer.status_code}"

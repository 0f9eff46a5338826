"""How fast the inbox page renders with 1,000 pending actions (p50/p95), against 10.

What is measured: the whole `GET /approvals` route through FastAPI's TestClient (session
cookie, reviewer read from the store, ticket excerpts read from the store, Jinja2
render of the first page of 50, security headers), with N synthetic pending actions
written to the store's read model (`waiting_actions`), which the inbox lists from; and,
apart, the template alone rendering all N rows (no pagination), the worst case of the
markup. The read model at 10,000 is bench/store/. It writes bench/results/INBOX.md, which
the docs' benchmark pages include.

    .venv/bin/python -m bench.inbox [--rounds 200]
"""

from __future__ import annotations

import argparse
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import delete

from activities.store import make_engine, seed_demo, write_transaction
from activities.store.schema import WaitingAction
from activities.store.waiting_actions import new_row
from approvals_ui import lookups
from approvals_ui.main import create_app
from approvals_ui.templating import page_context, templates
from bench.common.timings import timings
from bench.inbox.report import write_inbox
from signoff.config.settings import Settings
from signoff.service.handles import Store
from signoff.service.pending import PendingItem
from signoff.service.reviewer_access import SignedInReviewer
from workflows.actions import REFUND_APPROVER_ROLE, ActionState, PendingAction

SIZES = (10, 1000)
TICKETS = ("T-1042", "T-2210", "T-3107")  # seeded demo tickets: real excerpts


def pending_items(count: int) -> list[PendingItem]:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    state = ActionState(
        order_id="A-1001", currency="EUR", paid_minor=6000, review_threshold_minor=20000
    )
    return [
        PendingItem(
            run_id=f"run-demo-bench{index:05d}",
            tenant_id="demo",
            ticket_id=TICKETS[index % len(TICKETS)],
            action=PendingAction(
                action_hash=f"{index:064x}",
                tool_use_id=f"toolu_{index}",
                tool="refund",
                arguments={"amount": "60.00", "currency": "EUR"},
                targets={"order_id": "A-1001"},
                reason="The parcel arrived damaged; full refund of the amount paid.",
                policy_version="2026-11-29",
                state=state,
                state_hash="0" * 64,
                mode="confirm",
                required_approvals=1,
                requested_at=start + timedelta(seconds=index),
                expires_at=datetime.now(UTC) + timedelta(hours=23),
            ),
        )
        for index in range(count)
    ]


async def no_temporal(_: Settings) -> Any:
    return object()  # never used: the listing is replaced


def measure(
    client: TestClient, engine: Any, size: int, rounds: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    items = pending_items(size)
    now = datetime.now(UTC)
    with write_transaction(engine) as session:  # the read model the inbox lists from
        session.execute(delete(WaitingAction))
        session.add_all(
            new_row(item.tenant_id, item.run_id, item.ticket_id, item.action, now) for item in items
        )

    def page() -> None:
        answer = client.get("/approvals")
        assert answer.status_code == 200 and "requests are waiting" in answer.text

    template = templates.get_template("_inbox_rows.html")
    # What the route passes the rows (approvals_ui/routers/approvals.py `_inbox`, and
    # templating.render's page context): the signed-in reviewer, and no row ticked.
    context = {
        **page_context("en", now),
        "reviewer": SignedInReviewer("alice", "demo", "Alice", (REFUND_APPROVER_ROLE,)),
        "selected": set(),
        "rows": lookups._excerpts(Store(engine), items),
        "total": size,
        "waiting_runs": size,
        "unread_runs": 0,
        "first": 0,
        "after": None,
        "next": None,
    }
    return timings(page, rounds), timings(lambda: template.render(context), rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    rounds = parser.parse_args().rounds
    home = Path(tempfile.mkdtemp(prefix="signoff-bench-"))
    engine = make_engine(f"sqlite:///{home / 'signoff.db'}")
    seed_demo(engine)
    settings = Settings(home=home)
    app = create_app(settings, temporal_connect=no_temporal, engine=Store(engine))
    results: dict[str, dict[int, tuple[float, float]]] = {"route": {}, "template": {}}
    with TestClient(app) as client:
        token = client.get("/signin").text.split('name="csrf_token" value="')[1].split('"')[0]
        client.post(
            "/signin",
            data={"csrf_token": token, "username": "alice", "password": "demo-alice"},
            follow_redirects=False,
        )
        for size in SIZES:
            results["route"][size], results["template"][size] = measure(
                client, engine, size, rounds
            )
    print(write_inbox(results, rounds))  # noqa: T201


if __name__ == "__main__":
    main()

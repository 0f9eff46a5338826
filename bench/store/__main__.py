"""The inbox's read model and the audit at scale (issue 13): pages from the store.

A temporary SQLite file gets the demo shop, 10,000 waiting actions of tenant demo (and
1,000 of globex beside them, so that every page is scoped to a tenant) in the read model
(`waiting_actions`), and 100,000 decisions of demo in the audit (hash-chained as the
audit writes them). Then, p50/p95 over `--rounds` calls of the service functions every
face calls (signoff/service/waiting_listing.py, signoff/service/audit.py):

- the pending listing: the first page (soonest expiry first: the inbox, the API and
  `signoff pending`), page 100 and the last page (reached by following `next`), the
  first page by amount and with the four-eyes filter;
- the audit: its first page, a page 1,000 pages deep and the last page (keyset on the
  chain sequence), and a first page filtered by reviewer.

Each call is a page of 50 with its COUNTs, as the faces ask for it. Then the first page
as a reviewer gets it, the whole route through FastAPI's TestClient (`GET /api/approvals`
and the inbox page). No Temporal server is needed: listing does not ask Temporal.

It writes bench/results/STORE.md (the machine, what was run, p50 and p95 of each line
against the target of 100 ms p95), which the docs' benchmark pages include.

    .venv/bin/python -m bench.store [--waiting 10000] [--decisions 100000] [--rounds 200]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Engine, insert

from activities.store import make_engine, seed_demo, write_transaction
from activities.store.decision_chain import GENESIS, row_hash
from activities.store.schema import DecisionRow
from activities.store.waiting_actions import new_row
from approvals_ui.main import create_app
from bench.common.timings import timings
from bench.store.report import StoreSetup, write_store
from signoff.config.settings import Settings
from signoff.service.audit import AuditQuery, audit_page
from signoff.service.handles import Store
from signoff.service.waiting_listing import read_pending_page
from workflows.actions import ActionState, PendingAction

PAGE = 50
OTHER_TENANT_ROWS = 1000
REVIEWERS = ("alice", "bob", "carol")
KINDS = ("approved", "rejected", "first_approval", "expired", "executed")
BATCH = 5000


def action(index: int, tenant_id: str, now: datetime) -> PendingAction:
    review = index % 4 == 0
    return PendingAction(
        action_hash=f"{index:064x}" if tenant_id == "demo" else f"{index + 10**9:064x}",
        tool_use_id=f"toolu_{index}",
        tool="refund",
        arguments={"amount": f"{(index * 37) % 400 + 1}.00", "currency": "EUR"},
        targets={"tenant_id": tenant_id, "order_id": f"B-{index}"},
        reason="The parcel arrived damaged; full refund of the amount paid.",
        policy_version="bench",
        state=ActionState(
            order_id=f"B-{index}", currency="EUR", paid_minor=50_000, review_threshold_minor=20_000
        ),
        state_hash="0" * 64,
        mode="review" if review else "confirm",
        required_approvals=2 if review else 1,
        requested_at=now,
        # Expiries spread over a day, not in insertion order.
        expires_at=now + timedelta(seconds=(index * 7919) % 86_400),
    )


def fill_waiting(engine: Engine, waiting: int) -> None:
    now = datetime.now(UTC)
    rows = [("demo", index) for index in range(waiting)]
    rows += [("globex", index) for index in range(OTHER_TENANT_ROWS)]
    for start in range(0, len(rows), BATCH):
        with write_transaction(engine) as session:
            session.add_all(
                new_row(tenant, f"run-{tenant}-b{index}", "T-1042", action(index, tenant, now), now)
                for tenant, index in rows[start : start + BATCH]
            )


def fill_audit(engine: Engine, count: int) -> None:
    """`count` events of demo, chained as `decisions.append_event` chains them."""
    began = datetime(2026, 1, 1, tzinfo=UTC)
    prev = GENESIS
    for start in range(1, count + 1, BATCH):
        batch: list[dict[str, Any]] = []
        for seq in range(start, min(start + BATCH, count + 1)):
            row = DecisionRow(
                tenant_id="demo",
                seq=seq,
                event_key=f"{seq:064x}",
                kind=KINDS[seq % len(KINDS)],
                run_id=f"run-demo-a{seq}",
                ticket_id="T-1042",
                action_hash=f"{seq:064x}",
                reviewer_id=REVIEWERS[seq % len(REVIEWERS)],
                reason="",
                order_id="C-1042",
                amount_minor=1000 + seq % 5000,
                currency="EUR",
                refund_id=None,
                decided_at=began + timedelta(minutes=seq),
                recorded_at=began + timedelta(minutes=seq),
                prev_hash=prev,
                row_hash="",
            )
            row.row_hash = row_hash(prev, row)
            prev = row.row_hash
            batch.append(
                {
                    column.name: getattr(row, column.name)
                    for column in DecisionRow.__table__.columns
                    if column.name != "id"
                }
            )
        with write_transaction(engine) as session:
            session.execute(insert(DecisionRow), batch)


def pending_cursors(engine: Engine) -> list[str]:
    """The `after` of every page, by following `next` (checks the walk, as it goes)."""
    cursors: list[str] = []
    after: str | None = None
    seen = 0
    while True:
        listed = read_pending_page(Store(engine), "demo", PAGE, after)
        assert listed.page.first == seen, (listed.page.first, seen)
        seen += len(listed.page.items)
        if listed.page.next is None:
            assert seen == listed.page.total, (seen, listed.page.total)
            return cursors
        after = listed.page.next
        cursors.append(after)


def audit_befores(engine: Engine) -> list[int]:
    befores: list[int] = []
    before: int | None = None
    while True:
        page = audit_page(Store(engine), AuditQuery("demo"), before=before, limit=PAGE)
        if page.next_before is None:
            return befores
        before = page.next_before
        befores.append(before)


def measure(engine: Engine, rounds: int) -> dict[str, tuple[float, float]]:
    cursors = pending_cursors(engine)
    befores = audit_befores(engine)
    everything = AuditQuery("demo")
    return {
        "pending, first page (time left)": timings(
            lambda: read_pending_page(Store(engine), "demo", PAGE), rounds
        ),
        "pending, page 100": timings(
            lambda: read_pending_page(
                Store(engine), "demo", PAGE, cursors[min(98, len(cursors) - 1)]
            ),
            rounds,
        ),
        "pending, last page": timings(
            lambda: read_pending_page(Store(engine), "demo", PAGE, cursors[-1]), rounds
        ),
        "pending, first page by amount": timings(
            lambda: read_pending_page(Store(engine), "demo", PAGE, sort="amount"), rounds
        ),
        "pending, first page, four eyes only": timings(
            lambda: read_pending_page(Store(engine), "demo", PAGE, mode="review"), rounds
        ),
        "audit, first page": timings(
            lambda: audit_page(Store(engine), everything, limit=PAGE), rounds
        ),
        "audit, page 1,000": timings(
            lambda: audit_page(
                Store(engine), everything, before=befores[min(998, len(befores) - 1)], limit=PAGE
            ),
            rounds,
        ),
        "audit, last page": timings(
            lambda: audit_page(Store(engine), everything, before=befores[-1], limit=PAGE), rounds
        ),
        "audit, first page of one reviewer": timings(
            lambda: audit_page(Store(engine), AuditQuery("demo", reviewer="bob"), limit=PAGE),
            rounds,
        ),
    }


async def no_temporal(_: Settings) -> Any:
    raise RuntimeError("the listing must not need Temporal")


def route_timings(home: Path, engine: Engine, rounds: int) -> dict[str, tuple[float, float]]:
    """The first page as a reviewer gets it: the whole route, through FastAPI's
    TestClient (session, store reads, ticket excerpts, JSON or the Jinja2 page)."""
    app = create_app(Settings(home=home), temporal_connect=no_temporal, engine=Store(engine))
    with TestClient(app) as client:
        token = client.get("/signin").text.split('name="csrf_token" value="')[1].split('"')[0]
        client.post(
            "/signin",
            data={"csrf_token": token, "username": "alice", "password": "demo-alice"},
            follow_redirects=False,
        )

        def get(path: str) -> Callable[[], object]:
            def call() -> object:
                answer = client.get(path)
                assert answer.status_code == 200, answer.text
                return answer

            return call

        return {
            "GET /api/approvals, first page": timings(get("/api/approvals"), rounds),
            "GET /approvals (inbox page), first page": timings(get("/approvals"), rounds),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waiting", type=int, default=10_000)
    parser.add_argument("--decisions", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=200)
    arguments = parser.parse_args()
    # The store is deleted at the end: about 75 MB at the default sizes.
    with tempfile.TemporaryDirectory(prefix="signoff-bench-store-") as directory:
        home = Path(directory)
        engine = make_engine(f"sqlite:///{home / 'signoff.db'}")
        seed_demo(engine)
        began = time.monotonic()
        fill_waiting(engine, arguments.waiting)
        fill_audit(engine, arguments.decisions)
        filled = time.monotonic() - began
        results = measure(engine, arguments.rounds)
        results.update(route_timings(home, engine, arguments.rounds))
        engine.dispose()
    setup = StoreSetup(
        arguments.waiting, OTHER_TENANT_ROWS, arguments.decisions, arguments.rounds, filled
    )
    print(write_store(results, setup))  # noqa: T201


if __name__ == "__main__":
    main()

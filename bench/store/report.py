"""`bench/results/STORE.md`: the pages `python -m bench.store` timed, p50 and p95, each
against the target of a page in at most 100 ms at p95."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.common.paths import RESULTS_DIR
from bench.common.result_file import command_line, markdown_table, write_result

STORE = RESULTS_DIR / "STORE.md"
TARGET_MS = 100.0  # a page in at most 100 ms at p95, with no listing cache

READING = (
    "How to read it. Each line is a page of 50 with its counts, as the faces ask for it: "
    "the service calls (`read_pending_page`, `audit_page`) in this process, then the "
    "whole route through FastAPI's TestClient with a signed-in reviewer (session, store "
    "reads, ticket excerpts, JSON or the Jinja2 page). Pending pages are of tenant demo, "
    "with another tenant's rows beside them; a deep or last page is reached by following "
    "`next`, as a reviewer paging on does. No Temporal server is involved: listing does "
    "not ask Temporal. The store is a temporary SQLite file, deleted at the end."
)


@dataclass(frozen=True)
class StoreSetup:
    waiting: int  # actions of demo in the read model
    other_tenant: int  # actions of globex beside them
    decisions: int  # audit events of demo, hash-chained
    rounds: int  # timed calls a line, after one to warm up
    fill_seconds: float


def write_store(
    results: dict[str, tuple[float, float]],
    setup: StoreSetup,
    path: Path = STORE,
    argv: list[str] | None = None,
) -> str:
    rows = [
        [label, f"{p50:,.1f}", f"{p95:,.1f}", "met" if p95 <= TARGET_MS else "MISSED"]
        for label, (p50, p95) in results.items()
    ]
    return write_result(
        path,
        "The read model and the audit at scale: pages from the store",
        "`python -m bench.store` (`make bench-store`)",
        [
            f"run: `{command_line('bench.store', argv)}`",
            f"store: SQLite, {setup.waiting:,} waiting actions of demo (and "
            f"{setup.other_tenant:,} of globex) in the read model, {setup.decisions:,} "
            f"audit events of demo; filled in {setup.fill_seconds:,.0f} s",
            f"{setup.rounds} timed calls a line, after one to warm up; pages of 50",
        ],
        markdown_table(
            ["what", "p50 (ms)", "p95 (ms)", f"p95 ≤ {TARGET_MS:.0f} ms"],
            rows,
        ),
        [READING],
    )

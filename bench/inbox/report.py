"""`bench/results/INBOX.md`: the inbox page and its template at a few and at many
pending actions, p50 and p95, and how the p50 grows from the few to the many."""

from __future__ import annotations

from pathlib import Path

from bench.common.paths import RESULTS_DIR
from bench.common.result_file import command_line, markdown_table, write_result

INBOX = RESULTS_DIR / "INBOX.md"
# What `python -m bench.inbox` times, by its key in the results.
LINES = {
    "route": "`GET /approvals`, first page of 50",
    "template": "all rows in one render (the template alone)",
}

READING = (
    "How to read it. The route is the whole `GET /approvals` through FastAPI's TestClient "
    "with a signed-in reviewer: session cookie, the reviewer read from the store, the "
    "first page of 50 from the read model with its ticket excerpts, the Jinja2 render and "
    "the security headers. A page is at most 50 rows however many wait: at 10 pending it "
    "holds 10, at 1,000 it holds 50, and what grows between the two is those rows, not "
    "the count waiting. The template line renders every row at once, with no pagination "
    "and no route: the worst case of the markup, which grows with the rows. The read "
    "model at 10,000 rows is `python -m bench.store`'s."
)


def write_inbox(
    results: dict[str, dict[int, tuple[float, float]]],
    rounds: int,
    path: Path = INBOX,
    argv: list[str] | None = None,
) -> str:
    sizes = sorted(next(iter(results.values())))
    small, large = sizes[0], sizes[-1]
    rows = []
    for name, label in LINES.items():
        cells = [f"{p50:,.2f} / {p95:,.2f}" for p50, p95 in (results[name][s] for s in sizes)]
        ratio = results[name][large][0] / results[name][small][0]
        rows.append([label, *cells, f"{ratio:,.1f}×"])
    return write_result(
        path,
        "The inbox page and its template: a few pending actions against many",
        "`python -m bench.inbox` (`make bench`)",
        [
            f"run: `{command_line('bench.inbox', argv)}`",
            f"{rounds} timed calls a line, after one to warm up; synthetic pending actions "
            "in a temporary SQLite store's read model",
        ],
        markdown_table(
            [
                "what",
                *(f"{size:,} pending, p50 / p95 (ms)" for size in sizes),
                f"p50, {large:,} against {small:,}",
            ],
            rows,
        ),
        [READING],
    )

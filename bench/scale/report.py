"""`bench/results/SCALE.md`: what `python -m bench.scale` measured at each checkpoint,
one column each.

Written again after every checkpoint, so that a bench stopped early (a deadline, a
machine that could not start runs fast enough) still leaves what it reached.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.common.machine import machine
from bench.common.paths import RESULTS_DIR
from bench.scale.faces import FaceTimings, Walk
from bench.scale.probes import Memory

SCALE = RESULTS_DIR / "SCALE.md"
TARGET_MS = 100.0  # a first page in at most 100 ms at p95, no listing cache


@dataclass
class Checkpoint:
    started: int
    read_model_runs: int  # distinct runs in the read model (tenant demo)
    visibility_count: int  # visibility's count of waiting runs (tenant demo)
    walk: Walk
    worker: Memory
    server: Memory | None
    fill_seconds: float  # from the previous checkpoint to every run of this one waiting
    elapsed_seconds: float  # filling alone, summed over the checkpoints so far
    faces: FaceTimings


# What the figures are, for whoever reads SCALE.md without the script.
READING = [
    "How to read it. The worker's RSS is the `signoff dev` process's: the worker and the "
    "embedded reviewer UI (signoff/wiring/dev.py); VmHWM is its peak since it started. "
    "Every started run waits, so the sticky cache holds at most its size in runs and the "
    "rest are evicted: a bounded RSS is what the cache is meant to give. The service call "
    "is `read_pending_page` in this process (what every face calls); `signoff pending "
    "--json` is a new process each time, its start-up included (`signoff --help` beside "
    "it is start-up alone); the routes go through FastAPI's TestClient with a signed-in "
    "reviewer. The start rate is runs reaching their approval per second of filling "
    "(measuring aside), with the bench and the stack under `nice` on a shared machine.",
]


def _rows(points: list[Checkpoint]) -> list[tuple[str, list[str]]]:
    rows: list[tuple[str, list[str]]] = [
        ("runs started", [f"{p.started:,}" for p in points]),
        ("waiting in the read model (runs)", [f"{p.read_model_runs:,}" for p in points]),
        ("waiting by visibility's count", [f"{p.visibility_count:,}" for p in points]),
        (
            "listed by following `next` (distinct, pages)",
            [f"{p.walk.listed:,} ({p.walk.distinct:,}, {p.walk.pages})" for p in points],
        ),
        ("listed in expiry order", ["yes" if p.walk.in_expiry_order else "NO" for p in points]),
        (
            "`signoff pending --json`: total, items on page 1",
            [
                f"{p.faces.cli_first_page['total']:,}, {p.faces.cli_first_page['items']}"
                for p in points
            ],
        ),
        ("worker RSS now (MiB)", [f"{p.worker.rss_mib:,.0f}" for p in points]),
        ("worker RSS peak, VmHWM (MiB)", [f"{p.worker.peak_mib:,.0f}" for p in points]),
        (
            "dev server RSS now / peak (MiB)",
            [
                f"{p.server.rss_mib:,.0f} / {p.server.peak_mib:,.0f}" if p.server else "-"
                for p in points
            ],
        ),
        (
            "start rate since the last checkpoint (runs/s)",
            [_rate(points, i) for i in range(len(points))],
        ),
        (
            "start rate over all the filling (runs/s)",
            [f"{p.started / p.elapsed_seconds:.2f}" for p in points],
        ),
        (
            "filling time so far, measuring aside (min)",
            [f"{p.elapsed_seconds / 60:.1f}" for p in points],
        ),
    ]
    for name in points[0].faces.p50_p95:
        rows.append((f"{name}, p50 / p95 (ms)", [_ms(p.faces, name) for p in points]))
    return rows


def _rate(points: list[Checkpoint], index: int) -> str:
    before = points[index - 1].started if index else 0
    return f"{(points[index].started - before) / points[index].fill_seconds:.2f}"


def _ms(faces: FaceTimings, name: str) -> str:
    p50, p95 = faces.p50_p95[name]
    return f"{p50:,.1f} / {p95:,.1f}"


def first_page_verdicts(point: Checkpoint) -> list[str]:
    """Each face's first page against the 100 ms p95 target, at this checkpoint."""
    lines = []
    for name, (_, p95) in point.faces.p50_p95.items():
        if "first page" in name:
            verdict = "met" if p95 <= TARGET_MS else "missed"
            lines.append(f"- {name}: {p95:,.1f} ms p95, {verdict}")
    return lines


def write_scale(
    points: list[Checkpoint], setup: list[str], notes: list[str], path: Path = SCALE
) -> str:
    header = "| measure | " + " | ".join(f"{p.started:,} waiting" for p in points) + " |"
    rule = "| --- |" + " --- |" * len(points)
    table = [header, rule] + [
        f"| {name} | " + " | ".join(cells) + " |" for name, cells in _rows(points)
    ]
    last = points[-1]
    text = "\n".join(
        [
            "# Scale: thousands of live runs waiting for approval, one worker, the dev server",
            "",
            "Written by `python -m bench.scale` (`make bench-scale`); regenerate it rather than "
            "edit it.",
            "",
            *machine(),
            *setup,
            "",
            *table,
            "",
            f"First page against the target (≤ {TARGET_MS:.0f} ms p95), at "
            f"{last.started:,} waiting:",
            "",
            *first_page_verdicts(last),
            "",
            *notes,
            "",
            *READING,
            "",
        ]
    )
    path.write_text(text, encoding="utf-8")
    return text

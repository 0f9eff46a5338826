"""The figures of `python -m bench.runs`, side by side with their ratios:
`bench/results/RESULTS.md`."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.common.machine import machine
from bench.common.paths import RESULTS_DIR
from bench.runs.decision_phases import PHASES

RESULTS = RESULTS_DIR / "RESULTS.md"
# The baselines' names in the report, by the worker kind that runs them.
BASELINE_NAMES = {"raw": "raw", "minimal": "minimal"}
NOTES = [
    "Dev server: `temporal server start-dev` on its SQLite file (`signoff dev`). Every "
    "worker has the same capacity (workflow-task slots, cache, pollers, a thread per "
    "activity slot: "
    "`signoff/wiring/worker_capacity.py`), each in its own process.",
    "raw: `bench/runs/raw_refund.py`, a hand-written workflow that runs signoff's own "
    "activities with the same inputs, and waits for its decision until the approval's "
    "expiry (one timer); no status upserts and no deadline timer. signoff against it is "
    "the cost of signoff's engine code. Both run in the same sandbox "
    "(workflows/sandbox.py) with the same tracing: each run starts in its own trace, and "
    "every activity carries its trace header.",
    "minimal (`--baseline minimal`): `bench/runs/minimal_workflow.py` and "
    "`minimal_activities.py`, the same business by hand with activities of its own: four "
    "scripted model turns, read_ticket, get_order, the action's state, one `decide` "
    "Update (unsigned, checked against the pending hash), the refund on the same SQLite "
    "ledger with `sqlite3` (write lock, refunded total, idempotency key). No signed "
    "decisions, audit, exposure hold or limits: signoff against it is the cost of the "
    "design. Its worker imports nothing of signoff's activities or store.",
    "Every side waits for its pending action by a long-poll of the run's history (the "
    "expiry timer started after the action state was read), then reads the hash with one "
    "query. Decision accepted is the history's UPDATE_ACCEPTED event; the refund row's "
    "`created_at` is stamped as the row is inserted, in the refund's transaction (the "
    "minimal side commits next; signoff's first spends the approvals, releases the hold "
    "and appends its `executed` audit row, in the same commit); run closed is the close "
    "time the server recorded. The latencies come from the runs at concurrency 1.",
]


def percentile(samples: list[float], share: int) -> float:
    if len(samples) == 1:
        return samples[0]
    return statistics.quantiles(samples, n=100, method="inclusive")[share - 1]


@dataclass
class SideFigures:
    runs: int = 0
    busy_seconds: float = 0.0  # wall time of its batches, summed
    latencies: list[float] = field(default_factory=list)  # seconds, end to end
    cpu_seconds: float = 0.0  # of its worker process, during its batches
    decision_to_effect_ms: list[float] = field(default_factory=list)  # accepted → refund row
    decide_ms: list[float] = field(default_factory=list)  # the `decide` call, sent → returned
    decision_to_close_ms: list[float] = field(default_factory=list)  # accepted → run closed
    history_events: list[int] = field(default_factory=list)
    history_bytes: list[int] = field(default_factory=list)
    peak_rss_mib: float = 0.0
    event_types: Counter[str] = field(default_factory=Counter)  # of one run's history
    event_bytes: Counter[str] = field(default_factory=Counter)  # the same run, by event kind
    # The decision's phases (decision_phases.py), in ms, one sample per run at concurrency 1.
    decision_phases: dict[str, list[float]] = field(default_factory=dict)

    def rows(self) -> dict[str, float]:
        return {
            "runs/s": self.runs / self.busy_seconds,
            "end to end p50 (ms)": percentile(self.latencies, 50) * 1000,
            "end to end p95 (ms)": percentile(self.latencies, 95) * 1000,
            "decision accepted → refund row p50 (ms)": percentile(self.decision_to_effect_ms, 50),
            "decision accepted → refund row p95 (ms)": percentile(self.decision_to_effect_ms, 95),
            "`decide` call p50 (ms)": percentile(self.decide_ms, 50),
            "decision accepted → run closed p50 (ms)": percentile(self.decision_to_close_ms, 50),
            "worker CPU per run (ms)": self.cpu_seconds / self.runs * 1000,
            "worker peak RSS (MiB)": self.peak_rss_mib,
            "history events per run": statistics.mean(self.history_events),
            "history KB per run": statistics.mean(self.history_bytes) / 1000,
        }


def header(first: str, names: list[str], against: str) -> list[str]:
    """A table's head: `first`, signoff, each baseline, then signoff `against` each."""
    columns = [first, "signoff", *names, *(f"signoff {against} {name}" for name in names)]
    return ["| " + " | ".join(columns) + " |", "| --- " * len(columns) + "|"]


def table(signoff: SideFigures, baselines: dict[str, SideFigures]) -> list[str]:
    """One row per measure: signoff, each baseline, and signoff's ratio to each."""
    names = list(baselines)
    lines = header("measure", names, "/")
    base_rows = {name: figures.rows() for name, figures in baselines.items()}
    for measure, value in signoff.rows().items():
        bases = [base_rows[name][measure] for name in names]
        ratios = [f"{value / base:.2f}×" if base else "-" for base in bases]
        cells = [f"{value:,.1f}", *(f"{base:,.1f}" for base in bases), *ratios]
        lines.append(f"| {measure} | " + " | ".join(cells) + " |")
    ours = statistics.mean(signoff.history_events)
    for name, figures in baselines.items():
        extra = ours - statistics.mean(figures.history_events)
        lines.append(
            f"| history events, signoff − {name} | {extra:+.0f} |" + " |" * (2 * len(names))
        )
    return lines


def phases_table(signoff: SideFigures, baselines: dict[str, SideFigures]) -> list[str]:
    """Where a decision's time goes: each phase's p50 on every side, and how much longer
    signoff's is (milliseconds add up where ratios do not). Empty without samples."""
    sides = {"signoff": signoff, **baselines}
    if not all(figures.decision_phases for figures in sides.values()):
        return []
    names = list(baselines)
    lines = [
        "## Where a decision's time goes",
        "",
        "Each phase's p50 (ms) at concurrency 1, from the history's event times and the "
        "bench's clock around the `decide` call (bench/runs/decision_phases.py). "
        "`decide` is about the first three phases; decision accepted → refund row the last two.",
        "",
        *header("phase", names, "−"),
    ]
    for phase in PHASES:
        ours = percentile(signoff.decision_phases[phase], 50)
        theirs = [percentile(figures.decision_phases[phase], 50) for figures in baselines.values()]
        cells = [f"{ours:,.1f}", *(f"{value:,.1f}" for value in theirs)]
        cells += [f"{ours - value:+,.1f}" for value in theirs]
        lines.append(f"| {phase} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def event_types(signoff: SideFigures, raw: SideFigures) -> list[str]:
    """Where the extra events are: the types whose counts differ, in one run of each."""
    lines = [
        "History events by type, one run of each side, where they differ:",
        "",
        "| event type | signoff | baseline | difference |",
        "| --- | --- | --- | --- |",
    ]
    for name in sorted(set(signoff.event_types) | set(raw.event_types)):
        ours, theirs = signoff.event_types[name], raw.event_types[name]
        if ours != theirs:
            short = name.removeprefix("EVENT_TYPE_")
            lines.append(f"| {short} | {ours} | {theirs} | {ours - theirs:+d} |")
    return lines


# A difference in bytes below this, for one kind of event, is not worth a line.
BYTES_WORTH_A_LINE = 50


def event_bytes(signoff: SideFigures, raw: SideFigures) -> list[str]:
    """Where the extra bytes are: each kind of event (an activity's scheduling by the
    activity's name) whose bytes differ, in the same run of each side."""
    lines = [
        "History bytes by kind of event, the same runs, where they differ by "
        f"{BYTES_WORTH_A_LINE} B or more:",
        "",
        "| event | signoff (B) | baseline (B) | difference (B) |",
        "| --- | --- | --- | --- |",
    ]
    kinds = set(signoff.event_bytes) | set(raw.event_bytes)
    for name in sorted(kinds, key=lambda k: raw.event_bytes[k] - signoff.event_bytes[k]):
        ours, theirs = signoff.event_bytes[name], raw.event_bytes[name]
        if abs(ours - theirs) >= BYTES_WORTH_A_LINE:
            lines.append(f"| {name} | {ours:,} | {theirs:,} | {ours - theirs:+,} |")
    return lines


def write_results(
    signoff: SideFigures,
    baselines: dict[str, SideFigures],
    settings_line: str,
    notes: list[str],
    path: Path = RESULTS,
) -> str:
    """The report, one table of every measure, then where each baseline's history
    differs from signoff's."""
    differences: list[str] = []
    for name, figures in baselines.items():
        differences += [f"## signoff against the {name} baseline", ""]
        differences += [*event_types(signoff, figures), "", *event_bytes(signoff, figures), ""]
    text = "\n".join(
        [
            "# Run benchmark: signoff's refund run against raw Temporal workflows",
            "",
            "Written by `python -m bench.runs` (`make bench-runs`); regenerate it rather than "
            "edit it.",
            "",
            *machine(),
            f"- {settings_line}",
            "",
            *table(signoff, baselines),
            "",
            *phases_table(signoff, baselines),
            *differences,
            *notes,
            "",
        ]
    )
    path.write_text(text, encoding="utf-8")
    return text

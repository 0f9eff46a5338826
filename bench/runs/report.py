"""The figures of `python -m bench.runs`, side by side with their ratios:
`bench/results/RESULTS.md`."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.common.machine import machine
from bench.common.paths import RESULTS_DIR

RESULTS = RESULTS_DIR / "RESULTS.md"


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
    decision_to_effect_ms: list[float] = field(default_factory=list)
    history_events: list[int] = field(default_factory=list)
    history_bytes: list[int] = field(default_factory=list)
    peak_rss_mib: float = 0.0
    event_types: Counter[str] = field(default_factory=Counter)  # of one run's history
    event_bytes: Counter[str] = field(default_factory=Counter)  # the same run, by event kind

    def rows(self) -> dict[str, float]:
        return {
            "runs/s": self.runs / self.busy_seconds,
            "end to end p50 (ms)": percentile(self.latencies, 50) * 1000,
            "end to end p95 (ms)": percentile(self.latencies, 95) * 1000,
            "decision→effect p50 (ms)": percentile(self.decision_to_effect_ms, 50),
            "decision→effect p95 (ms)": percentile(self.decision_to_effect_ms, 95),
            "worker CPU per run (ms)": self.cpu_seconds / self.runs * 1000,
            "worker peak RSS (MiB)": self.peak_rss_mib,
            "history events per run": statistics.mean(self.history_events),
            "history KB per run": statistics.mean(self.history_bytes) / 1000,
        }


def table(signoff: SideFigures, raw: SideFigures) -> list[str]:
    lines = ["| measure | signoff | raw Temporal | signoff / raw |", "| --- | --- | --- | --- |"]
    raw_rows = raw.rows()
    for name, value in signoff.rows().items():
        base = raw_rows[name]
        ratio = f"{value / base:.2f}×" if base else "-"
        lines.append(f"| {name} | {value:,.1f} | {base:,.1f} | {ratio} |")
    events = statistics.mean(signoff.history_events) - statistics.mean(raw.history_events)
    lines.append(f"| history events, signoff − raw | {events:+.0f} | | |")
    return lines


def event_types(signoff: SideFigures, raw: SideFigures) -> list[str]:
    """Where the extra events are: the types whose counts differ, in one run of each."""
    lines = [
        "History events by type, one run of each side, where they differ:",
        "",
        "| event type | signoff | raw | difference |",
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
        "| event | signoff (B) | raw (B) | difference (B) |",
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
    raw: SideFigures,
    settings_line: str,
    notes: list[str],
    path: Path = RESULTS,
) -> str:
    text = "\n".join(
        [
            "# Run benchmark: signoff's refund run against a raw Temporal workflow",
            "",
            "Written by `python -m bench.runs` (`make bench-runs`); regenerate it rather than "
            "edit it.",
            "",
            *machine(),
            f"- {settings_line}",
            "",
            *table(signoff, raw),
            "",
            *event_types(signoff, raw),
            "",
            *event_bytes(signoff, raw),
            "",
            *notes,
            "",
        ]
    )
    path.write_text(text, encoding="utf-8")
    return text

"""bench/runs/report.py's arithmetic: each measure of a side, and signoff's ratio to each
baseline, from figures given here (no run, no timing)."""

from __future__ import annotations

from bench.runs.report import SideFigures, table


def side(
    runs: int, busy: float, cpu: float, events: list[int], decide_ms: list[float]
) -> SideFigures:
    return SideFigures(
        runs=runs,
        busy_seconds=busy,
        latencies=[1.0, 2.0, 3.0],
        cpu_seconds=cpu,
        decision_to_effect_ms=[10.0, 20.0, 30.0],
        decide_ms=decide_ms,
        decision_to_close_ms=[40.0, 50.0, 60.0],
        history_events=events,
        history_bytes=[30_000, 40_000],
        peak_rss_mib=100.0,
    )


def test_a_side_reports_runs_per_second_cpu_per_run_and_medians() -> None:
    rows = side(runs=20, busy=4.0, cpu=2.0, events=[80, 90], decide_ms=[5.0, 9.0, 7.0]).rows()

    assert rows["runs/s"] == 5.0
    assert rows["worker CPU per run (ms)"] == 100.0
    assert rows["history events per run"] == 85
    assert rows["history KB per run"] == 35.0
    assert rows["`decide` call p50 (ms)"] == 7.0
    assert rows["decision accepted → refund row p50 (ms)"] == 20.0
    assert rows["decision accepted → run closed p50 (ms)"] == 50.0
    assert rows["end to end p50 (ms)"] == 2000.0


def test_the_table_gives_signoffs_ratio_to_each_baseline_and_the_extra_events() -> None:
    signoff = side(runs=10, busy=5.0, cpu=3.0, events=[88, 88], decide_ms=[90.0])
    raw = side(runs=10, busy=4.0, cpu=2.0, events=[84, 84], decide_ms=[45.0])
    minimal = side(runs=10, busy=2.0, cpu=1.0, events=[59, 59], decide_ms=[18.0])

    lines = table(signoff, {"raw": raw, "minimal": minimal})

    assert lines[0] == "| measure | signoff | raw | minimal | signoff / raw | signoff / minimal |"
    (runs,) = [line for line in lines if line.startswith("| runs/s |")]
    assert runs == "| runs/s | 2.0 | 2.5 | 5.0 | 0.80× | 0.40× |"
    (decide,) = [line for line in lines if line.startswith("| `decide` call p50")]
    assert decide.endswith("| 90.0 | 45.0 | 18.0 | 2.00× | 5.00× |")
    assert "| history events, signoff − raw | +4 |" in "\n".join(lines)
    assert "| history events, signoff − minimal | +29 |" in "\n".join(lines)

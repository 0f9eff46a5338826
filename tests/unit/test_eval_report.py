"""The eval's report: pass rates per scenario and invariant over `--repeat` attempts,
the table (with the evidence of each failure) and the JSON."""

from __future__ import annotations

from signoff.cli.commands_eval import table
from signoff.service.evals.facts import Check
from signoff.service.evals.report import as_json, pass_rates
from signoff.service.evals.runner import AttemptResult


def attempt(number: int, *, refunded_ok: bool, error: str | None = None) -> AttemptResult:
    checks = [
        Check("outcome", True, "completed/answered"),
        Check("refunded", refunded_ok, "0.00 refunded; expected 10.00"),
    ]
    return AttemptResult(
        "s", "evals/s.yaml", number, f"run-{number}", [] if error else checks, error
    )


def test_pass_rates_count_each_attempt_once_per_invariant() -> None:
    results = [
        attempt(1, refunded_ok=True),
        attempt(2, refunded_ok=False),
        attempt(3, refunded_ok=True, error="boom"),
    ]
    rates = pass_rates(results)["s"]
    assert rates["run"] == (2, 3)
    assert rates["outcome"] == (2, 2)
    assert rates["refunded"] == (1, 2)
    document = as_json(results)
    assert document["passed"] is False and document["failed_attempts"] == 2
    assert document["scenarios"][0]["pass_rate"]["refunded"] == 0.5


def test_the_table_shows_rates_and_the_evidence_of_failures() -> None:
    lines = table([attempt(1, refunded_ok=True), attempt(2, refunded_ok=False)], repeat=2)
    header, row = lines[0].split(), lines[1].split()
    assert row[0] == "s"
    assert row[header.index("refunded")] == "1/2"
    assert row[header.index("outcome")] == "2/2"
    assert "  s (attempt 2, run run-2): FAIL refunded: 0.00 refunded; expected 10.00" in lines
    assert not any("attempt 1" in line for line in lines)
    assert lines[-1] == "1/2 attempts passed every invariant"


def test_every_check_evidence_on_request() -> None:
    lines = table([attempt(1, refunded_ok=True)], repeat=1, every_check=True)
    assert "  s (attempt 1, run run-1): outcome: completed/answered" in lines


def test_one_attempt_reads_pass_or_fail() -> None:
    lines = table([attempt(1, refunded_ok=False)], repeat=1)
    header, row = lines[0].split(), lines[1].split()
    assert row[header.index("refunded")] == "FAIL"
    assert row[header.index("outcome")] == "pass"

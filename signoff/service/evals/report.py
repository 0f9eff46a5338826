"""The eval's results, as every face shows them: per scenario and invariant, the pass
rate over the attempts (`--repeat`), and the evidence of each attempt."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from signoff.service.evals.invariants import INVARIANT_NAMES
from signoff.service.evals.runner import AttemptResult

RUN_ERROR = "run"


def pass_rates(results: list[AttemptResult]) -> dict[str, dict[str, tuple[int, int]]]:
    """scenario -> invariant -> (passed, attempts). An attempt that could not be judged
    counts as failed under `run`, and under no invariant."""
    rates: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for result in results:
        row = rates[result.scenario]
        row[RUN_ERROR][1] += 1
        if result.error is None:
            row[RUN_ERROR][0] += 1
        for check in result.checks:
            row[check.invariant][1] += 1
            row[check.invariant][0] += int(check.passed)
    return {
        scenario: {name: (counts[0], counts[1]) for name, counts in row.items()}
        for scenario, row in rates.items()
    }


def columns() -> list[str]:
    return [RUN_ERROR, *INVARIANT_NAMES]


def as_json(results: list[AttemptResult]) -> dict[str, Any]:
    rates = pass_rates(results)
    return {
        "passed": all(result.passed for result in results),
        "attempts": len(results),
        "failed_attempts": sum(not result.passed for result in results),
        "scenarios": [
            {
                "scenario": scenario,
                "pass_rate": {name: passed / attempts for name, (passed, attempts) in row.items()},
                "attempts": [
                    {
                        "attempt": result.attempt,
                        "path": result.path,
                        "run_id": result.run_id,
                        "passed": result.passed,
                        "error": result.error,
                        "checks": [
                            {
                                "invariant": check.invariant,
                                "passed": check.passed,
                                "evidence": check.evidence,
                            }
                            for check in result.checks
                        ],
                    }
                    for result in sorted(results, key=lambda r: r.attempt)
                    if result.scenario == scenario
                ],
            }
            for scenario, row in sorted(rates.items())
        ],
    }

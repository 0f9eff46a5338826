"""Scenario evals: scenario files, the runner, the trajectory invariants, the report."""

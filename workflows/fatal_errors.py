"""The error types a run's retry policies name as fatal, or none in a compact history.

Every fatal error our activities raise says so itself: the model adapters, the scripted
model, the store's refund and audit activities raise `ApplicationError(...,
non_retryable=True)`, each tested where it is raised (tests/unit/test_anthropic_adapter.py,
tests/openai/, tests/unit/test_scripted_model.py, tests/store/). Naming the same types
again in a retry policy repeats them in every scheduling event of the history: about
130 bytes per model turn, 650 per refund run (issue 13's history bytes).

A run with a compact history (`RunRequest.history`) leaves the list out and relies on the
error's own flag. A run recorded before keeps its list, as its history says; Temporal
does not compare retry policies on replay, so either is replay-safe, but a run in flight
keeps the shape it started with.
"""

from __future__ import annotations

from workflows.version_gates import compact_history


def fatal_types(*types: str) -> list[str]:
    """`types` for a retry policy's `non_retryable_error_types`; empty in a compact run."""
    return [] if compact_history() else list(types)

"""Version gates with one marker per new run instead of one per gate.

Each change to what a workflow does went behind its own `workflow.patched(id)`, and a
run recorded every gate it passed as a marker event: seven in a refund run, each one
history event and bytes that the hand-written baseline does not pay (issue 13).

A run started on this code asks `lean-history` first, records that one marker, and
passes every gate in FOLDED without asking it: they all came before it. A run recorded
before has no such marker; it is asked each gate as before, so every old history
replays, and a run in flight when the code changed goes on the way it started (the
SDK memoizes `patched` per run: once `lean-history` said no, it says no to the end).

The same marker also turns on the leaner publishing in `run_outcome.py`: no search
attribute or memo upsert that would not change anything.

A gate added after this one must call `workflow.patched` itself, never `patched` here:
a run that already holds the `lean-history` marker did not know the new gate.

A run whose request asks for a compact history (`RunRequest.history`, set by the one
factory) records no marker at all: its input, which the history holds from its first
event, says which code it was started on, as a marker would. It passes lean-history and
every gate in FOLDED without asking.
"""

from __future__ import annotations

from temporalio import workflow

LEAN_HISTORY_PATCH = "lean-history"

# The gates that existed when lean-history came, by id (not imported: each module that
# defines one imports this module).
FOLDED = frozenset(
    {
        "handlers-finish-first",
        "tenant-attribute",
        "worker-limits",
        "signed-decisions",
        "four-eyes-exposure",
        "refund-outcome-unknown",
        "audit-store",
        "notify-reviewers",
        "inbox-memo",
        "run-memo",
        "triage-run-limits",
        "triage-reraise-cancel",
    }
)


def compact_history() -> bool:
    """Whether the running workflow's request asked for a compact history (AgentRun sets
    `compact_history` from its request before any gate is asked; triage has none)."""
    return bool(getattr(workflow.instance(), "compact_history", False))


def lean_history() -> bool:
    """Whether this run was started on code that records one marker for all gates, or
    none (a compact history).

    Ask it before any other gate in the run's first workflow task, so that its marker,
    when there is one, comes first."""
    return compact_history() or workflow.patched(LEAN_HISTORY_PATCH)


def patched(patch_id: str) -> bool:
    """`workflow.patched(patch_id)` for a gate in FOLDED; open without a marker of its
    own for a run that holds `lean-history`."""
    if patch_id not in FOLDED:
        raise ValueError(f"{patch_id!r} came after lean-history: call workflow.patched")
    return lean_history() or workflow.patched(patch_id)

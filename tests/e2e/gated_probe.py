"""A workflow behind a versioning gate, for tests/e2e/test_history_gates.py: it passes
`workflow.patched(PROBE_GATE)` (a marker in its history) and waits until told to end."""

from __future__ import annotations

from temporalio import workflow

PROBE_GATE = "probe-gate"


@workflow.defn(name="GatedProbe")
class GatedProbe:
    def __init__(self) -> None:
        self._done = False

    @workflow.run
    async def run(self) -> str:
        workflow.patched(PROBE_GATE)
        await workflow.wait_condition(lambda: self._done)
        return "done"

    @workflow.signal
    def finish(self) -> None:
        self._done = True

"""An approved action's effect, and who writes the approvals' audit rows.

Design note. An effect that writes the run's decision records itself (the refund's: the
approvals' rows, the nonces' claims, the ledger row and its `executed` row in one
transaction, `activities/store/effect_trail.py`) gets the records not yet in the audit:
decision to effect is one activity. When it says it wrote them, the trail marks them
written; when it did not (it refused before, or never answered), the run writes them
through `record_decision` as before. Any other effect gets its records written first,
so that the audit shows an approval before what it authorized.

This is workflow code: the hooks call the activities.
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.actions import Decision, PendingAction
    from workflows.audit_trail import TrailRecorder
    from workflows.gate_hooks import Effect, GateHooks


async def execute_with_trail(
    recorder: TrailRecorder, action: PendingAction, hooks: GateHooks, proofs: list[Decision]
) -> Effect | None:
    if not hooks.writes_trail:
        await recorder.flush()
        return await hooks.execute(action, proofs, [])
    end, trail = recorder.unwritten()
    effect = await hooks.execute(action, proofs, trail)
    if effect is not None and effect.trail_written:
        recorder.written(end)
    else:
        await recorder.flush()  # the effect did not write them: the run does
    return effect

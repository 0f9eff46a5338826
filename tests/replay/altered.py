"""Deliberately broken copies of the workflows, for tests/replay/test_replay_catches.py.

Each copy is registered under the real workflow type's name and differs from it by one
change a developer might make without a `workflow.patched` gate: two activities in the
other order, a durable timer dropped, a patch gate taken out. Recorded histories must
refuse every one of them; if one replayed, replay would not protect runs in flight.

The copies repeat the real method bodies line for line, apart from the one change
(marked CHANGED), so that nothing else can be what breaks the replay.
"""

from __future__ import annotations

import asyncio

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.agent_run import (
        HANDLERS_FINISH_PATCH,
        TENANT_ATTRIBUTE_PATCH,
        WORKER_LIMITS_PATCH,
        AgentRun,
    )
    from workflows.contracts import WORKFLOW_NAME, RunOutcome, RunRequest, ToolResult
    from workflows.run_budgets import RunEnded, held_to_worker_limits
    from workflows.run_outcome import RUN_MEMO_PATCH, publish_start, publish_tenant
    from workflows.tool_catalog import READ_TICKET
    from workflows.triage import READ_CALL_ID, TRIAGE_CANCEL_PATCH, TriageTicket
    from workflows.triage_contracts import TRIAGE_WORKFLOW_NAME, TriageOutcome, TriageRequest
    from workflows.version_gates import lean_history, patched


class _AgentRunCopy(AgentRun):
    """AgentRun.run as it is today, with two switches for the alterations below."""

    deadline_timer = True
    limits_gate = True

    async def run(self, request: RunRequest) -> RunOutcome:
        self._lean = lean_history()
        wait_for_handlers = patched(HANDLERS_FINISH_PATCH)
        if self._lean:
            publish_start(request.tenant_id)
            self._published_status = "running"
        else:
            self._set_status("running")
            if patched(TENANT_ATTRIBUTE_PATCH):
                publish_tenant(request.tenant_id)
        self._publish_memo(RUN_MEMO_PATCH)
        closing = False
        try:
            # CHANGED when limits_gate is off: the worker's limits read in every run,
            # old runs included, as if the gate had been deleted.
            if not self.limits_gate or patched(WORKER_LIMITS_PATCH):
                request = self._request = await held_to_worker_limits(self._request)
                self._gate.request = request
            remaining = (request.deadline - workflow.now()).total_seconds()
            if remaining <= 0:
                raise RunEnded("failed", "deadline_exceeded", "The deadline had passed.")
            if not self.deadline_timer:  # CHANGED: the deadline's durable timer is gone
                final_text = await self._loop()
            elif self.compact_history:
                final_text = await self._loop_until_deadline(remaining)
            else:
                final_text = await asyncio.wait_for(self._loop(), timeout=remaining)
            return self._finish("completed", "answered", "", final_text)
        except RunEnded as ended:
            return self._finish(ended.status, ended.reason, ended.detail)
        except TimeoutError:
            return self._finish(
                "failed",
                "deadline_exceeded",
                f"The run's deadline ({request.deadline.isoformat()}) passed before an answer.",
            )
        except asyncio.CancelledError:
            return self._finish("cancelled", "cancelled", "The run was cancelled on request.")
        except GeneratorExit:
            closing = True
            raise
        finally:
            if not closing:
                if wait_for_handlers:
                    await workflow.wait_condition(workflow.all_handlers_finished)
                await self._gate.recorder.flush()
                await self._gate.notices.drain()


@workflow.defn(name=WORKFLOW_NAME)
class AgentRunWithoutDeadlineTimer(_AgentRunCopy):
    deadline_timer = False

    @workflow.run
    async def run(self, request: RunRequest) -> RunOutcome:
        return await super().run(request)


@workflow.defn(name=WORKFLOW_NAME)
class AgentRunWithoutLimitsGate(_AgentRunCopy):
    limits_gate = False

    @workflow.run
    async def run(self, request: RunRequest) -> RunOutcome:
        return await super().run(request)


@workflow.defn(name=WORKFLOW_NAME)
class AgentRunUnchanged(_AgentRunCopy):
    """The copy with no change: it must replay everything, or the copy itself is wrong."""

    @workflow.run
    async def run(self, request: RunRequest) -> RunOutcome:
        return await super().run(request)


@workflow.defn(name=TRIAGE_WORKFLOW_NAME)
class TriageClassifiesBeforeReading(TriageTicket):
    """TriageTicket with its first two activities swapped: the model, then read_ticket."""

    @workflow.run
    async def run(self, request: TriageRequest) -> TriageOutcome:
        self._request = request
        self._reraise_cancel = patched(TRIAGE_CANCEL_PATCH)
        # CHANGED: the classification is asked before the ticket is read.
        reply = await self._classify(ToolResult(tool_use_id=READ_CALL_ID, content=""))
        ticket = await self._tool(READ_TICKET.name, READ_CALL_ID)
        if ticket.is_error:
            return self._outcome("failed", detail=f"The ticket could not be read: {ticket.content}")
        return self._outcome("failed", reply=reply, detail="altered copy: stops here")

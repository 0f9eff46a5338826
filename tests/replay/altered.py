"""Deliberately broken copies of the workflows, for tests/replay/test_replay_catches.py.

Each copy is registered under the real workflow type's name and differs from it by one
change a developer might make without recording the histories again (or, from the first
release, without a `workflow.patched` gate): two activities in the other order, a
durable timer dropped, a (local) activity taken out. Recorded histories must
refuse every one of them; if one replayed, replay would not protect runs in flight.

The copies repeat the real method bodies line for line, apart from the one change
(marked CHANGED), so that nothing else can be what breaks the replay.
"""

from __future__ import annotations

import asyncio

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.actions import Decision, DecisionResult
    from workflows.agent_run import AgentRun
    from workflows.contracts import WORKFLOW_NAME, RunOutcome, RunRequest, ToolResult
    from workflows.decision_update import decision_event
    from workflows.run_budgets import RunEnded
    from workflows.run_outcome import publish_start
    from workflows.tool_catalog import READ_TICKET
    from workflows.triage import READ_CALL_ID, TriageTicket
    from workflows.triage_contracts import TRIAGE_WORKFLOW_NAME, TriageOutcome, TriageRequest


class _AgentRunCopy(AgentRun):
    """AgentRun.run as it is today, with a switch for the timer's alteration below."""

    deadline_timer = True

    async def run(self, request: RunRequest) -> RunOutcome:
        publish_start(request.tenant_id)
        self._published_status = "running"
        closing = False
        try:
            remaining = (request.deadline - workflow.now()).total_seconds()
            if remaining <= 0:
                raise RunEnded("failed", "deadline_exceeded", "The deadline had passed.")
            await self._offer_mcp_tools()
            remaining = (request.deadline - workflow.now()).total_seconds()
            if not self.deadline_timer:  # CHANGED: the deadline's durable timer is gone
                final_text = await self._loop()
            else:
                final_text = await self._deadline.run(self._loop(), remaining)
            return self._finish("completed", "answered", "", final_text)
        except RunEnded as ended:
            return self._finish(ended.status, ended.reason, ended.detail)
        except TimeoutError:
            deadline = self._request.deadline.isoformat()
            return self._finish(
                "failed",
                "deadline_exceeded",
                f"The run's deadline ({deadline}) passed before an answer.",
            )
        except asyncio.CancelledError:
            return self._finish("cancelled", "cancelled", "The run was cancelled on request.")
        except GeneratorExit:
            closing = True
            raise
        finally:
            if not closing:
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
class AgentRunWithoutDecisionCheck(_AgentRunCopy):
    """AgentRun with `decide` as it is today, but for the store's check."""

    @workflow.run
    async def run(self, request: RunRequest) -> RunOutcome:
        return await super().run(request)

    @workflow.update
    async def decide(self, decision: Decision) -> DecisionResult:
        # CHANGED: the store's check (`verified`: the verify_decision local activity) is
        # gone, as if the step had been deleted.
        result = self._gate.decide(decision)
        self._books.event("approval", decision_event(decision, result))
        return result

    @decide.validator
    def _validate_decide(self, decision: Decision) -> None:
        AgentRun._validate_decide(self, decision)


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
        # CHANGED: the classification is asked before the ticket is read.
        reply = await self._classify(ToolResult(tool_use_id=READ_CALL_ID, content=""))
        ticket = await self._tool(READ_TICKET.name, READ_CALL_ID)
        if ticket.is_error:
            return self._outcome("failed", detail=f"The ticket could not be read: {ticket.content}")
        return self._outcome("failed", reply=reply, detail="altered copy: stops here")

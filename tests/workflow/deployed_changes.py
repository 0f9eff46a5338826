"""AgentRun as a later deploy might change it, for tests/workflow/test_deploy_across_wait.py.

Both copies add one durable step (a one-second timer) before everything the run does,
under the real workflow type's name. `AgentRunWithGatedChange` puts it behind
`workflow.patched(DEPLOY_GATE)`, as the versioning policy asks from the first release
on; `AgentRunWithUngatedChange` does not. A run started on today's code and replayed by
either must take the path it recorded.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.agent_run import AgentRun
    from workflows.contracts import WORKFLOW_NAME, RunOutcome, RunRequest

DEPLOY_GATE = "deploy-probe-pause"
PAUSE = timedelta(seconds=1)


@workflow.defn(name=WORKFLOW_NAME)
class AgentRunWithGatedChange(AgentRun):
    @workflow.run
    async def run(self, request: RunRequest) -> RunOutcome:
        if workflow.patched(DEPLOY_GATE):
            await workflow.sleep(PAUSE)
        return await super().run(request)


@workflow.defn(name=WORKFLOW_NAME)
class AgentRunWithUngatedChange(AgentRun):
    @workflow.run
    async def run(self, request: RunRequest) -> RunOutcome:
        await workflow.sleep(PAUSE)  # CHANGED without a gate
        return await super().run(request)

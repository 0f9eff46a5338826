"""The scenario's reviewers, and its decision faults, acting on a live run.

Every decision goes through the real `decide` service: signed with the deployment's
decision key, sent as the `decide` update, checked by the run's validator and the
worker's verifier. A fault is a decision a real party could send: a reviewer of another
tenant, or an approval for a hash that is no longer the one pending. Nothing here
touches the workflow or the store: what the run accepts is its own business.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from temporalio.client import Client
from temporalio.service import RPCError

from signoff.config.decision_signatures import DecisionSigner
from signoff.service.decisions import (
    Choice,
    Decider,
    DecisionNotAccepted,
    DecisionUnavailable,
    InvalidDecision,
    signed_decision,
)
from signoff.service.evals.scenario import CrossTenantApproval, Scenario, StaleApproval
from signoff.service.evals.setup import Attempt
from signoff.service.handles import Runs
from signoff.service.pending import send_decision
from signoff.service.run_watch import history_batches, watch_run
from workflows.actions import Decision, Verdict
from workflows.agent_run import AgentRun
from workflows.contracts import RunState

FINAL = ("completed", "failed", "cancelled")


@dataclass(frozen=True)
class SentDecision:
    action_hash: str
    reviewer_id: str
    tenant_id: str
    verdict: Verdict
    source: Literal["reviewer", "fault"]
    accepted: bool
    answer: str


@dataclass
class Reviewing:
    """What the reviewers did to one run, for the invariants."""

    sent: list[SentDecision] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)  # pending action hashes, in order
    last_signed: Decision | None = None


@dataclass(frozen=True)
class Reviewers:
    client: Client
    signer: DecisionSigner
    scenario: Scenario
    attempt: Attempt
    roles: dict[tuple[str, str], tuple[str, ...]]  # (tenant name, reviewer name) -> roles

    def decider(self, tenant: str, reviewer: str, claimed_tenant: str | None = None) -> Decider:
        return Decider(
            reviewer_id=self.attempt.reviewer(reviewer),
            tenant_id=self.attempt.tenant(claimed_tenant or tenant),
            roles=self.roles[(tenant, reviewer)],
        )

    async def until_final(self, run_id: str) -> Reviewing:
        """Act on every new pending action until the run ends.

        The run's state is read when its history says it may have changed (the run
        page's watcher, signoff/service/run_watch.py), not on a timer: a scenario whose
        approval is left to expire waits a minute, and asking its state every 0.3 s
        meanwhile made the worker answer 200 queries for nothing."""
        handle = self.client.get_workflow_handle_for(AgentRun.run, run_id)
        reviewing = Reviewing()

        async def read_state() -> RunState:
            return await handle.query(AgentRun.state)

        batches = history_batches(self.client.workflow_service, self.client.namespace, run_id)
        async for change in watch_run(batches, read_state):
            state = change.state
            if state is None:
                continue  # the long poll expired with nothing new
            if state.status in FINAL:
                return reviewing
            for action in state.pending_actions:
                if action.action_hash not in reviewing.seen:
                    await self.act(run_id, action.action_hash, reviewing)
                    reviewing.seen.append(action.action_hash)
        return reviewing

    async def act(self, run_id: str, action_hash: str, reviewing: Reviewing) -> None:
        await self.fault(run_id, action_hash, reviewing)
        run_tenant = self.scenario.run.tenant
        for step in self.scenario.reviewers:
            decider = self.decider(run_tenant, step.reviewer)
            reason = step.reason or f"scenario reviewer: {step.verdict}"
            await self.send(
                run_id, decider, action_hash, step.verdict, reason, "reviewer", reviewing
            )

    async def fault(self, run_id: str, action_hash: str, reviewing: Reviewing) -> None:
        fault, run_tenant = self.scenario.fault, self.scenario.run.tenant
        if isinstance(fault, CrossTenantApproval):
            # Signed for its own tenant, then claiming the run's: both must be refused.
            for claimed in (fault.tenant, run_tenant):
                decider = self.decider(fault.tenant, fault.reviewer, claimed)
                await self.send(
                    run_id, decider, action_hash, "approve", "fault", "fault", reviewing
                )
        elif isinstance(fault, StaleApproval) and reviewing.seen:
            decider = self.decider(run_tenant, fault.reviewer)
            stale = reviewing.seen[-1]
            await self.send(run_id, decider, stale, "approve", "stale", "fault", reviewing)
            if reviewing.last_signed is not None:
                await self.replay(run_id, reviewing.last_signed, reviewing)

    async def send(
        self,
        run_id: str,
        decider: Decider,
        action_hash: str,
        verdict: Verdict,
        reason: str,
        source: Literal["reviewer", "fault"],
        reviewing: Reviewing,
    ) -> None:
        # `decide` in two steps, so that the decision sent is the one a replay resends.
        try:
            # A scenario's rejection names no category: it is `other`.
            choice = Choice(category="other") if verdict == "reject" else None
            decision = signed_decision(
                self.signer, run_id, decider, action_hash, verdict, reason, choice=choice
            )
            result = await send_decision(Runs(self.client), run_id, decision)
            accepted, answer = True, f"{result.status}: {result.message}"
        except (DecisionNotAccepted, InvalidDecision) as refused:
            accepted, answer = False, str(refused)
        except RPCError:
            accepted, answer = False, str(DecisionUnavailable())
        else:
            if source == "reviewer":
                reviewing.last_signed = decision
        reviewing.sent.append(
            SentDecision(
                action_hash,
                decider.reviewer_id,
                decider.tenant_id,
                verdict,
                source,
                accepted,
                answer,
            )
        )

    async def replay(self, run_id: str, decision: Decision, reviewing: Reviewing) -> None:
        """The same signed decision again, nonce and all."""
        try:
            await send_decision(Runs(self.client), run_id, decision)
            accepted, answer = True, "accepted"
        except DecisionNotAccepted as refused:
            accepted, answer = False, str(refused)
        reviewing.sent.append(
            SentDecision(
                decision.action_hash,
                decision.reviewer_id,
                decision.tenant_id,
                decision.verdict,
                "fault",
                accepted,
                f"replayed verbatim: {answer}",
            )
        )

"""What an invariant may read about one attempt, and what it returns."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from activities.store.eval_fixtures import FixtureTenant
from signoff.service.evals.reviewers import Reviewing
from signoff.service.evals.scenario import Scenario
from signoff.service.evals.setup import Attempt
from signoff.service.evals.trajectory import Trajectory

CENTS = Decimal("0.01")


@dataclass(frozen=True)
class Check:
    invariant: str
    passed: bool
    evidence: str


@dataclass(frozen=True)
class Facts:
    """Everything an invariant may read."""

    scenario: Scenario
    attempt: Attempt
    tenants: list[FixtureTenant]
    trajectory: Trajectory
    reviewing: Reviewing
    # How the reconcile service settled the run's unknown actions, in words.
    reconciled: tuple[str, ...] = ()

    @property
    def tenant_id(self) -> str:
        return self.attempt.tenant(self.scenario.run.tenant)

    @property
    def run_tenant(self) -> FixtureTenant:
        return next(tenant for tenant in self.tenants if tenant.id == self.tenant_id)

    @property
    def order_id(self) -> str | None:
        ticket = next(t for t in self.run_tenant.tickets if t.id == self.scenario.run.ticket)
        return ticket.order_id

    @property
    def run_refunds(self) -> list[tuple[str, str, int, str, tuple[str, ...]]]:
        return [
            (line.tenant_id, line.order_id, line.amount_minor, line.action_hash, line.approvers)
            for line in self.trajectory.ledger
            if line.run_id == self.trajectory.run_id
        ]


def money(minor: int) -> str:
    return str((Decimal(minor) / 100).quantize(CENTS))

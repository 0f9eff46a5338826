"""When an approval needs the reviewer's passkey: the policy's threshold, per tool and tenant.

Design note. Two places say it, and the stricter wins: a tool's `passkey_above` in the
profile (every agent of the profiles that offers the tool; the lowest applies, as the
effect takes the strictest policy of any agent), and the tenant's amount in
SIGNOFF_PASSKEY_ABOVE, for every tool of that tenant. Both are read from the host's own
files and environment, never from the store or the command: a DBA cannot lower them.
The decision service and the effect build the same policy from the same profiles and
settings, so the page asks for a passkey exactly where the effect will demand one.

The amount is the action's exposure (`workflows/exposure.py`: the argument its tool's
policy declares as money), never an argument read by its name. An action without one
(a tool that declares no money) cannot be measured, so under a threshold it always
needs the passkey: fail closed. Only approvals need it: a rejection makes nothing happen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from workflows.actions import PendingAction, Verdict
from workflows.approval_policy import to_minor
from workflows.effect_requirements import tool_policies
from workflows.mcp_tools import offered_name
from workflows.profile_contracts import ProfileSet


@dataclass(frozen=True)
class PasskeyPolicy:
    """Thresholds in minor units: per tool (from the profiles), per tenant (settings)."""

    tool_above_minor: Mapping[str, int] = field(default_factory=dict)
    tenant_above_minor: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, profiles: ProfileSet | None, tenant_above: Mapping[str, Decimal]) -> PasskeyPolicy:
        tools: dict[str, int] = {}
        if profiles is not None:
            offered = {tool for agent in profiles.agents.values() for tool in agent.tools}
            offered |= {
                offered_name(server, tool)
                for agent in profiles.agents.values()
                for server, declared in agent.mcp_servers.items()
                for tool in declared.tools
            }
            for tool in sorted(offered):
                limits = [
                    to_minor(policy.passkey_above)
                    for _, policy in tool_policies(profiles, tool)
                    if policy.passkey_above is not None
                ]
                if limits:
                    tools[tool] = min(limits)
        tenants = {tenant: to_minor(amount) for tenant, amount in tenant_above.items()}
        return cls(tools, tenants)

    def threshold_minor(self, tool: str, tenant_id: str) -> int | None:
        """The amount above which an approval needs a passkey; None: never."""
        limits = [
            limit
            for limit in (self.tool_above_minor.get(tool), self.tenant_above_minor.get(tenant_id))
            if limit is not None
        ]
        return min(limits) if limits else None

    def needs_passkey(self, action: PendingAction, verdict: Verdict = "approve") -> bool:
        if verdict != "approve":
            return False
        threshold = self.threshold_minor(action.tool, action.targets.get("tenant_id", ""))
        if threshold is None:
            return False
        exposure = action.exposure
        return exposure is None or exposure.amount_minor > threshold


NO_PASSKEY_POLICY = PasskeyPolicy()

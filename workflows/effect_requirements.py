"""What an irreversible tool's effect demands, judged from the worker's own profiles.

The effect cannot take the command's word for its policy: anyone who reaches the task
queue writes the command. So it reads the policy of the tool in every agent of the
profiles its worker loaded, and demands what the strictest of them demands: a tool no
agent offers, or one any agent denies, is refused; each agent that asks for approval
needs as many signed approvals (one for `confirm`; for `review` two, or the policy's
N) from different reviewers holding one of the roles it names; one of them from its
`one_from` role; or, for a chain, the i-th signer holding the chain's i-th role and
signing no earlier than the one before. Only when every agent that offers the tool
lets it run `auto` does it run without a proof.

Pure: the effect activity calls it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType

from workflows.approval_policy import to_minor
from workflows.mcp_tools import McpServer, split_offered_name
from workflows.profile_contracts import ProfileSet
from workflows.tool_policy import ToolPolicy

REQUIRED_APPROVALS: Mapping[str, int] = MappingProxyType({"confirm": 1, "review": 2})


@dataclass(frozen=True)
class Requirement:
    """`approvals` different reviewers, each holding one of `roles`; one of them
    holding `one_from`; or each in turn the role of its `chain` step."""

    approvals: int
    roles: tuple[str, ...]
    one_from: str | None = None
    chain: tuple[str, ...] = ()


@dataclass(frozen=True)
class Signer:
    """An approver as the effect counts them: the roles the store holds now, and when
    their signed approval was issued."""

    reviewer_id: str
    roles: tuple[str, ...]
    issued_at: datetime | None


def unmet(needed: Requirement, signers: list[Signer]) -> str | None:
    """None when `signers` (different reviewers, in the order they approved) meet
    `needed`; else what is missing, in a sentence."""
    holding = [s for s in signers if set(s.roles) & set(needed.roles)]
    roles = " or ".join(needed.roles)
    if len(holding) < needed.approvals:
        return (
            f"needs {needed.approvals} approval(s) from different reviewers with the {roles} "
            f"role; {len(holding)} given"
        )
    if needed.one_from is not None and not any(needed.one_from in s.roles for s in holding):
        return f"needs one of its approvals from a reviewer with the {needed.one_from} role"
    for step, role in enumerate(needed.chain):
        signer = signers[step] if step < len(signers) else None
        if signer is None or role not in signer.roles:
            return (
                f"needs its approvals in order ({', then '.join(needed.chain)}); approval "
                f"{step + 1} is not from a reviewer with the {role} role"
            )
        before = signers[step - 1].issued_at if step else None
        if before is not None and signer.issued_at is not None and signer.issued_at < before:
            return (
                f"needs its approvals in order ({', then '.join(needed.chain)}); approval "
                f"{step + 1} was signed before approval {step}"
            )
    return None


def policy_requirement(policy: ToolPolicy) -> Requirement | None:
    """What one agent's policy demands of an effect; None for `auto`."""
    approvals = REQUIRED_APPROVALS.get(policy.approval)
    if approvals is None:
        return None
    if policy.approval == "review":
        approvals = max(approvals, policy.approvals_needed())
    return Requirement(approvals, policy.deciding_roles(), policy.one_from, tuple(policy.chain))


@dataclass(frozen=True)
class Requirements:
    needed: tuple[Requirement, ...] = ()
    # Why the tool may not run at all on this worker; "" when it may.
    refusal: str = ""
    # The lowest `four_eyes_above` of the agents that offer the tool (minor units), or
    # None: above it, a `confirm` needs a second reviewer (`judged_threshold`).
    four_eyes_above_minor: int | None = None


def judged_threshold(tenant_threshold_minor: int, requirements: Requirements | None) -> int:
    """The exposure above which a refund needs two reviewers: the tenant's threshold, or
    the worker's profiles' `four_eyes_above` where it is lower. The state a refund is
    proposed on carries it, and the effect reads the same again, so both sides judge on
    one number and the state's hash binds it."""
    cap = None if requirements is None else requirements.four_eyes_above_minor
    return tenant_threshold_minor if cap is None else min(tenant_threshold_minor, cap)


def tool_policies(profiles: ProfileSet, tool: str) -> list[tuple[str, ToolPolicy]]:
    """Every agent's policy for `tool` (an MCP tool by its offered name), by agent name."""
    mcp = split_offered_name(tool)
    found: list[tuple[str, ToolPolicy]] = []
    for name, agent in sorted(profiles.agents.items()):
        if mcp is not None:
            server = agent.mcp_servers.get(mcp[0])
            policy = None if server is None else server.tools.get(mcp[1])
            if policy is not None:
                found.append((name, policy))
        elif tool in agent.tools:
            found.append((name, agent.policy(tool)))
    return found


def card_title(profiles: ProfileSet, tool: str) -> str | None:
    """The title `tool`'s review card gives it ("Send a reply to the customer"): the first
    agent's (by name) whose policy for it has a card; None when none has."""
    for _, policy in tool_policies(profiles, tool):
        if policy.card is not None:
            return policy.card.title
    return None


def declared_server(profiles: ProfileSet, server: str) -> McpServer | None:
    """The worker's own declaration of an MCP server: the first agent's, by name."""
    for _, agent in sorted(profiles.agents.items()):
        if server in agent.mcp_servers:
            return agent.mcp_servers[server]
    return None


def effect_requirements(profiles: ProfileSet, tool: str) -> Requirements:
    needed: list[Requirement] = []
    caps: list[int] = []
    offered_by = 0
    for name, policy in tool_policies(profiles, tool):
        offered_by += 1
        if policy.approval == "deny":
            return Requirements(refusal=f"agent '{name}' of this worker's profiles denies {tool}")
        requirement = policy_requirement(policy)
        if requirement is not None:
            needed.append(requirement)
        if policy.four_eyes_above is not None:
            caps.append(to_minor(policy.four_eyes_above))
    if offered_by == 0:
        return Requirements(refusal=f"no agent of this worker's profiles offers {tool}")
    return Requirements(needed=tuple(needed), four_eyes_above_minor=min(caps, default=None))

"""What an irreversible tool's effect demands, judged from the worker's own profiles.

The effect cannot take the command's word for its policy: anyone who reaches the task
queue writes the command. So it reads the policy of the tool in every agent of the
profiles its worker loaded, and demands what the strictest of them demands: a tool no
agent offers, or one any agent denies, is refused; each agent that asks for approval
needs as many signed approvals (one for `confirm`, two for `review`) from reviewers
holding one of its approver roles. Only when every agent that offers the tool lets it
run `auto` does it run without a proof.

Pure: the effect activity calls it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from workflows.mcp_tools import McpServer, split_offered_name
from workflows.profile_contracts import ProfileSet
from workflows.tool_policy import ToolPolicy

REQUIRED_APPROVALS: Mapping[str, int] = MappingProxyType({"confirm": 1, "review": 2})


@dataclass(frozen=True)
class Requirement:
    """`approvals` different reviewers, each holding one of `roles`."""

    approvals: int
    roles: tuple[str, ...]


@dataclass(frozen=True)
class Requirements:
    needed: tuple[Requirement, ...] = ()
    # Why the tool may not run at all on this worker; "" when it may.
    refusal: str = ""


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


def declared_server(profiles: ProfileSet, server: str) -> McpServer | None:
    """The worker's own declaration of an MCP server: the first agent's, by name."""
    for _, agent in sorted(profiles.agents.items()):
        if server in agent.mcp_servers:
            return agent.mcp_servers[server]
    return None


def effect_requirements(profiles: ProfileSet, tool: str) -> Requirements:
    needed: list[Requirement] = []
    offered_by = 0
    for name, policy in tool_policies(profiles, tool):
        offered_by += 1
        if policy.approval == "deny":
            return Requirements(refusal=f"agent '{name}' of this worker's profiles denies {tool}")
        approvals = REQUIRED_APPROVALS.get(policy.approval)
        if approvals is not None:
            needed.append(Requirement(approvals, tuple(policy.approver_roles)))
    if offered_by == 0:
        return Requirements(refusal=f"no agent of this worker's profiles offers {tool}")
    return Requirements(needed=tuple(needed))

"""Whether the run's own agent offers a tool, judged on the worker's own profiles.

A tool activity's input names the run's profile by its content hash and its agent;
the activity looks both up in the profiles its worker loaded (held_profiles.py) and
runs only a tool that agent offers to the run's tenant. A run without a profile names
none, and offers the code's built-in catalog only. What a tool *is* (its function, its
risk, an MCP server's transport) is never read from the input either: the registry
and the profile say it.
"""

from __future__ import annotations

from activities.held_profiles import HeldProfiles
from workflows.mcp_tools import split_offered_name
from workflows.profile_contracts import tools_for
from workflows.tool_catalog import BUILTIN_AGENT_TOOLS

BUILT_IN_NAMES = frozenset(tool.name for tool in BUILTIN_AGENT_TOOLS)


def not_offered(
    profiles: HeldProfiles, profile_hash: str, agent_name: str, tenant_id: str, tool: str
) -> str | None:
    """None when the agent offers `tool` to runs of `tenant_id`; else why not, in a
    sentence. ProfileNotHeld propagates: another worker may hold the profile."""
    if not profile_hash:
        if tool in BUILT_IN_NAMES:
            return None
        return f"'{tool}' is not a tool of the built-in catalog a run without a profile offers"
    agent = profiles.agent(profile_hash, agent_name)
    mcp = split_offered_name(tool)
    if mcp is not None:
        server = agent.mcp_servers.get(mcp[0])
        if server is not None and mcp[1] in server.tools:
            return None
    elif tool in tools_for(agent, tenant_id, ()):
        return None
    return f"agent '{agent_name}' of the run's profile does not offer '{tool}' to this tenant"

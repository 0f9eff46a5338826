"""What a run offers its model, and how it treats each tool: from the profile it started on.

A run records its profile's rules in its request (`RunRequest.profile`, with the names
of the tools it offers in `RunRequest.tools`, and the prompt catalog's digest: the
system prompt and the tools' descriptions and schemas as they were at start, in the
store), so that a run that waits for days resumes on the profile that started it, and
an edited profile changes new runs only. A request without a profile is a run of the
code's built-in agent: the system prompt of `policy.py` and the whole built-in catalog,
carried in each model turn, the refund gated as it always was.

The list offered is the permission: a call of a tool the run does not offer is refused
before anything runs, whatever the model or a ticket says.

Pure: workflow code calls these.
"""

from __future__ import annotations

from workflows import policy
from workflows.contracts import RunRequest
from workflows.profile_contracts import ToolPolicy
from workflows.tool_catalog import BUILTIN_AGENT_TOOLS, CATALOG, ToolDefinition
from workflows.tool_spec import ToolSpec


def built_in_prompt(request: RunRequest) -> tuple[str, list[ToolSpec]]:
    """The system prompt and tools a run without a prompt catalog (no profile) carries
    in each model turn; nothing for a run with one (the activity reads its catalog)."""
    if request.prompt_digest is not None:
        return "", []
    return policy.SYSTEM_PROMPT, [tool.spec() for tool in BUILTIN_AGENT_TOOLS]


def offered_names(request: RunRequest) -> list[str]:
    """The tools the model is offered on every turn of this run, by name."""
    if request.profile is None:
        return [tool.name for tool in BUILTIN_AGENT_TOOLS]
    return list(request.tools)


def profile_names(request: RunRequest) -> dict[str, str]:
    """The run's profile hash and agent, as a tool activity's input names them (empty
    for a run without a profile)."""
    profile = request.profile
    if profile is None:
        return {"profile_hash": "", "agent_name": ""}
    return {"profile_hash": profile.content_hash, "agent_name": profile.agent_name}


def tool_policy(request: RunRequest, name: str) -> ToolPolicy | None:
    """The profile's policy for an offered tool; None for a run without a profile (the
    built-in catalog's own risk classes then apply)."""
    profile = request.profile
    if profile is None:
        return None
    return profile.agent.tool_policy.get(name)


def is_irreversible(request: RunRequest, name: str) -> bool:
    """Whether a call of `name` must pass the gate. An offered tool without a policy
    is irreversible (fail closed), as a profile's own default is."""
    chosen = tool_policy(request, name)
    if chosen is not None:
        return chosen.risk == "irreversible"
    built_in: ToolDefinition | None = CATALOG.get(name)
    return built_in is None or built_in.risk == "irreversible_write"


def not_offered_message(request: RunRequest, name: str) -> str:
    offered = ", ".join(sorted(offered_names(request))) or "none"
    return f"Unknown tool '{name}'. The tools that exist are: {offered}."

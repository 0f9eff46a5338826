"""Whether an effect no reviewer approved may run: the one check such an effect has.

Design note. An irreversible tool every agent runs `auto` (the built-in profile's
`send_reply`) carries no proof, so its effect cannot verify a decision; it verifies
where the call came from instead (activities/run_provenance.py: the calling run's
history in Temporal, and the store's record of the runs signoff's service started).

It runs only for a run the store knows, started with exactly the request the service
wrote (tenant, ticket, actor, model, profile, offered tools), whose agent, in the
profile this worker holds by that hash, runs the tool `auto`, for a call its model
made, with the arguments the model gave. Anything else is refused on the audit.
run_provenance.py says what stays possible, and what reading the history costs: it is
read only here and for a rule's grant, never for a refund or a tool a reviewer approved.
"""

from __future__ import annotations

from activities.held_profiles import HeldProfiles, ProfileNotHeld
from activities.run_provenance import RunStart, model_asked, provenance_problem
from workflows.actions import ToolActionCommand
from workflows.contracts import RunRequest
from workflows.mcp_tools import split_offered_name


def auto_effect_problem(
    start: RunStart,
    *,
    task_queue: str,
    stored_fingerprint: str | None,
    command: ToolActionCommand,
    profiles: HeldProfiles,
) -> str | None:
    """None when `command`, an effect with no proof, may run for the run that called
    (its workflow id is `command.run_id`: the caller checks that); else why not."""
    problem = provenance_problem(
        start,
        run_id=command.run_id,
        task_queue=task_queue,
        stored_fingerprint=stored_fingerprint,
        tenant_id=command.tenant_id,
        ticket_id=command.ticket_id,
    )
    if problem is not None:
        return problem
    request = start.request
    assert request is not None  # provenance_problem refuses a start without one
    problem = _not_auto(request, command.action.tool, profiles)
    if problem is not None:
        return problem
    if not model_asked(start, command.action):
        return (
            f"The model of run '{command.run_id}' never asked for this call of "
            f"{command.action.tool} with these arguments"
        )
    return None


def _not_auto(request: RunRequest, tool: str, profiles: HeldProfiles) -> str | None:
    """Why the run's own agent does not run `tool` without a reviewer; None if it does.
    ProfileNotHeld propagates: another worker may hold the profile."""
    if request.profile is None:
        return "The run names no profile, so no tool of it runs without a reviewer"
    agent = profiles.agent(request.profile.content_hash, request.profile.agent_name)
    mcp = split_offered_name(tool)
    if mcp is not None:
        server = agent.mcp_servers.get(mcp[0])
        policy = None if server is None else server.tools.get(mcp[1])
    else:
        policy = agent.policy(tool) if tool in request.tools and tool in agent.tools else None
    if policy is None:
        return f"The run's agent '{request.profile.agent_name}' does not offer {tool}"
    if policy.approval != "auto":
        return (
            f"The run's agent '{request.profile.agent_name}' runs {tool} only with a "
            f"reviewer's approval ({policy.approval})"
        )
    return None


__all__ = ["ProfileNotHeld", "RunStart", "auto_effect_problem"]

"""`signoff profiles check FILE` and `signoff profiles show`: a profile file checked
offline, and what a worker would load, by the loader the worker itself uses."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from signoff.cli.support import JsonOption, emit_json, fail, say, settings
from signoff.config.profiles import (
    LoadedProfiles,
    ProfileError,
    load_profile_file,
    load_profiles,
)
from workflows.profile_contracts import AgentProfile, Budget, ToolPolicy
from workflows.profile_values import format_duration

profiles = typer.Typer(
    help="Agent profiles: check a profile file offline, or show what a worker would load."
)


def register(app: typer.Typer) -> None:
    app.add_typer(profiles, name="profiles")


@profiles.command("check")
def check_command(
    file: Annotated[Path, typer.Argument(help="The profile file (TOML) to check.")],
) -> None:
    """Validate a profile file as a worker would, without one; one line per agent."""
    try:
        loaded = load_profile_file(file)
    except ProfileError as error:
        fail(str(error))
    say(f"{file}: profile '{loaded.name}' is valid, sha256 {loaded.content_hash}")
    for name, agent in loaded.profiles.agents.items():
        default = " (default)" if name == loaded.profiles.default_agent else ""
        tools = ", ".join(f"{tool} ({_mode(agent.policy(tool))})" for tool in agent.tools)
        say(
            f"agent {name}{default}: model {agent.model.choice()}; tools {tools or 'none'}; "
            f"budgets {', '.join(agent.budgets)}{_narrowed(agent)}"
        )


@profiles.command("show")
def show_command(as_json: JsonOption = False) -> None:
    """Show the profiles a worker would load (SIGNOFF_PROFILES, or the built-in file)."""
    try:
        loaded = load_profiles(settings())
    except ProfileError as error:
        fail(str(error))
    if as_json:
        emit_json(
            {
                "name": loaded.name,
                "content_hash": loaded.content_hash,
                "source": str(loaded.source),
                "builtin": loaded.builtin,
                "profiles": loaded.profiles.model_dump(mode="json"),
            }
        )
        return
    for line in _described(loaded):
        say(line)


def _described(loaded: LoadedProfiles) -> list[str]:
    origin = "built-in" if loaded.builtin else "SIGNOFF_PROFILES"
    lines = [
        f"profile {loaded.name} ({origin}: {loaded.source})",
        f"sha256 {loaded.content_hash}",
    ]
    for name, agent in loaded.profiles.agents.items():
        default = " (default)" if name == loaded.profiles.default_agent else ""
        prompt = agent.system_prompt_file or "inline"
        lines += [
            "",
            f"agent {name}{default}",
            f"  model: {agent.model.choice()}",
            f"  system prompt: {prompt}, {len(agent.system_prompt.splitlines())} lines",
            "  tools:",
            *(f"    {tool}: {_policy(agent.policy(tool))}" for tool in agent.tools),
            "  budgets:",
            *(f"    {kind}: {_budget(budget)}" for kind, budget in agent.budgets.items()),
        ]
        for holder, narrowings in (("tenant", agent.tenants), ("role", agent.roles)):
            for key, narrowing in narrowings.items():
                rules = []
                if narrowing.allow_tools is not None:
                    rules.append(f"only {', '.join(narrowing.allow_tools) or 'no tool'}")
                if narrowing.deny_tools:
                    rules.append(f"never {', '.join(narrowing.deny_tools)}")
                lines.append(f"  {holder} {key}: {'; '.join(rules) or 'all tools'}")
    return lines


def _mode(policy: ToolPolicy) -> str:
    return "read" if policy.risk == "read" else policy.approval


def _policy(policy: ToolPolicy) -> str:
    parts: list[str] = [policy.risk, policy.approval]
    if policy.four_eyes_above is not None:
        parts.append(f"four eyes above {policy.four_eyes_above}")
    if policy.approval_ttl is not None:
        parts.append(f"expires after {format_duration(policy.approval_ttl)}")
    if policy.approver_roles:
        parts.append(f"approved by {', '.join(policy.approver_roles)}")
    if policy.editable:
        parts.append(f"reviewer may edit {', '.join(policy.editable)}")
    if policy.call_timeout is not None:
        parts.append(f"each call attempt up to {format_duration(policy.call_timeout)}")
    return ", ".join(parts)


def _budget(budget: Budget) -> str:
    cost = f"{budget.cost_usd} USD" if budget.cost_usd is not None else "no cost limit"
    return (
        f"{budget.steps} steps, {budget.tokens} tokens, {cost}, "
        f"deadline {format_duration(budget.deadline)}"
    )


def _narrowed(agent: AgentProfile) -> str:
    parts = [f"tenants {', '.join(agent.tenants)}"] if agent.tenants else []
    parts += [f"roles {', '.join(agent.roles)}"] if agent.roles else []
    return f"; narrowed for {' and '.join(parts)}" if parts else ""

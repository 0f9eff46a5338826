"""Agent profiles: an agent's prompt, model, tools, budgets and a policy per tool.

A run will carry its resolved profile through the workflow boundary, so these are
contracts: frozen, no undeclared key, serialized to the same form they are written in.

Design note: the rules come in two parts. Structure and the rules inside one profile
hold on every validation, a run's history read back included. The rules that depend on
which tools exist (a listed tool is known, a risk class is not weaker than the tool's
own, `editable` names real arguments, the description passes the linter) hold only
when validated with `context={KNOWN_TOOLS: known_tools()}`, as the loader does: a run
that waits for days is read back without it, so a tool removed since cannot break it.

Fail-closed defaults, when the file leaves a key out:

- `risk`: a known tool's own class (`read_ticket` reads); any other tool is
  `irreversible`.
- `approval`: `review` (two reviewers) for an irreversible tool; `auto`, the only mode
  a read tool takes, for a read tool.
- `approval_ttl`: 24 hours for `confirm` and `review`; `approver_roles` has no
  default: a tool a person must approve names who may.
- `editable`: nothing; a reviewer edits only the arguments listed.
- a kind of task without a budget table runs on `default`; a kind's table gives only
  what differs from `default`.
- `reply_within`: 3 days of waiting for the customer's answer to `ask_customer`.
- `tenants.T` and `roles.R` narrow the tools offered and never widen them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from workflows.contract_base import Contract, Identifier, TenantId
from workflows.customer_questions import DEFAULT_REPLY_WITHIN_DAYS, MAX_REPLY_WITHIN_DAYS
from workflows.known_tools import profile_risk
from workflows.mcp_tools import McpServer, McpServerName
from workflows.model_contracts import PROVIDER_NAME_PATTERN
from workflows.policy import MAX_STEP_BUDGET
from workflows.profile_values import Duration, Money, WholeNumber, problem
from workflows.tool_catalog import REFUND, ToolDefinition
from workflows.tool_description_lint import description_problems
from workflows.tool_policy import ToolPolicy as ToolPolicy  # re-exported: its old home

# The validation context key under which the loader passes the tools that exist.
KNOWN_TOOLS = "known_tools"
DEFAULT_BUDGET = "default"
# `auto` or a provider of the registry (signoff/models), which the loader checks: the
# contract knows no provider's name, so an installed one needs no edit here.
ModelProvider = Annotated[str, Field(pattern=PROVIDER_NAME_PATTERN)]


def _known(info: ValidationInfo) -> Mapping[str, ToolDefinition] | None:
    context = info.context
    return context.get(KNOWN_TOOLS) if isinstance(context, dict) else None


def _listing(names: Iterable[str]) -> str:
    return ", ".join(names) or "none"


class ProfileModel(Contract):
    """The model, as `--model` names it: `auto` picks the ready provider of highest rank
    (Claude when an API key is set, the scripted demo otherwise); a provider without
    `model_id` takes its default. Whether the provider exists and takes that id is the
    loader's check, against the registry (signoff/config/profiles.py)."""

    provider: ModelProvider
    model_id: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        default=None, validate_default=True
    )

    @field_validator("model_id")
    @classmethod
    def _id_fits_provider(cls, model_id: str | None, info: ValidationInfo) -> str | None:
        provider = info.data.get("provider")
        if provider == "auto" and model_id is not None:
            raise problem("provider 'auto' takes no model_id: it picks one itself")
        return model_id

    def choice(self) -> str:
        """`provider[:model_id]`, the form `--model` and SIGNOFF_MODEL take."""
        return self.provider if self.model_id is None else f"{self.provider}:{self.model_id}"


class Budget(Contract):
    steps: Annotated[int, Field(strict=True, ge=1, le=MAX_STEP_BUDGET)]
    tokens: WholeNumber
    cost_usd: Annotated[Money, Field(gt=0)] | None = None  # none: no cost budget
    deadline: Duration


class ToolNarrowing(Contract):
    """For one tenant or one role: only `allow_tools` (when given), never `deny_tools`."""

    allow_tools: tuple[str, ...] | None = None
    deny_tools: tuple[str, ...] = ()

    def narrow(self, tools: list[str]) -> list[str]:
        allowed = self.allow_tools
        return [
            tool
            for tool in tools
            if (allowed is None or tool in allowed) and tool not in self.deny_tools
        ]


class AgentRules(Contract):
    """What a run decides on of its agent: everything but the prompt. A run's request
    carries this; the prompt goes to the store once (workflows/prompt_catalog.py)."""

    model: ProfileModel
    tools: tuple[str, ...]
    tool_policy: dict[str, ToolPolicy] = Field(default_factory=dict)
    budgets: dict[Identifier, Budget]
    tenants: dict[TenantId, ToolNarrowing] = Field(default_factory=dict)
    roles: dict[Identifier, ToolNarrowing] = Field(default_factory=dict)
    # Tools from MCP servers, offered as SERVER__TOOL once resolved (workflows/mcp_tools.py).
    mcp_servers: dict[McpServerName, McpServer] = Field(default_factory=dict)
    # Days a run waits for the customer's answer to `ask_customer` (customer_questions.py).
    reply_within: Annotated[int, Field(strict=True, ge=1, le=MAX_REPLY_WITHIN_DAYS)] = (
        DEFAULT_REPLY_WITHIN_DAYS
    )

    @model_validator(mode="before")
    @classmethod
    def _fill_defaults(cls, data: Any, info: ValidationInfo) -> Any:
        """A policy for every tool (a known tool's risk by default), and each kind's
        budget completed from `default`."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        tools, policies = data.get("tools"), data.get("tool_policy", {})
        if isinstance(tools, list | tuple) and isinstance(policies, dict):
            known = _known(info)
            filled = dict(policies)
            for name in tools:
                entry = filled.get(name, {})
                if not isinstance(name, str) or not isinstance(entry, dict):
                    continue
                if known is None or name in known:
                    if known is not None and "risk" not in entry:
                        entry = {**entry, "risk": profile_risk(known[name])}
                    filled[name] = entry
            data["tool_policy"] = filled
        budgets = data.get("budgets")
        if isinstance(budgets, dict) and isinstance(budgets.get(DEFAULT_BUDGET), dict):
            default = budgets[DEFAULT_BUDGET]
            data["budgets"] = {
                kind: {**default, **table} if isinstance(table, dict) else table
                for kind, table in budgets.items()
            }
        return data

    @field_validator("tools")
    @classmethod
    def _tools_exist(cls, tools: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        twice = sorted({tool for tool in tools if tools.count(tool) > 1})
        if twice:
            raise problem(f"listed more than once: {_listing(twice)}")
        known = _known(info)
        if known is None:
            return tools
        for tool in tools:
            definition = known.get(tool)
            if definition is None:
                raise problem(f"unknown tool {tool!r}; allowed: {_listing(sorted(known))}")
            reasons = description_problems(definition.description)
            if reasons:
                raise problem(f"the description of {tool!r} fails the linter: {'; '.join(reasons)}")
        return tools

    @field_validator("tool_policy")
    @classmethod
    def _policies_for_offered_tools(
        cls, policies: dict[str, ToolPolicy], info: ValidationInfo
    ) -> dict[str, ToolPolicy]:
        tools = info.data.get("tools")
        if tools is None:
            return policies
        for name in policies:
            if name not in tools:
                raise problem(
                    f"a policy for a tool this agent does not offer; add it to tools or "
                    f"remove it (tools: {_listing(tools)})",
                    key=name,
                )
        known = _known(info) or {}
        for name, policy in policies.items():
            tool = known.get(name)
            if tool is None:
                continue
            if policy.risk == "read" and profile_risk(tool) == "irreversible":
                raise problem(
                    f"{name} is irreversible; its risk cannot be 'read'", key=f"{name}.risk"
                )
            if policy.four_eyes_above is not None and name != REFUND.name:
                # The amount is the refund's cumulative exposure on its order, which only
                # its policy hook measures (workflows/refund_hooks.py).
                raise problem(
                    f"only {REFUND.name} has an exposure to compare; use approval = "
                    '"review" for two reviewers',
                    key=f"{name}.four_eyes_above",
                )
            if policy.reason_argument is not None and name == REFUND.name:
                raise problem(
                    f"{REFUND.name} states its reason in its own `reason` argument",
                    key=f"{name}.reason_argument",
                )
            arguments = list(tool.arguments.model_fields)
            for field, named in policy.named_arguments().items():
                for argument in named:
                    if argument not in arguments:
                        raise problem(
                            f"{argument!r} is not an argument of {name}; allowed: "
                            f"{_listing(arguments)}",
                            key=f"{name}.{field}",
                        )
        return policies

    @field_validator("budgets")
    @classmethod
    def _has_default_budget(cls, budgets: dict[str, Budget]) -> dict[str, Budget]:
        if DEFAULT_BUDGET not in budgets:
            raise problem(
                f"no [budgets.{DEFAULT_BUDGET}] table: every agent needs one "
                f"(given: {_listing(budgets)})"
            )
        return budgets

    @field_validator("tenants", "roles")
    @classmethod
    def _narrow_offered_tools(
        cls, narrowings: dict[str, ToolNarrowing], info: ValidationInfo
    ) -> dict[str, ToolNarrowing]:
        tools = info.data.get("tools")
        if tools is None:
            return narrowings
        for holder, narrowing in narrowings.items():
            for field in ("allow_tools", "deny_tools"):
                for tool in getattr(narrowing, field) or ():
                    if tool not in tools:
                        raise problem(
                            f"{tool!r} is not a tool of this agent; allowed: {_listing(tools)}",
                            key=f"{holder}.{field}",
                        )
        return narrowings

    def policy(self, tool: str) -> ToolPolicy:
        """The policy of an offered tool; KeyError for a tool the agent does not offer."""
        return self.tool_policy[tool]

    def budget(self, kind: str = DEFAULT_BUDGET) -> Budget:
        """The budget of a kind of task (`refund`); `default` for a kind without one."""
        return self.budgets.get(kind) or self.budgets[DEFAULT_BUDGET]

    def rules(self) -> AgentRules:
        """This agent without its prompt, as a run's request carries it."""
        fields = set(AgentRules.model_fields)
        return AgentRules.model_validate(self.model_dump(mode="json", include=fields))


class AgentProfile(AgentRules):
    """An agent as its profile file declares it: its rules and its prompt."""

    system_prompt: Annotated[str, Field(min_length=1)]
    # Where the prompt was read from, relative to the profile file; None when inline.
    system_prompt_file: str | None = None


class ProfileSet(Contract):
    """A profile file: its name, its agents, and the one a run gets when it names none."""

    name: Identifier
    # Modules that register Python tools (`signoff/tools/registry.py`); the loader
    # imports them before it checks the agents' tools.
    python_tools: tuple[Annotated[str, Field(pattern=r"^[A-Za-z_][\w.]*$")], ...] = ()
    agents: Annotated[dict[Identifier, AgentProfile], Field(min_length=1)]
    default_agent: Identifier

    @model_validator(mode="before")
    @classmethod
    def _only_agent_is_default(cls, data: Any) -> Any:
        if isinstance(data, dict) and "default_agent" not in data:
            agents = data.get("agents")
            if isinstance(agents, dict) and len(agents) == 1:
                return {**data, "default_agent": next(iter(agents))}
        return data

    @field_validator("default_agent")
    @classmethod
    def _default_is_declared(cls, name: str, info: ValidationInfo) -> str:
        agents = info.data.get("agents")
        if agents is not None and name not in agents:
            raise problem(f"no agent {name!r} in this file; allowed: {_listing(agents)}")
        return name

    def agent(self, name: str | None = None) -> AgentProfile:
        return self.agents[name or self.default_agent]


class RunProfile(Contract):
    """What a run records of its profile: the file's name and content hash, the agent's
    rules (its prompt is in the run's prompt catalog, by digest)."""

    profile_name: Identifier
    content_hash: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    agent_name: Identifier
    agent: AgentRules

    @field_validator("agent", mode="before")
    @classmethod
    def _rules_only(cls, agent: Any) -> Any:
        """An agent with its prompt is kept as its rules: what the run carries is what
        it holds in memory, never a prompt that would vanish on the wire."""
        if isinstance(agent, AgentRules) and type(agent) is not AgentRules:
            return agent.rules()
        return agent


def tools_for(agent: AgentRules, tenant_id: str, roles: Iterable[str]) -> list[str]:
    """The tools offered to a run of `agent` for this tenant and an actor with `roles`.

    Every narrowing that applies narrows (the tenant's, and each of the actor's roles'):
    the list is the permission, so one rule that takes a tool away is enough.
    """
    offered = list(agent.tools)
    narrowing = agent.tenants.get(tenant_id)
    if narrowing is not None:
        offered = narrowing.narrow(offered)
    for role in sorted(set(roles)):
        narrowing = agent.roles.get(role)
        if narrowing is not None:
            offered = narrowing.narrow(offered)
    return offered

"""A waiting action as a reviewer reads it: its card, and what the agent may do after.

Design note. Every face shows any tool's action the same way (issue: every tool is
first-class). The card comes from the tool's policy in this host's own profiles
(`workflows/review_card.py`): its title, what approving does, and its arguments in
the order and the reading it names, every other argument after them. Values are shown
as a person reads them, not as the wire carries them: an MCP tool's argument `"15.00"`
(JSON) reads 15.00, an object reads as indented JSON, and a long text is a block that
wraps. What the agent may do next is its profile's word: the other tools with effects
its agent offers, those it runs without asking and those that wait for a reviewer too.
Pure: no I/O; the pages and the CLI call it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from workflows.actions import PendingAction
from workflows.effect_requirements import tool_policies
from workflows.mcp_tools import offered_name, split_offered_name
from workflows.profile_contracts import ProfileSet
from workflows.review_card import ArgumentView, ReviewCard
from workflows.tool_policy import ToolPolicy

# Past this, or with a line break, a text reads as a block.
SHORT_TEXT_CHARS = 80


@dataclass(frozen=True)
class CardLine:
    name: str
    view: ArgumentView
    text: str


@dataclass(frozen=True)
class ActionCard:
    title: str
    effect: str | None
    lines: list[CardLine]
    # Other tools with effects the agent may use after this: by itself, or with approval.
    then_alone: list[str] = field(default_factory=list)
    then_asked: list[str] = field(default_factory=list)


def default_title(tool: str) -> str:
    """A tool's name as a title: `issue_voucher` reads "Issue voucher"; an MCP tool's
    says its server: "Issue voucher (shop)"."""
    mcp = split_offered_name(tool)
    name = tool if mcp is None else mcp[1]
    words = name.replace("_", " ").replace("-", " ").strip()
    title = words[:1].upper() + words[1:]
    return title if mcp is None else f"{title} ({mcp[0]})"


def _decoded(text: str, mcp: bool) -> object:
    """The value an argument's text stands for: an MCP tool's each as JSON; a Python
    tool's a string as it is, anything else as compact JSON (tool_arguments.py)."""
    if mcp or text[:1] in "[{":
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def readable(text: str, mcp: bool) -> tuple[str, ArgumentView]:
    """An argument's text as a person reads it, and how it reads best."""
    value = _decoded(text, mcp)
    if isinstance(value, dict | list):
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True), "json"
    shown = value if isinstance(value, str) else json.dumps(value)
    long = len(shown) > SHORT_TEXT_CHARS or "\n" in shown
    return shown, "long_text" if long else "text"


def _policy(profiles: ProfileSet | None, tool: str) -> tuple[str | None, ToolPolicy | None]:
    """The first agent (by name) whose profile offers `tool` with a card, else the first
    that offers it, and its policy for it; (None, None) when none does."""
    found = [] if profiles is None else tool_policies(profiles, tool)
    with_card = [(agent, policy) for agent, policy in found if policy.card is not None]
    chosen = with_card or found
    if not chosen:
        return None, None
    return chosen[0]


def card_of(action: PendingAction, profiles: ProfileSet | None) -> ActionCard:
    agent, policy = _policy(profiles, action.tool)
    card = (policy.card if policy is not None else None) or ReviewCard(
        title=default_title(action.tool)
    )
    mcp = split_offered_name(action.tool) is not None
    exposure = action.exposure
    lines = []
    for name in [*card.arguments, *sorted(set(action.arguments) - set(card.arguments))]:
        if name not in action.arguments:
            continue
        text, view = readable(action.arguments[name], mcp)
        if exposure is not None and name == exposure.amount_argument:
            text, view = f"{exposure.amount} {exposure.currency}", "money"
        elif name in card.arguments and card.arguments[name] != "json":
            view = card.arguments[name]
        lines.append(CardLine(name, view, text))
    alone, asked = _next_steps(profiles, agent, action.tool)
    return ActionCard(card.title, card.effect, lines, alone, asked)


def _next_steps(
    profiles: ProfileSet | None, agent_name: str | None, tool: str
) -> tuple[list[str], list[str]]:
    if profiles is None or agent_name is None:
        return [], []
    agent = profiles.agents[agent_name]
    policies: dict[str, ToolPolicy] = {name: agent.policy(name) for name in agent.tools}
    for server_name, server in sorted(agent.mcp_servers.items()):
        for name, declared in server.tools.items():
            policies[offered_name(server_name, name)] = declared
    alone: list[str] = []
    asked: list[str] = []
    for name, policy in policies.items():
        if name == tool or policy.risk == "read" or policy.approval == "deny":
            continue
        title = policy.card.title if policy.card is not None else default_title(name)
        (alone if policy.approval == "auto" else asked).append(title)
    return alone, asked

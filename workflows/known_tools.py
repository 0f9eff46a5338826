"""A profile's words for risk classes: what a tool may do, not how it is implemented.

Which tools exist (the built-in catalog, registered Python functions, pinned MCP
servers' tools) is `signoff.tools.known_tools()`: the registry lives outside the
workflow package, whose modules hold no state.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from workflows.tool_catalog import RiskClass, ToolDefinition

ProfileRisk = Literal["read", "irreversible"]
PROFILE_RISK: Mapping[RiskClass, ProfileRisk] = MappingProxyType(
    {"read": "read", "irreversible_write": "irreversible"}
)


def profile_risk(tool: ToolDefinition) -> ProfileRisk:
    return PROFILE_RISK[tool.risk]

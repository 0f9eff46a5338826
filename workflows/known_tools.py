"""The tools a profile may name, through one function.

Today they are the built-in catalog (`workflows/tool_catalog.py`). Tools registered as
Python functions and those of pinned MCP servers will join here, and only here, so that
the profile loader, `signoff profiles check` and the worker agree on what exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from workflows.tool_catalog import CATALOG, RiskClass, ToolDefinition

# A profile's word for a risk class: what the tool may do, not how it is implemented.
ProfileRisk = Literal["read", "irreversible"]
PROFILE_RISK: Mapping[RiskClass, ProfileRisk] = MappingProxyType(
    {"read": "read", "irreversible_write": "irreversible"}
)


def known_tools() -> Mapping[str, ToolDefinition]:
    """Every tool an agent profile may offer, by name."""
    return CATALOG


def profile_risk(tool: ToolDefinition) -> ProfileRisk:
    return PROFILE_RISK[tool.risk]

"""Add your own tools: `@tool(...)` on a Python function (docs/configuration/add-a-tool.md)."""

from signoff.tools.registry import (
    ToolContext,
    ToolRegistrationError,
    known_tools,
    tool,
)

__all__ = ["ToolContext", "ToolRegistrationError", "known_tools", "tool"]

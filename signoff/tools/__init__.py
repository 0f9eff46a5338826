"""Add your own tools: `@tool(...)` on a Python function (README, "Add a tool")."""

from signoff.tools.registry import (
    ToolContext,
    ToolRegistrationError,
    known_tools,
    registered_tools,
    tool,
)

__all__ = ["ToolContext", "ToolRegistrationError", "known_tools", "registered_tools", "tool"]

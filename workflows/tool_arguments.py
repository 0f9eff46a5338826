"""A gated tool's arguments as the reviewer sees them and the hash binds them: text.

A `PendingAction` holds its arguments as a flat mapping of text (what the inbox shows
in a table and what the action hash covers). A tool's own model may take numbers,
flags or lists: `normalized` validates the model's arguments and writes each value as
text (a string as it is, anything else as compact JSON); `restored` reads them back
into the model for the effect. A call whose arguments do not survive the round trip is
refused before a reviewer sees it, so what executes is always what was approved.

Pure: the tool gateway calls these before the gate, the effect after it.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from workflows.tool_catalog import ToolCallRejected, ToolDefinition, parse_arguments


def normalized(tool: ToolDefinition, raw: dict[str, Any]) -> dict[str, str]:
    """Raise ToolCallRejected, saying what is wrong, for arguments the tool refuses."""
    parsed = parse_arguments(tool, raw)
    dumped = parsed.model_dump(mode="json")
    arguments = {name: _as_text(value) for name, value in dumped.items()}
    if restored(tool, arguments).model_dump(mode="json") != dumped:
        raise ToolCallRejected(
            f"The arguments of '{tool.name}' cannot be shown to a reviewer exactly as they "
            "would execute; give each argument as plain text or numbers."
        )
    return arguments


def restored(tool: ToolDefinition, arguments: dict[str, str]) -> BaseModel:
    """The tool's model from normalized arguments. Raises pydantic's ValidationError for
    arguments no `normalized` call wrote."""
    fields = tool.arguments.model_fields
    values: dict[str, Any] = {}
    for name, text in arguments.items():
        field = fields.get(name)
        values[name] = text if field is not None and field.annotation is str else _loaded(text)
    return tool.arguments.model_validate(values)


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _loaded(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text

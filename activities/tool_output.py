"""What a tool returned, as the bounded text of a tool result.

Every result reaches the model cut to the tool-result limit. JSON stays valid JSON: the
field a result may carry at length (a ticket's text, a server's answer) is the one that
gets cut, with a note.
"""

from __future__ import annotations

import json
from typing import Any

from workflows.policy import MAX_TOOL_RESULT_CHARS, bound_text


def dumps_with_bounded_field(payload: dict[str, Any], field: str) -> str:
    """JSON no longer than the tool-result limit, cutting only `field` (with a note)."""
    text = str(payload[field])
    budget = MAX_TOOL_RESULT_CHARS
    while budget > 0:
        encoded = json.dumps({**payload, field: bound_text(text, budget)}, ensure_ascii=False)
        if len(encoded) <= MAX_TOOL_RESULT_CHARS:
            return encoded
        # Escaping makes the JSON longer than the text; shrink by the overshoot.
        budget -= len(encoded) - MAX_TOOL_RESULT_CHARS
    raise ValueError("the other fields alone exceed the tool-result limit")


def as_tool_output(value: Any) -> str:
    """What a tool function returned, as the bounded text of a tool result."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return bound_text(text)

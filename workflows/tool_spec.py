"""What a model is offered for one tool: its name, description and input JSON schema.

Its own module so that the tool catalog, the profiles and the run's request can all
name it without importing one another.
"""

from __future__ import annotations

from typing import Any

from workflows.contract_base import Contract


class ToolSpec(Contract):
    name: str
    description: str
    input_schema: dict[str, Any]

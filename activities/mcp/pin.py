"""A server's pin: the SHA-256 of its advertised tools, as RFC 8785 canonical JSON.

What is hashed is every tool the server advertises (not only the declared ones), each as
`{"name", "description", "inputSchema"}`, sorted by name: a new tool, a changed word in
a description or a changed schema each change the pin, and so does a tool taken away.
Output schemas, titles and annotations are left out: they do not change what the model
is told or what it may send.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from workflows.approval_policy import canonical_hash


@dataclass(frozen=True)
class AdvertisedTool:
    """A tool as the server advertises it: third-party text and schema, not trusted."""

    name: str
    description: str | None
    input_schema: dict[str, Any]

    def pinned_form(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        }


def pin_of(tools: Iterable[AdvertisedTool]) -> str:
    return canonical_hash([tool.pinned_form() for tool in sorted(tools, key=lambda t: t.name)])

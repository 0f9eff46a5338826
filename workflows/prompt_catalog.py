"""The prompt side of what a run offers its model, stored once and named by its hash.

Design note. Every model turn used to carry the system prompt and each tool's
description and JSON schema, and the run's request carried them once more: about four
fifths of a refund run's history bytes, the same text on every turn of every run. The
workflow decides nothing on that text; it decides on the tool names, which of them are
gated, and their policies, which stay in its request. So the text is a `PromptCatalog`,
written once to the store by the service when it builds the request, keyed by the
SHA-256 of its canonical JSON (`catalog_digest`); the run carries the digest, and the
model-turn activity reads the catalog back and checks its hash before the model sees
it (activities/prompt_reader.py). The history still proves what the model was
offered: the digest is in it, and the store's row must hash to it.

Pure: workflow code and the store both call these.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated

from pydantic import Field

from workflows.contract_base import Contract
from workflows.tool_spec import ToolSpec

CatalogDigest = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class PromptCatalog(Contract):
    """What the model reads of a run's agent: its system prompt, and the tools it is
    offered, in order, with their descriptions and input schemas."""

    system: Annotated[str, Field(min_length=1)]
    tools: tuple[ToolSpec, ...] = ()

    def canonical(self) -> bytes:
        """The bytes the digest covers and the store keeps: sorted keys, no spaces."""
        return json.dumps(
            self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode()

    def digest(self) -> str:
        return catalog_digest(self.canonical())

    def names(self) -> tuple[str, ...]:
        return tuple(tool.name for tool in self.tools)


def catalog_digest(canonical: bytes) -> str:
    return hashlib.sha256(canonical).hexdigest()

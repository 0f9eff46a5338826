"""The `acme` model provider: declared here, registered by the package's entry point.

Its settings are its own (SIGNOFF_ACME_*), read from the worker's environment; its key
is a secret the logs blank. The model answers the ticket it is shown, in one turn after
reading it, and says which key it was built with (a test reads it back).
"""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from signoff.models import ModelProvider
from workflows.contracts import (
    ModelReply,
    ModelRequest,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)


class AcmeSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SIGNOFF_ACME_", extra="ignore")

    api_key: SecretStr | None = None
    default_model: str = "acme-small"


class AcmeModel:
    """Reads the ticket, then answers with what it read."""

    def __init__(self, api_key: str) -> None:
        self.api_key = api_key

    async def complete(self, request: ModelRequest) -> ModelReply:
        results = [
            block
            for message in request.messages
            for block in message.content
            if isinstance(block, ToolResultBlock)
        ]
        usage = Usage(input_tokens=10, output_tokens=5)
        if not results:
            call = ToolUseBlock(id="acme-1", name="read_ticket", input={})
            return ModelReply(content=[call], stop_reason="tool_use", usage=usage)
        built = f"acme ({request.model.model_id}, key {self.api_key[-4:]})"
        text = f"{built} read: {results[0].content}"
        return ModelReply(content=[TextBlock(text=text)], stop_reason="end_turn", usage=usage)


def build(settings: Any) -> AcmeModel:
    """The worker calls this on the first `acme` turn, with signoff's Settings."""
    own = AcmeSettings()
    if own.api_key is None:
        raise ValueError("SIGNOFF_ACME_API_KEY is not set on the worker")
    return AcmeModel(own.api_key.get_secret_value())


ACME = ModelProvider(
    name="acme",
    adapter="acme_signoff.models:build",
    usage="acme[:MODEL_ID]",
    default_id=lambda settings: AcmeSettings().default_model,
    settings=AcmeSettings,
    telemetry_name="acme.ai",
    unlisted_price="free",
)

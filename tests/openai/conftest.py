"""Fixtures of the Chat Completions tests: a local server, the adapter, the real stack.

The real `AgentRun` (and `TriageTicket`) run on the time-skipping server, with the real
model-turn activity built by `build_model_turns` from settings whose
SIGNOFF_OPENAI_BASE_URL is `tests/openai/chat_server.py`: the `openai` SDK itself
speaks to it. Tools are the real gateway on a seeded SQLite store, or `FakeTools` where
fixed results make the expected JSON easier to read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from activities.model_turn import ModelTurns, build_model_turns
from signoff.config.settings import Settings
from tests.openai.chat_server import FakeChatApi, serving

# The SDK is imported by the tests that use it, not when the module is collected: every
# test process collects every module, and `openai` is about 1 s of CPU to import.
if TYPE_CHECKING:
    from activities.models.openai_adapter import OpenAIModel


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeChatApi]:
    with serving(monkeypatch) as fake:
        yield fake


@pytest.fixture
async def model(api: FakeChatApi) -> AsyncIterator[OpenAIModel]:
    """The adapter alone, without a key, as in front of a local server."""
    from activities.models.openai_adapter import OpenAIModel

    adapter = OpenAIModel(api_key=None, base_url=api.base_url, timeout_seconds=5)
    try:
        yield adapter
    finally:
        await adapter.close()


@pytest.fixture
async def model_turns(api: FakeChatApi, tmp_path: Path) -> AsyncIterator[ModelTurns]:
    """The worker's model-turn activity, as the worker builds it from its settings; its
    HTTP clients closed after the test."""
    settings = Settings(home=tmp_path, openai_base_url=api.base_url, openai_timeout_seconds=10)
    turns = build_model_turns(settings)
    yield turns
    await turns.close()

"""Fixtures of the wire-level conformance tests: a local Messages API and the real stack.

The real `AgentRun` (and `TriageTicket`) run on the time-skipping server, with the real
model-turn activity whose Anthropic adapter is the real `anthropic` SDK pointed at
`tests/anthropic_server.py`; tools are the real gateway on a seeded SQLite store, or
`FakeTools` where fixed results make the expected JSON easier to read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from functools import partial

import pytest

from activities.model_turn import ModelTurns
from activities.models.scripted import SCRIPTS_DIR, ScriptedModel
from tests.anthropic_server import TEST_API_KEY, FakeMessagesApi, serving


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesApi]:
    with serving(monkeypatch) as fake:
        yield fake


@pytest.fixture
async def model_turns(api: FakeMessagesApi) -> AsyncIterator[ModelTurns]:
    """The worker's model-turn activity, its Anthropic adapter aimed at the fake API;
    its HTTP client closed after the test (not left to the garbage collector). The SDK
    is imported here, not when the tests are collected (every test process collects
    every module, and `anthropic` is about 1.5 s of CPU to import)."""
    from activities.models.anthropic_adapter import AnthropicModel

    factory = partial(
        AnthropicModel, api_key=TEST_API_KEY, timeout_seconds=10, base_url=api.base_url
    )
    turns = ModelTurns({"scripted": partial(ScriptedModel, SCRIPTS_DIR), "anthropic": factory})
    yield turns
    await turns.close()

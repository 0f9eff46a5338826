"""Claude, through the Messages API (activities/models/anthropic_adapter.py).

Its settings stay in signoff's `Settings` (SIGNOFF_ANTHROPIC_*, and ANTHROPIC_API_KEY as
the SDK names it), where docs/configuration/settings.md lists them.
"""

from __future__ import annotations

from typing import Any

from signoff.models.registry import ModelProvider

# Above the scripted demo: `auto` is Claude whenever a key is set.
AUTO_RANK = 10

ANTHROPIC = ModelProvider(
    name="anthropic",
    adapter="activities.models.anthropic_adapter:from_settings",
    usage="anthropic[:MODEL_ID]",
    default_id=lambda settings: settings.anthropic_model,
    settings_secrets=lambda settings: (settings.anthropic_api_key,),
    auto_rank=AUTO_RANK,
    auto_ready=lambda settings: settings.anthropic_api_key is not None,
    thinking_budget=lambda settings: _thinking_budget(settings),
)


def _thinking_budget(settings: Any) -> int | None:
    budget: int | None = settings.anthropic_thinking_budget
    return budget

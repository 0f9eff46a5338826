"""What every request carries: the cached prefix, the actor's hash, headers, usage back."""

from __future__ import annotations

import json
import re
from decimal import Decimal

from temporalio.testing import WorkflowEnvironment

from activities.model_turn import ModelTurns
from tests.anthropic.wire import EPHEMERAL, run_claude
from tests.anthropic_server import (
    MESSAGES_PATH,
    TEST_API_KEY,
    FakeMessagesApi,
    message,
    text,
    tool_use,
)
from tests.workflow.fakes import FakeTools
from workflows import policy
from workflows.agent_run import actor_hash
from workflows.contracts import ModelPrice, TurnUsage, Usage


def three_turns(api: FakeMessagesApi) -> None:
    api.reply(
        message([tool_use("toolu_1", "read_ticket")], "tool_use", cache_creation_input_tokens=900),
        message([tool_use("toolu_2", "get_order")], "tool_use", cache_read_input_tokens=900),
        message([text("Shipped.")], "end_turn", cache_read_input_tokens=900),
    )


def cache_controls(value: object) -> int:
    return json.dumps(value).count('"cache_control"')


async def test_the_stable_prefix_carries_the_cache_breakpoints(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    three_turns(api)

    await run_claude(time_skipping_env, model_turns, FakeTools())

    bodies = api.bodies
    assert len(bodies) == 3
    for body in bodies:
        assert body["system"] == [
            {"type": "text", "text": policy.SYSTEM_PROMPT, "cache_control": EPHEMERAL}
        ]
        *others, last = body["tools"]
        assert last["cache_control"] == EPHEMERAL
        assert all("cache_control" not in tool for tool in others)
        # Two breakpoints, both on the prefix; none in the growing conversation.
        assert cache_controls(body["messages"]) == 0
        assert cache_controls(body) == 2
        assert all("strict" not in tool for tool in body["tools"])
    # The prefix is byte-identical from turn to turn, or the cache would never hit.
    prefixes = {json.dumps([body["tools"], body["system"]], sort_keys=True) for body in bodies}
    assert len(prefixes) == 1


async def test_the_actor_is_sent_as_a_hash_never_by_name(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    api.reply(message([text("Shipped.")], "end_turn"))

    await run_claude(time_skipping_env, model_turns, FakeTools(), actor_id="jane.doe")

    ((path, headers, body),) = api.requests
    user_id = body["metadata"]["user_id"]
    assert user_id == actor_hash("demo", "jane.doe")
    assert re.fullmatch(r"[0-9a-f]{32}", user_id)
    assert "jane" not in json.dumps(body) and "jane" not in json.dumps(headers)
    assert user_id != actor_hash("globex", "jane.doe")  # tenants do not share hashes


async def test_headers_path_and_max_tokens(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    api.reply(message([text("Shipped.")], "end_turn"))

    await run_claude(time_skipping_env, model_turns, FakeTools(), max_tokens=777)

    ((path, headers, body),) = api.requests
    assert path == MESSAGES_PATH
    # The key comes from the worker's environment (here the factory), never from history.
    sent_key = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
    assert sent_key == TEST_API_KEY
    # The SDK pins the API version it was generated for.
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", headers["anthropic-version"])
    assert headers["content-type"] == "application/json"
    assert body["max_tokens"] == 777
    assert "stream" not in body or body["stream"] is False


async def test_usage_is_recorded_per_turn_and_priced(
    time_skipping_env: WorkflowEnvironment, api: FakeMessagesApi, model_turns: ModelTurns
) -> None:
    three_turns(api)
    price = ModelPrice(
        input=Decimal("3"),
        output=Decimal("15"),
        cache_write=Decimal("3.75"),
        cache_read=Decimal("0.3"),
    )

    run = await run_claude(time_skipping_env, model_turns, FakeTools(), price=price)

    write = Usage(input_tokens=120, output_tokens=30, cache_creation_input_tokens=900)
    read = Usage(input_tokens=120, output_tokens=30, cache_read_input_tokens=900)
    # (120×3 + 30×15 + 900×3.75) / 1e6 and (120×3 + 30×15 + 900×0.3) / 1e6
    assert run.outcome.turn_usage == [
        TurnUsage(turn=1, usage=write, cost_usd=Decimal("0.004185")),
        TurnUsage(turn=2, usage=read, cost_usd=Decimal("0.00108")),
        TurnUsage(turn=3, usage=read, cost_usd=Decimal("0.00108")),
    ]
    assert run.outcome.cost_usd == Decimal("0.006345")
    assert run.outcome.usage == write + read + read

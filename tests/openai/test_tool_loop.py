"""The tool loop on a local model: the exact body of every request a run sends."""

from __future__ import annotations

import json

from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.model_turn import ModelTurns
from tests.anthropic.wire import RecordingGateway
from tests.openai.chat_server import FakeChatApi, assistant, completion, tool_call
from tests.openai.wire import (
    agent_body,
    calling,
    opening,
    run_local,
    sent_call,
    tool_message,
)
from tests.workflow.fakes import FakeTools
from workflows.contracts import TurnUsage, Usage


async def test_tool_then_answer_with_text_before_the_call(
    time_skipping_env: WorkflowEnvironment,
    api: FakeChatApi,
    model_turns: ModelTurns,
    seeded_engine: Engine,
) -> None:
    api.reply(
        completion(
            assistant("Let me read the ticket.", tool_call("call_01", "read_ticket")),
            "tool_calls",
        ),
        completion(assistant(None, tool_call("call_02", "get_order")), "tool_calls"),
        completion(
            assistant("Your order 4512 is shipped. Tracking number: TRK-88."),
            "stop",
            prompt_tokens=1500,
            cached_tokens=1000,
        ),
    )
    gateway = RecordingGateway(seeded_engine)

    run = await run_local(time_skipping_env, model_turns, gateway, ticket_id="T-4512")

    assert (run.outcome.status, run.outcome.reason) == ("completed", "answered")
    assert run.outcome.final_text == "Your order 4512 is shipped. Tracking number: TRK-88."
    ticket, order = gateway.results["call_01"].content, gateway.results["call_02"].content
    assert "TRK-88" in order  # the real gateway read the seeded store
    first = opening(run.request)
    turn_1 = calling("Let me read the ticket.", sent_call("call_01", "read_ticket"))
    turn_2 = calling("", sent_call("call_02", "get_order"))
    assert api.bodies == [
        agent_body(run.request, [first]),
        agent_body(run.request, [first, turn_1, tool_message("call_01", ticket)]),
        agent_body(
            run.request,
            [
                first,
                turn_1,
                tool_message("call_01", ticket),
                turn_2,
                tool_message("call_02", order),
            ],
        ),
    ]
    # Each turn's usage, cached prompt tokens apart; free at the run's price.
    assert run.outcome.turn_usage[-1] == TurnUsage(
        turn=3, usage=Usage(input_tokens=500, output_tokens=30, cache_read_input_tokens=1000)
    )
    assert run.outcome.cost_usd == 0


async def test_two_calls_in_one_turn_get_one_tool_message_each_in_order(
    time_skipping_env: WorkflowEnvironment, api: FakeChatApi, model_turns: ModelTurns
) -> None:
    api.reply(
        completion(
            assistant(None, tool_call("call_b", "get_order"), tool_call("call_a", "read_ticket")),
            "tool_calls",
        ),
        completion(assistant("Done."), "stop"),
    )
    tools = FakeTools({"get_order": '{"found": false}', "read_ticket": '{"text": "Hi"}'})

    run = await run_local(time_skipping_env, model_turns, tools)

    assert run.outcome.reason == "answered"
    assert api.bodies[1]["messages"][2:] == [
        calling("", sent_call("call_b", "get_order"), sent_call("call_a", "read_ticket")),
        # Right after the calls, one per call id, in the order of the calls.
        tool_message("call_b", '{"found": false}'),
        tool_message("call_a", '{"text": "Hi"}'),
    ]


async def test_a_malformed_arguments_json_is_answered_as_an_error_and_never_run(
    time_skipping_env: WorkflowEnvironment, api: FakeChatApi, model_turns: ModelTurns
) -> None:
    # A small model's slip: the refund's arguments are not JSON. Nothing may be refunded
    # on a guess; the model is told, and may try again or answer.
    malformed = '{"amount": "89.90", "reason": "damaged'
    api.reply(
        completion(
            assistant(
                None, tool_call("call_r", "refund", malformed), tool_call("call_o", "get_order")
            ),
            "tool_calls",
        ),
        completion(assistant("I could not file the refund; a colleague will."), "stop"),
    )
    tools = FakeTools({"get_order": '{"found": true}'})

    run = await run_local(time_skipping_env, model_turns, tools)

    assert (run.outcome.status, run.outcome.reason) == ("completed", "answered")
    assert [call.name for call in tools.calls] == ["get_order"]  # the refund never ran
    assert run.outcome.not_performed == [] and run.outcome.decisions == []
    assert [(record.name, record.ok) for record in run.outcome.tool_calls] == [
        ("refund", False),
        ("get_order", True),
    ]
    kept = json.dumps({"arguments_not_valid_json": malformed})
    refused, answered = api.bodies[1]["messages"][-2:]
    assert api.bodies[1]["messages"][-3] == calling(
        "", sent_call("call_r", "refund", kept), sent_call("call_o", "get_order")
    )
    assert refused["tool_call_id"] == "call_r"
    assert refused["content"].startswith("Error: Invalid arguments for 'refund': ")
    assert "arguments_not_valid_json" in refused["content"]
    assert answered == tool_message("call_o", '{"found": true}')


async def test_a_server_that_reuses_call_ids_cannot_merge_two_calls(
    time_skipping_env: WorkflowEnvironment, api: FakeChatApi, model_turns: ModelTurns
) -> None:
    # Some servers number calls per turn: `call_0` every time. Tool calls and refunds
    # are keyed by their id, so the second `call_0` must not pass for the first.
    api.reply(
        completion(assistant(None, tool_call("call_0", "get_order")), "tool_calls"),
        completion(assistant(None, tool_call("call_0", "get_order")), "tool_calls"),
        completion(assistant("Shipped."), "stop"),
    )
    tools = FakeTools({"get_order": '{"found": true}'})

    run = await run_local(time_skipping_env, model_turns, tools)

    assert run.outcome.reason == "answered"
    first, second = tools.calls
    assert first.tool_use_id == "call_0" and second.tool_use_id != "call_0"
    assert first.idempotency_key != second.idempotency_key
    # The server sees the id the run gave the second call, answered under that id.
    last = api.bodies[2]["messages"]
    assert last[-2] == calling("", sent_call(second.tool_use_id, "get_order"))
    assert last[-1] == tool_message(second.tool_use_id, '{"found": true}')

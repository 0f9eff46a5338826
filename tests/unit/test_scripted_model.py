"""The scripted model: the demo script, the script format, and the model-turn activity."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.model_turn import ModelTurns, build_model_turns
from activities.models.scripted import SCRIPTS_DIR, ScriptedModel
from signoff.config.settings import Settings
from workflows.contracts import (
    Message,
    ModelRef,
    ModelReply,
    ModelRequest,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)

ORDER = {
    "found": True,
    "order_id": "O-1042",
    "status": "shipped",
    "amount_paid": "49.90",
    "currency": "EUR",
    "tracking": "TRK-88",
}


def request(messages: list[Message], script: str = "demo") -> ModelRequest:
    return ModelRequest(
        model=ModelRef(provider="scripted", model_id=script),
        system="You are a support agent.",
        messages=messages,
        tools=[],
        max_tokens=1024,
    )


def opening() -> list[Message]:
    return [Message(role="user", content=[TextBlock(text="Please answer ticket T-1042.")])]


def answered(messages: list[Message], reply: ModelReply, *results: Any) -> list[Message]:
    """The conversation after the tools answered each call of `reply`, in order."""
    calls = [block for block in reply.content if isinstance(block, ToolUseBlock)]
    blocks: list[ToolResultBlock] = []
    for call, result in zip(calls, results, strict=True):
        is_error = isinstance(result, Exception)
        content = str(result) if is_error else json.dumps(result)
        blocks.append(ToolResultBlock(tool_use_id=call.id, content=content, is_error=is_error))
    return [
        *messages,
        Message(role="assistant", content=list(reply.content)),
        Message(role="user", content=list(blocks)),
    ]


def text_of(reply: ModelReply) -> str:
    return " ".join(block.text for block in reply.content if isinstance(block, TextBlock))


async def run_demo(ticket_text: str, order: Any) -> tuple[list[ModelReply], list[Message]]:
    model = ScriptedModel(SCRIPTS_DIR)
    messages = opening()
    first = await model.complete(request(messages))
    messages = answered(messages, first, {"ticket_id": "T-1042", "text": ticket_text})
    second = await model.complete(request(messages))
    messages = answered(messages, second, order)
    last = await model.complete(request(messages))
    return [first, second, last], messages


def write_script(folder: Path, turns: list[dict[str, Any]], name: str = "custom") -> str:
    (folder / f"{name}.json").write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return f"{name}.json"  # relative to the scripts directory, the only place read


def fails_with_script_error(error: pytest.ExceptionInfo[ApplicationError]) -> None:
    assert error.value.type == "ScriptError"
    assert error.value.non_retryable


async def test_demo_found_order_answers_with_the_tracking_number() -> None:
    (first, second, last), _ = await run_demo("Where is my parcel?", ORDER)

    assert [b.name for b in first.content if isinstance(b, ToolUseBlock)] == ["read_ticket"]
    assert isinstance(first.content[0], TextBlock)
    assert first.stop_reason == second.stop_reason == "tool_use"
    assert [b.name for b in second.content if isinstance(b, ToolUseBlock)] == ["get_order"]
    assert last.stop_reason == "end_turn"
    assert "Your order O-1042 is shipped. Tracking number: TRK-88." in text_of(last)
    assert last.model_id == "scripted:demo"


async def test_demo_without_order_asks_for_the_order_number() -> None:
    (*_, last), _ = await run_demo("Where is my parcel?", {"found": False})
    assert "could not find an order" in text_of(last)
    assert "order number from your confirmation email" in text_of(last)
    assert last.stop_reason == "end_turn"


@pytest.mark.parametrize("complaint", ["It arrived DAMAGED.", "The mug is broken"])
async def test_demo_damaged_parcel_proposes_a_full_refund(complaint: str) -> None:
    (*_, last), _ = await run_demo(complaint, ORDER)
    assert last.stop_reason == "tool_use"
    refunds = [b for b in last.content if isinstance(b, ToolUseBlock) and b.name == "refund"]
    assert len(refunds) == 1
    # The template in the tool's arguments is filled from get_order's result.
    assert refunds[0].input["amount"] == "49.90"
    assert "O-1042" in refunds[0].input["reason"]


# What the gate tells the model (workflows/gate_results.py), and what the demo answers:
# only a reviewer's rejection says a colleague reviewed it; an expiry is not a "no".
REFUND_ENDINGS = [
    (
        "Rejected by the reviewer: the refund did not happen. Category: other.",
        "A colleague reviewed the request and could not approve it",
    ),
    (
        "Refused by policy: 89.90 EUR is more than what remains refundable. The refund "
        "did not happen.",
        "Our refund policy does not allow this one",
    ),
    (
        "No decision in time: no reviewer decided on the refund before it expired. The "
        "refund did not happen.",
        "Your refund request is still with our team: nothing has been refunded yet",
    ),
    (
        "The refund did not happen: the store refused it. Do not retry it.",
        "no refund was made for this order. A colleague will contact you",
    ),
]


@pytest.mark.parametrize(("result", "answer"), REFUND_ENDINGS)
async def test_demo_says_why_a_refund_was_not_made(result: str, answer: str) -> None:
    (*_, proposal), messages = await run_demo("It arrived damaged.", ORDER)
    messages = answered(messages, proposal, RuntimeError(result))
    final = await ScriptedModel(SCRIPTS_DIR).complete(request(messages))
    assert answer in text_of(final)
    assert final.stop_reason == "end_turn"
    said = text_of(final)
    if not result.startswith("Rejected by the reviewer"):
        assert "reviewed the request" not in said
    if result.startswith("No decision in time"):
        assert "no refund was made" not in said
    else:
        assert "no refund was made" in said


async def test_demo_does_not_claim_an_unknown_refund_was_refused() -> None:
    (*_, proposal), messages = await run_demo("It arrived damaged.", ORDER)
    unknown = RuntimeError("Refund outcome unknown: a person will check. Do not retry it.")
    messages = answered(messages, proposal, unknown)
    final = await ScriptedModel(SCRIPTS_DIR).complete(request(messages))
    assert "could not confirm whether your refund went through" in text_of(final)
    assert "no refund was made" not in text_of(final)


async def test_demo_reports_an_issued_refund_with_its_reference() -> None:
    (*_, proposal), messages = await run_demo("It arrived damaged.", ORDER)
    issued = {
        "status": "refunded",
        "refund_id": "R-1",
        "order_id": "O-1042",
        "amount": "49.90",
        "currency": "EUR",
    }
    messages = answered(messages, proposal, issued)
    final = await ScriptedModel(SCRIPTS_DIR).complete(request(messages))
    assert "refund of 49.90 EUR for order O-1042 has been issued (reference R-1)" in text_of(final)


async def test_demo_failed_lookup_does_not_invent_an_order() -> None:
    (*_, last), _ = await run_demo("Where is my parcel?", RuntimeError("store unavailable"))
    assert "could not look your order up" in text_of(last)
    assert "?" not in text_of(last)


async def test_ids_and_replies_are_deterministic() -> None:
    replies, messages = await run_demo("Where is my parcel?", ORDER)
    again, _ = await run_demo("Where is my parcel?", ORDER)
    assert replies == again
    ids = [b.id for reply in replies for b in reply.content if isinstance(b, ToolUseBlock)]
    assert ids == ["toolu_s0_0", "toolu_s1_0"]
    usage = replies[-1].usage
    assert usage.input_tokens > replies[0].usage.input_tokens > 0
    assert usage.output_tokens >= 1


async def test_conditions_read_the_latest_result_of_each_tool(tmp_path: Path) -> None:
    def answer(text: str, *when: dict[str, Any]) -> dict[str, Any]:
        return {"when": list(when), "content": [{"type": "text", "text": text}]}

    lookup = {"type": "tool_use", "name": "get_order", "input": {}}
    script = write_script(
        tmp_path,
        [
            {"replies": [{"content": [lookup, lookup]}]},
            {
                "replies": [
                    answer("numeric", {"tool": "get_order", "field": "found", "equals": 1}),
                    answer("null", {"tool": "get_order", "field": "tracking", "equals": None}),
                    answer(
                        "nested {get_order.order.status} {get_order.tracking} {get_order.nope}",
                        {"tool": "get_order", "field": "order.status", "contains": "SHIP"},
                        {"tool": "get_order", "is_error": False},
                    ),
                ]
            },
        ],
    )
    model = ScriptedModel(tmp_path)
    first = await model.complete(request(opening(), script))
    assert [b.id for b in first.content if isinstance(b, ToolUseBlock)] == [
        "toolu_s0_0",
        "toolu_s0_1",
    ]

    async def answer_to(*results: Any) -> str:
        return text_of(await model.complete(request(answered(opening(), first, *results), script)))

    # The latest result decides, not the first one.
    assert await answer_to({"found": True}, {"found": 1}) == "numeric"
    # JSON true is not 1; a null field equals null.
    assert await answer_to({"found": 1}, {"found": True, "tracking": None}) == "null"
    shipped = {"found": True, "tracking": "T-9", "order": {"status": "shipped"}}
    assert await answer_to({"found": 1}, shipped) == "nested shipped T-9 ?"
    # A missing field is not null: nothing matches.
    with pytest.raises(ApplicationError, match="no reply's conditions hold"):
        await answer_to({"found": 1}, {"found": True})


async def test_declared_usage_and_stop_reason_are_used_as_is(tmp_path: Path) -> None:
    reply = {
        "content": [{"type": "text", "text": "cut"}],
        "stop_reason": "max_tokens",
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    script = write_script(tmp_path, [{"replies": [reply]}])
    result = await ScriptedModel(tmp_path).complete(request(opening(), script))
    assert result.stop_reason == "max_tokens"
    assert result.usage == Usage(input_tokens=10, output_tokens=5)


async def test_exhausted_script_is_a_non_retryable_script_error() -> None:
    model = ScriptedModel(SCRIPTS_DIR)
    first = await model.complete(request(opening(), "answer-only"))
    messages = [*opening(), Message(role="assistant", content=list(first.content))]
    messages.append(Message(role="user", content=[TextBlock(text="And?")]))
    with pytest.raises(ApplicationError, match="has 1 turn") as error:
        await model.complete(request(messages, "answer-only"))
    fails_with_script_error(error)


async def test_no_matching_reply_is_a_script_error(tmp_path: Path) -> None:
    when = [{"tool": "get_order", "field": "found", "equals": True}]
    script = write_script(tmp_path, [{"replies": [{"when": when, "content": []}]}])
    with pytest.raises(ApplicationError, match="no reply's conditions hold") as error:
        await ScriptedModel(tmp_path).complete(request(opening(), script))
    fails_with_script_error(error)


@pytest.mark.parametrize(
    ("script", "contents", "message"),
    [
        ("missing", None, "no script 'missing'.*Scripts shipped: answer-only, demo"),
        ("../etc/passwd", None, "not a script name"),
        ("../../pyproject.json", None, "'..' are refused"),
        ("/etc/hosts.json", None, "absolute paths"),
        ("~/secrets.json", None, "not a script name"),
        ("broken", "{not json", "not a valid script"),
        ("wrong", '{"turns": [{"replies": [{"content": [{"type": "image"}]}]}]}', "turns.0"),
    ],
)
async def test_unusable_scripts_are_script_errors(
    tmp_path: Path, script: str, contents: str | None, message: str
) -> None:
    if contents is not None:
        (tmp_path / f"{script}.json").write_text(contents, encoding="utf-8")
        scripts_dir = tmp_path
    else:
        scripts_dir = SCRIPTS_DIR
    with pytest.raises(ApplicationError, match=message) as error:
        await ScriptedModel(scripts_dir).complete(request(opening(), script))
    fails_with_script_error(error)


# --- the activity -----------------------------------------------------------------


async def test_model_turn_activity_answers_from_the_scripted_model() -> None:
    turns = build_model_turns(Settings(anthropic_api_key=None))
    reply = await ActivityEnvironment().run(turns.model_turn, request(opening()))
    assert [b.name for b in reply.content if isinstance(b, ToolUseBlock)] == ["read_ticket"]


async def test_anthropic_without_a_key_fails_without_retrying() -> None:
    turns = build_model_turns(Settings(anthropic_api_key=None))
    anthropic = ModelRequest(
        model=ModelRef(provider="anthropic", model_id="claude-sonnet-4-5"),
        system="",
        messages=opening(),
        tools=[],
        max_tokens=64,
    )
    with pytest.raises(ApplicationError, match="no ANTHROPIC_API_KEY") as error:
        await ActivityEnvironment().run(turns.model_turn, anthropic)
    assert error.value.type == "ModelAuthenticationFailed"
    assert error.value.non_retryable


async def test_anthropic_adapter_is_built_once_from_the_worker_settings() -> None:
    turns = build_model_turns(Settings(anthropic_api_key=SecretStr("sk-test")))
    anthropic = request(opening()).model_copy(
        update={"model": ModelRef(provider="anthropic", model_id="claude-sonnet-4-5")}
    )
    adapter = turns.adapter_for(anthropic)
    assert adapter is turns.adapter_for(anthropic)
    await adapter.close()  # type: ignore[attr-defined]


class NeverAnswers:
    def __init__(self) -> None:
        self.cancelled = asyncio.Event()

    async def complete(self, request: ModelRequest) -> ModelReply:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        raise AssertionError("unreachable")


async def test_model_turn_heartbeats_and_cancels_the_pending_call() -> None:
    model = NeverAnswers()
    turns = ModelTurns({"scripted": lambda: model}, heartbeat_interval_seconds=0.01)
    environment = ActivityEnvironment()
    heartbeats: list[tuple[Any, ...]] = []
    environment.on_heartbeat = lambda *details: heartbeats.append(details)

    running = asyncio.ensure_future(environment.run(turns.model_turn, request(opening())))
    while len(heartbeats) < 2:
        await asyncio.sleep(0.01)
    environment.cancel()

    with pytest.raises(asyncio.CancelledError):
        await running
    assert model.cancelled.is_set()


async def test_a_symlink_out_of_the_scripts_directory_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    write_script(outside, [{"replies": [{"content": [{"type": "text", "text": "secret"}]}]}])
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "link.json").symlink_to(outside / "custom.json")
    with pytest.raises(ApplicationError, match="outside the scripts directory") as error:
        await ScriptedModel(scripts).complete(request(opening(), "link.json"))
    fails_with_script_error(error)


async def test_the_worker_reads_scripts_from_its_scripts_dir_setting(tmp_path: Path) -> None:
    reply = {"content": [{"type": "text", "text": "from my folder"}]}
    write_script(tmp_path, [{"replies": [reply]}], name="mine")
    turns = build_model_turns(Settings(anthropic_api_key=None, scripts_dir=tmp_path))
    answer = await ActivityEnvironment().run(turns.model_turn, request(opening(), "mine"))
    assert text_of(answer) == "from my folder"
    with pytest.raises(ApplicationError, match="no script 'demo'"):
        await ActivityEnvironment().run(turns.model_turn, request(opening(), "demo"))

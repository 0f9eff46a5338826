"""`send_reply`, the second irreversible tool: the reply leaves the company. On the
built-in profile it is `auto` (sent at once, the docs' first run unchanged); on the
shipped strict profile a reviewer sees the exact draft and confirms it, and nothing is
sent until then; a rejection sends nothing and tells the model. The gate is not about
money."""

from __future__ import annotations

import json

from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment

from activities.store.database import use_session
from activities.store.schema import DecisionRow
from signoff.config.profiles import BUILTIN_PROFILES, STRICT_PROFILES, load_profile_file
from tests.store.outbox import replies_of
from tests.workflow.approvals import decide, decision, gate_run, pending_actions
from tests.workflow.fakes import FakeModel, text_reply, tool_reply
from tests.workflow.test_python_tools import on_profile, tool_results
from workflows.contracts import RunRequest

DRAFT = "Hello Ms Martin, your kettle ships again tomorrow. Kind regards, Support"
REPLY = ("send_reply", {"text": DRAFT})


async def test_the_built_in_profile_sends_the_reply_without_a_reviewer(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    built_in = load_profile_file(BUILTIN_PROFILES)
    model = FakeModel().enqueue(tool_reply(REPLY), text_reply("Replied."))
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(built_in)) as handle:
        outcome = await handle.result()
    assert outcome.status == "completed"
    (sent,) = replies_of(seeded_engine, "demo", "T-1042")
    assert sent.text == DRAFT
    (result,) = tool_results(model, 1)
    assert json.loads(result.content) == {"status": "sent", "reply_id": sent.id}


async def test_the_strict_profile_waits_for_a_reviewer_to_confirm_the_exact_draft(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    strict = load_profile_file(STRICT_PROFILES)
    model = FakeModel().enqueue(tool_reply(REPLY), text_reply("Replied."))
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(strict)) as handle:
        (action,) = await pending_actions(handle)
        assert (action.tool, action.arguments) == ("send_reply", {"text": DRAFT})
        assert replies_of(seeded_engine, "demo", "T-1042") == []  # nothing sent yet
        assert (
            await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        ).status == ("approved")
        assert (await handle.result()).status == "completed"
    (sent,) = replies_of(seeded_engine, "demo", "T-1042")
    assert sent.text == DRAFT


async def test_a_rejected_draft_is_never_sent_and_the_model_is_told(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    strict = load_profile_file(STRICT_PROFILES)
    model = FakeModel().enqueue(tool_reply(REPLY), text_reply("I will rewrite it."))
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(strict)) as handle:
        (action,) = await pending_actions(handle)
        no = decision(seeded_engine, "alice", action.action_hash, "reject", "Too casual")
        assert (await decide(handle, no)).status == "rejected"
        assert (await handle.result()).status == "completed"
    assert replies_of(seeded_engine, "demo", "T-1042") == []
    (result,) = tool_results(model, 1)
    assert result.is_error and "the call to send_reply did not happen" in result.content


async def test_one_turns_writes_take_effect_in_the_models_order_beside_its_reads(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    built_in = load_profile_file(BUILTIN_PROFILES)
    texts = [f"Reply {number}: your parcel is on its way." for number in range(1, 5)]
    turn = tool_reply(
        ("send_reply", {"text": texts[0]}),
        ("read_ticket", {}),
        *(("send_reply", {"text": text}) for text in texts[1:]),
    )
    model = FakeModel().enqueue(turn, text_reply("Replied."))
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(built_in)) as handle:
        assert (await handle.result()).status == "completed"
    sent = replies_of(seeded_engine, "demo", "T-1042")
    assert [reply.text for reply in sent] == texts  # one at a time, in the model's order
    results = tool_results(model, 1)  # grouped, in the model's order
    assert [r.is_error for r in results] == [False] * 5
    assert "ticket_id" in json.loads(results[1].content)


async def test_a_run_the_service_did_not_start_sends_no_automatic_reply(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    """Someone who reaches Temporal starts signoff's own workflow on its task queue, with
    a request of their own: signoff's code runs it, its model asks for a reply, and the
    built-in profile sends replies without a reviewer. The effect finds no record of the
    run in the store, sends nothing, and says so on the audit."""
    built_in = load_profile_file(BUILTIN_PROFILES)
    model = FakeModel().enqueue(tool_reply(REPLY), text_reply("Replied."))
    overrides = {**on_profile(built_in), "recorded": False}
    async with gate_run(time_skipping_env, model, seeded_engine, **overrides) as handle:
        assert (await handle.result()).status == "completed"
    assert replies_of(seeded_engine, "demo", "T-1042") == []
    (result,) = tool_results(model, 1)
    assert result.is_error and "The store knows no run" in result.content
    (refused,) = refusal_reasons(seeded_engine, handle.id)
    assert "signoff's service did not start it" in refused


async def test_a_run_started_with_another_request_than_the_recorded_one_sends_no_reply(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    """The service recorded a run for one ticket; a run under the same id starts for
    another (say, a ticket whose customer the attacker wants to write to)."""
    built_in = load_profile_file(BUILTIN_PROFILES)
    model = FakeModel().enqueue(tool_reply(REPLY), text_reply("Replied."))

    def elsewhere(request: RunRequest) -> RunRequest:
        return request.model_copy(update={"ticket_id": "T-2001"})

    overrides = {**on_profile(built_in), "recorded": elsewhere}
    async with gate_run(time_skipping_env, model, seeded_engine, **overrides) as handle:
        assert (await handle.result()).status == "completed"
    assert replies_of(seeded_engine, "demo", "T-1042") == []
    (refused,) = refusal_reasons(seeded_engine, handle.id)
    assert "did not start with the request signoff's service recorded" in refused


def refusal_reasons(engine: Engine, run_id: str) -> list[str]:
    """The reasons of the run's `refused` audit rows."""
    with use_session(engine) as session:
        return list(
            session.scalars(
                select(DecisionRow.reason)
                .where(DecisionRow.run_id == run_id, DecisionRow.kind == "refused")
                .order_by(DecisionRow.seq)
            )
        )

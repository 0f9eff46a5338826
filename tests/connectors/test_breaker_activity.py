"""The helpdesk's breaker through the effect activity, on the time-skipping server: a
helpdesk that keeps failing opens it after N failures (that reply's outcome is
unknown, and the run ends); while it is open a new reply no one approved is refused at
once with a result that says so, nothing is written or sent, and a read in the same
turn still answers; a reply a reviewer approved waits for the helpdesk instead, and
goes out once it is back; after the cool-down one trial reply goes through and closes
it."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment

from activities.store.connector_breakers import record_failure
from activities.store.database import use_session
from activities.store.schema import DecisionRow
from signoff.config.profiles import BUILTIN_PROFILES, STRICT_PROFILES, load_profile_file
from tests.connectors.helpdesk_server import helpdesk_server
from tests.connectors.replies import POLICY, MovableClock, helpdesk_effects, webhook
from tests.store.outbox import replies_of
from tests.workflow.approvals import decide, decision, gate_run, pending_actions
from tests.workflow.fakes import FakeModel, text_reply, tool_reply
from tests.workflow.test_effect_waits import waiting_for_platform
from tests.workflow.test_python_tools import on_profile, tool_results

BUILT_IN = on_profile(load_profile_file(BUILTIN_PROFILES))
REPLY = ("send_reply", {"text": "Your parcel left our warehouse this morning."})
BREAKER = "helpdesk:demo"


async def test_failures_open_the_breaker_then_replies_are_refused_and_reads_still_answer(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    with helpdesk_server() as helpdesk:
        helpdesk.fail_next(*[503] * 10)
        effects, breakers = helpdesk_effects(seeded_engine, webhook(helpdesk.url))
        first = FakeModel().enqueue(tool_reply(REPLY), text_reply("A colleague will check."))
        async with gate_run(
            time_skipping_env, first, seeded_engine, effects=effects, **BUILT_IN
        ) as handle:
            assert (await handle.result()).status == "completed"  # ended, never hung
        # Two attempts reached the helpdesk and opened the breaker; the rest of the
        # effect's attempts were stopped by it, without a request.
        assert len(helpdesk.requests) == POLICY.failures_to_open
        state_name, state = await breakers.state(BREAKER)
        assert state_name == "open" and state.last_error == "HTTP 503"
        (unknown,) = tool_results(first, 1)
        assert unknown.is_error and "may or may not have happened" in unknown.content

        second = FakeModel().enqueue(
            tool_reply(REPLY, ("read_ticket", {})), text_reply("The reply must wait.")
        )
        async with gate_run(
            time_skipping_env, second, seeded_engine, effects=effects, **BUILT_IN
        ) as handle:
            assert (await handle.result()).status == "completed"
        assert len(helpdesk.requests) == POLICY.failures_to_open  # nothing more was sent
    refused, read = tool_results(second, 1)
    assert refused.is_error and f"the {BREAKER} connector is switched off" in refused.content
    assert "the reply was not sent" in refused.content
    assert not read.is_error and "T-1042" in read.content  # reads keep working
    # Only the first run's outbox row: the refused reply wrote nothing but its audit row.
    assert len(replies_of(seeded_engine, "demo", "T-1042")) == 1
    with use_session(seeded_engine) as session:
        reasons = session.scalars(select(DecisionRow.reason).where(DecisionRow.kind == "refused"))
        assert any("switched off" in reason for reason in reasons)


async def test_after_the_cooldown_one_trial_reply_goes_through_and_closes_the_breaker(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    clock = MovableClock()
    for _ in range(POLICY.failures_to_open):
        record_failure(seeded_engine, BREAKER, POLICY, clock(), "HTTP 503")
    with helpdesk_server() as helpdesk:
        effects, breakers = helpdesk_effects(seeded_engine, webhook(helpdesk.url), clock)
        assert (await breakers.state(BREAKER))[0] == "open"
        clock.ahead = POLICY.cooldown + timedelta(seconds=1)
        assert (await breakers.state(BREAKER))[0] == "half_open"
        model = FakeModel().enqueue(tool_reply(REPLY), text_reply("Replied."))
        async with gate_run(
            time_skipping_env, model, seeded_engine, effects=effects, **BUILT_IN
        ) as handle:
            assert (await handle.result()).status == "completed"
    assert len(helpdesk.posted) == 1
    (sent,) = tool_results(model, 1)
    assert not sent.is_error
    assert (await breakers.state(BREAKER))[0] == "closed"


async def test_an_approved_reply_waits_for_the_helpdesk_and_goes_out_once_it_is_back(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    clock = MovableClock()
    for _ in range(POLICY.failures_to_open):
        record_failure(seeded_engine, BREAKER, POLICY, clock(), "HTTP 503")
    strict_file = load_profile_file(STRICT_PROFILES)  # a reviewer confirms replies
    strict = on_profile(strict_file)
    with helpdesk_server() as helpdesk:
        effects, breakers = helpdesk_effects(
            seeded_engine, webhook(helpdesk.url), clock, profiles=strict_file
        )
        model = FakeModel().enqueue(tool_reply(REPLY), text_reply("Replied."))
        async with gate_run(
            time_skipping_env, model, seeded_engine, effects=effects, **strict
        ) as handle:
            (action,) = await pending_actions(handle)
            await decide(handle, decision(seeded_engine, "alice", action.action_hash))
            waiting = await waiting_for_platform(handle)
            assert waiting.connector == BREAKER and not helpdesk.posted
            clock.ahead = POLICY.cooldown + timedelta(seconds=1)  # the helpdesk is back
            assert (await handle.result()).status == "completed"
        assert len(helpdesk.posted) == 1
    (sent,) = tool_results(model, 1)
    assert not sent.is_error
    assert (await breakers.state(BREAKER))[0] == "closed"
    with use_session(seeded_engine) as session:
        kinds = list(session.scalars(select(DecisionRow.kind)))
    assert "refused" not in kinds  # the approval was never voided


async def test_an_approved_reply_gives_up_after_the_helpdesks_give_up_after(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    """The connector's `give_up_after` (the helpdesk connectors file) ends the wait long
    before the approval would: nothing is sent, then or later."""
    clock = MovableClock()
    for _ in range(POLICY.failures_to_open):
        record_failure(seeded_engine, BREAKER, POLICY, clock(), "HTTP 503")
    strict_file = load_profile_file(STRICT_PROFILES)
    with helpdesk_server() as helpdesk:
        patient = webhook(helpdesk.url).model_copy(update={"give_up_after": timedelta(minutes=20)})
        effects, _ = helpdesk_effects(seeded_engine, patient, clock, profiles=strict_file)
        model = FakeModel().enqueue(tool_reply(REPLY), text_reply("A colleague will follow up."))
        async with gate_run(
            time_skipping_env, model, seeded_engine, effects=effects, **on_profile(strict_file)
        ) as handle:
            (action,) = await pending_actions(handle)
            await decide(handle, decision(seeded_engine, "alice", action.action_hash))
            waiting = await waiting_for_platform(handle)
            assert (waiting.give_up_at - waiting.since) == timedelta(minutes=20)
            assert (await handle.result()).status == "completed"
        assert not helpdesk.posted and not helpdesk.requests
    (told,) = tool_results(model, 1)
    assert told.is_error and "approved but not carried out" in told.content
    assert f"{BREAKER} was unavailable for 20 min" in told.content

"""Reviewers are told when a refund waits (workflows/reviewer_notices.py), checked on
the time-skipping server against a local HTTP receiver: one notice per event (waiting,
the reminder at 80 % of the time to expiry, the expiry), each with its idempotency key
and a link, never ticket text or names; a receiver that answers 500 is retried a
bounded number of times and never fails the run; a worker without a webhook schedules
no notice at all."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from activities.refunds import RefundActivities
from activities.reviewer_notifier import IDEMPOTENCY_HEADER
from activities.store import get_ticket
from signoff.config.settings import Settings
from signoff.wiring.worker_activities import worker_activities
from tests.workflow.approvals import (
    APPROVAL_RUN_DEADLINE,
    TEST_KEYS,
    decide,
    decision,
    pending_actions,
    refunded,
    store_parts,
)
from tests.workflow.fakes import (
    GENEROUS_LIMITS,
    FakeModel,
    generous_limits,
    limited,
    new_task_queue,
    replay,
    run_request,
    start,
    text_reply,
    tool_reply,
    worker,
)
from tests.workflow.test_effect_waits import PlatformDown
from tests.workflow.webhook_receiver import Receiver, webhook_receiver
from workflows.contracts import RunOutcome
from workflows.reviewer_notices import NOTIFY_ACTIVITY, NOTIFY_MAX_ATTEMPTS
from workflows.run_limits import RunLimits, RunLimitsRequest

AGENT_REASON = "The vase arrived broken."
REFUND = ("refund", {"amount": "89.90", "reason": AGENT_REASON})
UI_BASE = "https://signoff.example"
PAST_REMINDER = timedelta(hours=20)  # the reminder goes at 80 % of 24 h: 19 h 12 min
POST_SECONDS = 15.0


def limits_with_webhook(request: RunLimitsRequest) -> RunLimits:
    return GENEROUS_LIMITS.model_copy(update={"notify_reviewers": True})


@asynccontextmanager
async def notified_run(
    env: WorkflowEnvironment,
    model: FakeModel,
    engine: Engine,
    receiver: Receiver | None,
    tmp_path: Path,
    refunds: RefundActivities | None = None,
    **overrides: Any,
) -> AsyncIterator[WorkflowHandle[Any, Any]]:
    refunds = refunds or RefundActivities(engine, TEST_KEYS)
    settings = Settings(
        home=tmp_path, notify_webhook_url=receiver.url if receiver else None, ui_base_url=UI_BASE
    )
    task_queue = new_task_queue()
    request = run_request(
        await env.get_current_time(),
        ticket_id="T-1042",
        deadline=APPROVAL_RUN_DEADLINE,
        **overrides,
    )
    limits = limits_with_webhook if receiver else generous_limits
    parts = store_parts(engine, model, refunds=refunds, settings=settings)
    async with worker(
        env.client,
        task_queue,
        model,
        activities=worker_activities(parts, replacing=[limited(model, limits)]),
    ):
        yield await start(env.client, request, task_queue)


async def posts(receiver: Receiver, count: int) -> None:
    """Wait (in real time) until the receiver has `count` posts."""
    deadline = time.monotonic() + POST_SECONDS
    while len(receiver.posts) < count:
        assert time.monotonic() < deadline, f"{len(receiver.posts)} posts, not {count}"
        await asyncio.sleep(0.02)


async def test_waiting_reminder_and_expiry_each_notify_once_without_ticket_text(
    isolated_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    # Its own server: the clock moves 24 h (see tests/workflow/conftest.py).
    env = isolated_env
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("A colleague will call."))
    with webhook_receiver() as receiver:
        async with notified_run(env, model, seeded_engine, receiver, tmp_path) as handle:
            (action,) = await pending_actions(handle)
            await posts(receiver, 1)
            assert receiver.kinds() == ["waiting"]  # no reminder before 80 %
            await env.sleep(PAST_REMINDER)
            await posts(receiver, 2)
            outcome = await handle.result()  # the clock runs on to the expiry
        await replay(handle)

    assert isinstance(outcome, RunOutcome) and outcome.status == "completed"
    assert refunded(seeded_engine, "C-1042") == []
    assert receiver.kinds() == ["waiting", "reminder", "expired"]
    keys = [post.headers[IDEMPOTENCY_HEADER] for post in receiver.posts]
    assert keys == [f"{handle.id}:{action.action_hash}:{kind}" for kind in receiver.kinds()]
    waiting, reminder, expired = (post.body for post in receiver.posts)
    assert waiting["text"].startswith("Refund 89.90 EUR on order C-1042 waits for a decision")
    assert "tenant demo, confirm: one reviewer" in waiting["text"]
    assert "23 h 59 min left" in waiting["text"] or "24 h 0 min left" in waiting["text"]
    assert waiting["text"].endswith(f"Decide: {UI_BASE}/approvals/{handle.id}")
    facts = waiting["signoff"]
    assert (facts["amount"], facts["currency"], facts["order"]) == ("89.90", "EUR", "C-1042")
    assert (facts["mode"], facts["tenant"]) == ("confirm", "demo")
    assert reminder["text"].startswith("Reminder: Refund 89.90 EUR on order C-1042 still waits")
    assert "4 h 4" in reminder["signoff"]["time_left"]  # sent at 19 h 12 min of 24 h
    assert expired["text"].startswith("Expired: Refund 89.90 EUR on order C-1042")
    assert f"{UI_BASE}/runs/{handle.id}" in expired["text"]
    # Nothing the customer wrote, no name, not the agent's reason: the link is the way in.
    ticket = get_ticket(seeded_engine, "demo", "T-1042")
    assert ticket is not None
    for post in receiver.posts:
        for secret in (
            ticket.text,
            ticket.customer_name,
            AGENT_REASON,
            *(word for word in ticket.text.split() if len(word) >= 6),
        ):
            assert secret not in post.raw, (secret, post.raw)


async def test_a_receiver_answering_500_never_fails_the_run(
    isolated_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    env = isolated_env
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Your refund is on its way."))
    with webhook_receiver(status=500) as receiver:
        async with notified_run(env, model, seeded_engine, receiver, tmp_path) as handle:
            (action,) = await pending_actions(handle)
            await posts(receiver, 1)
            await decide(handle, decision(seeded_engine, "alice", action.action_hash))
            outcome = await handle.result()
        await replay(handle)

    assert isinstance(outcome, RunOutcome)
    assert outcome.status == "completed" and refunded(seeded_engine, "C-1042")
    # Retried a bounded number of times, the same notice under the same key, then given up.
    assert len(receiver.posts) == NOTIFY_MAX_ATTEMPTS
    assert receiver.kinds() == ["waiting"] * NOTIFY_MAX_ATTEMPTS
    assert {post.headers[IDEMPOTENCY_HEADER] for post in receiver.posts} == {
        f"{handle.id}:{action.action_hash}:waiting"
    }
    assert len({post.raw for post in receiver.posts}) == 1  # a retry repeats the body


async def test_a_decision_before_the_reminder_ends_the_notices(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Done."))
    with webhook_receiver() as receiver:
        async with notified_run(env, model, seeded_engine, receiver, tmp_path) as handle:
            (action,) = await pending_actions(handle)
            await posts(receiver, 1)
            await decide(handle, decision(seeded_engine, "bob", action.action_hash))
            await handle.result()
    assert receiver.kinds() == ["waiting"]


async def test_without_a_webhook_no_notice_is_scheduled(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("Done."))
    async with notified_run(env, model, seeded_engine, None, tmp_path) as handle:
        (action,) = await pending_actions(handle)
        await decide(handle, decision(seeded_engine, "bob", action.action_hash))
        await handle.result()
    history = await handle.fetch_history()
    scheduled = [
        event.activity_task_scheduled_event_attributes.activity_type.name
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert scheduled and NOTIFY_ACTIVITY not in scheduled


async def test_an_approved_refund_given_up_tells_who_approved_it(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    """The platform stays unavailable until the approval runs out (workflows/
    effect_waits.py): the reviewer who approved it is told it was not carried out, in
    words for a support person, with a link to the run, and nothing else is sent."""
    env = time_skipping_env
    model = FakeModel().enqueue(tool_reply(REFUND), text_reply("A colleague will follow up."))
    down = PlatformDown(seeded_engine, down=None)
    with webhook_receiver() as receiver:
        async with notified_run(
            env, model, seeded_engine, receiver, tmp_path, down, approval_ttl_seconds=3600
        ) as handle:
            (action,) = await pending_actions(handle)
            await posts(receiver, 1)
            await decide(handle, decision(seeded_engine, "alice", action.action_hash))
            outcome = await handle.result()  # the run waits for the notice before it ends
        await replay(handle)

    assert isinstance(outcome, RunOutcome) and refunded(seeded_engine, "C-1042") == []
    assert receiver.kinds() == ["waiting", "not_carried_out"]
    told = receiver.posts[1]
    assert told.headers[IDEMPOTENCY_HEADER] == f"{handle.id}:{action.action_hash}:not_carried_out"
    text = told.body["text"]
    assert text.startswith(
        "Approved but not carried out: Refund 89.90 EUR on order C-1042 (tenant demo), "
        "approved by alice. payments:demo was unavailable from "
    )
    assert "Nothing was refunded. The customer may still be waiting for it" in text
    assert text.endswith(f"Run: {UI_BASE}/runs/{handle.id}")
    facts = told.body["signoff"]
    assert (facts["approved_by"], facts["connector"]) == (["alice"], "payments:demo")
    ticket = get_ticket(seeded_engine, "demo", "T-1042")
    assert ticket is not None
    for secret in (ticket.text, ticket.customer_name, AGENT_REASON):
        assert secret not in told.raw

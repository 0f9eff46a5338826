"""Four eyes cannot be split: on T-3107 (310.00, threshold 200.00), refunds asked in one
turn, in successive turns or by concurrent runs are judged on the order's exposure
(refunded + pending + the call), so one reviewer approving everything moves at most
200.00; the refund that would cross the threshold waits for a second reviewer.

Each case runs with 155.00 + 155.00 and with 3 x 100.00. Alice approves every action
she is shown until nothing changes; then Bob rejects what still waits, and the runs end.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import AsyncExitStack
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import Engine
from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.testing import WorkflowEnvironment

from tests.store.holds import list_pending_refunds
from tests.workflow.approvals import (
    POLL_SECONDS,
    WAIT_SECONDS,
    decide,
    decision,
    gate_run,
    pending_actions,
    refunded,
)
from tests.workflow.fakes import FakeModel, replay, text_reply, tool_reply
from workflows.actions import PendingAction
from workflows.agent_run import AgentRun
from workflows.approval_policy import APPROVAL_POLICY_VERSION
from workflows.contracts import RunOutcome

THRESHOLD = Decimal("200.00")
# amounts, what alice alone gets refunded, how many actions then wait for a second reviewer
SPLITS = {
    "155+155": (["155.00", "155.00"], [Decimal("155.00")], 1),
    "3x100": (["100.00", "100.00", "100.00"], [Decimal("100.00")], 2),
}


def refund(amount: str) -> tuple[str, dict[str, str]]:
    return ("refund", {"amount": amount, "reason": "The espresso machine leaks."})


async def approve_alone(
    handles: list[WorkflowHandle[Any, Any]],
    engine: Engine,
    *,
    refunded_then: list[Decimal],
    waiting: int,
) -> tuple[list[PendingAction], dict[str, PendingAction]]:
    """Alice approves whatever waits without her approval until the ledger holds
    `refunded_then` and `waiting` actions wait, all approved by her. Returns those and
    every action seen on the way."""
    seen: dict[str, PendingAction] = {}
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        shown = [
            (handle, action)
            for handle in handles
            for action in (await handle.query(AgentRun.state)).pending_actions
        ]
        seen.update({action.action_hash: action for _, action in shown})
        todo = [
            (handle, action)
            for handle, action in shown
            if "alice" not in [approval.reviewer_id for approval in action.approvals]
        ]
        # An action alice's approval fully approved is on its way to the ledger, not waiting.
        settled = all(len(a.approvals) < a.required_approvals for _, a in shown)
        if (
            not todo
            and settled
            and len(shown) == waiting
            and refunded(engine, "C-3107") == refunded_then
        ):
            return [action for _, action in shown], seen
        for handle, action in todo:
            try:
                await decide(handle, decision(engine, "alice", action.action_hash))
            except WorkflowUpdateFailedError:
                pass  # voided between the query and the decision; it comes back renewed
        assert time.monotonic() < deadline, (refunded(engine, "C-3107"), shown)
        await asyncio.sleep(POLL_SECONDS)


async def bob_rejects_the_rest(
    handles: list[WorkflowHandle[Any, Any]], engine: Engine, waiting: list[PendingAction]
) -> list[RunOutcome]:
    by_hash = {a.action_hash: a for a in waiting}
    for handle in handles:
        for action in (await handle.query(AgentRun.state)).pending_actions:
            assert action.action_hash in by_hash
            sent = decision(engine, "bob", action.action_hash, "reject", reason="one at a time")
            await decide(handle, sent)
    outcomes = [await handle.result() for handle in handles]
    for handle in handles:
        await replay(handle)
    assert all(isinstance(outcome, RunOutcome) for outcome in outcomes)
    # Made, voided and rejected actions alike: no hold outlives its action.
    assert list_pending_refunds(engine, "demo", "C-3107") == []
    return outcomes


def assert_second_reviewer_awaited(waiting: list[PendingAction], engine: Engine) -> None:
    assert sum(refunded(engine, "C-3107")) <= THRESHOLD
    for action in waiting:
        assert (action.mode, action.required_approvals) == ("review", 2)
        assert [approval.reviewer_id for approval in action.approvals] == ["alice"]
        assert action.policy_version == APPROVAL_POLICY_VERSION
        assert action.note.endswith(f"above the threshold of {THRESHOLD}."), (
            action.note
        )  # the reviewer reads why a small refund needs four eyes


def judged(actions: list[PendingAction]) -> list[tuple[int, str]]:
    return sorted((action.pending_minor, action.mode) for action in actions)


def expected_modes(amounts: list[str]) -> list[tuple[int, str]]:
    """Held one after the other: each counts the ones before it."""
    modes, before = [], Decimal(0)
    for amount in map(Decimal, amounts):
        modes.append((int(before * 100), "review" if before + amount > THRESHOLD else "confirm"))
        before += amount
    return modes


@pytest.mark.parametrize("split", SPLITS)
async def test_calls_of_one_turn_cannot_split_four_eyes(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, split: str
) -> None:
    amounts, refunded_then, waiting_then = SPLITS[split]
    model = FakeModel().enqueue(
        tool_reply(*(refund(amount) for amount in amounts)), text_reply("A colleague decides.")
    )
    async with gate_run(time_skipping_env, model, seeded_engine, ticket_id="T-3107") as handle:
        first = await pending_actions(handle, count=len(amounts))
        waiting, _ = await approve_alone(
            [handle], seeded_engine, refunded_then=refunded_then, waiting=waiting_then
        )
        await bob_rejects_the_rest([handle], seeded_engine, waiting)

    assert judged(first) == expected_modes(amounts)
    review = max(first, key=lambda action: action.pending_minor)
    assert review.note.startswith(
        f"Four eyes: with 0.00 refunded and {Decimal(review.pending_minor) / 100:.2f} pending "
        "on order C-3107"
    )
    assert_second_reviewer_awaited(waiting, seeded_engine)
    assert refunded(seeded_engine, "C-3107") == refunded_then


@pytest.mark.parametrize("split", SPLITS)
async def test_successive_turns_cannot_split_four_eyes(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, split: str
) -> None:
    amounts, _, _ = SPLITS[split]
    # One refund per turn, each made before the next is asked: alice alone reaches the
    # threshold and no further.
    refunded_then = [Decimal(a) for a in amounts[:-1]]
    model = FakeModel().enqueue(
        *(tool_reply(refund(amount)) for amount in amounts), text_reply("A colleague decides.")
    )
    async with gate_run(time_skipping_env, model, seeded_engine, ticket_id="T-3107") as handle:
        waiting, seen = await approve_alone(
            [handle], seeded_engine, refunded_then=refunded_then, waiting=1
        )
        await bob_rejects_the_rest([handle], seeded_engine, waiting)

    turns = sorted(seen.values(), key=lambda action: action.state.refunded_minor)
    assert [(a.state.refunded_minor, a.pending_minor, a.mode) for a in turns] == [
        (int(sum(map(Decimal, amounts[:index])) * 100), 0, mode)
        for index, (_, mode) in enumerate(expected_modes(amounts))
    ]
    assert_second_reviewer_awaited(waiting, seeded_engine)
    assert refunded(seeded_engine, "C-3107") == refunded_then


@pytest.mark.parametrize("split", SPLITS)
async def test_concurrent_runs_on_one_order_cannot_split_four_eyes(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, split: str
) -> None:
    amounts, refunded_then, waiting_then = SPLITS[split]
    async with AsyncExitStack() as stack:
        handles = [
            await stack.enter_async_context(
                gate_run(
                    time_skipping_env,
                    FakeModel().enqueue(tool_reply(refund(amount)), text_reply("Decided.")),
                    seeded_engine,
                    ticket_id="T-3107",
                )
            )
            for amount in amounts
        ]
        first = [(await pending_actions(handle))[0] for handle in handles]
        waiting, _ = await approve_alone(
            handles, seeded_engine, refunded_then=refunded_then, waiting=waiting_then
        )
        outcomes = await bob_rejects_the_rest(handles, seeded_engine, waiting)

    assert len({action.action_hash for action in first}) == len(amounts)
    assert judged(first) == expected_modes(amounts)
    assert_second_reviewer_awaited(waiting, seeded_engine)
    assert refunded(seeded_engine, "C-3107") == refunded_then
    assert sum(len(outcome.effects_performed) for outcome in outcomes) == len(refunded_then)


async def test_a_cancelled_run_releases_its_hold(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(refund("155.00")), text_reply("Never asked."))
    async with gate_run(time_skipping_env, model, seeded_engine, ticket_id="T-3107") as handle:
        (action,) = await pending_actions(handle)
        held_then = list_pending_refunds(seeded_engine, "demo", "C-3107")
        await handle.cancel()
        outcome = await handle.result()
    await replay(handle)

    assert held_then == [action.action_hash]
    assert list_pending_refunds(seeded_engine, "demo", "C-3107") == []
    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, [d.kind for d in outcome.decisions]) == ("cancelled", ["cancelled"])

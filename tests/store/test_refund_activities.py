"""The activity wrappers: results stay results, store errors are final, outages retry."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.refunds import RefundActivities
from activities.store import refunds as ledger
from tests.store.commands import refund_command
from workflows.actions import ActionStateRequest, RefundCommand, RefundResult


async def test_read_action_state(store: Engine) -> None:
    activities = RefundActivities(store)
    state = await ActivityEnvironment().run(
        activities.read_action_state, ActionStateRequest(tenant_id="demo", ticket_id="T-2210")
    )
    assert (state.order_id, state.paid_minor) == ("C-2210", 4500)


async def test_execute_refund_and_its_refusal(store: Engine) -> None:
    activities = RefundActivities(store)
    environment = ActivityEnvironment()
    done = await environment.run(
        activities.execute_refund, refund_command(store, key="k-1", amount_minor=4500)
    )
    refused = await environment.run(
        activities.execute_refund, refund_command(store, key="k-2", amount_minor=100)
    )
    assert (done.status, refused.status) == ("refunded", "refused")


async def test_unknown_tenant_is_not_retried(store: Engine) -> None:
    activities = RefundActivities(store)
    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(
            activities.read_action_state, ActionStateRequest(tenant_id="nobody", ticket_id="T-1")
        )
    assert caught.value.non_retryable
    assert caught.value.type == "UnknownTenant"
    assert "nobody" in caught.value.message


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
async def test_a_locked_database_propagates_for_temporal_to_retry(
    store: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    def locked(engine: Engine, command: RefundCommand) -> RefundResult:
        raise OperationalError("BEGIN IMMEDIATE", {}, Exception("database is locked"))

    monkeypatch.setattr(ledger, "execute_refund", locked)
    with pytest.raises(OperationalError):
        await ActivityEnvironment().run(
            RefundActivities(store).execute_refund,
            refund_command(store, key="k", amount_minor=100),
        )

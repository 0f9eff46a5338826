"""Which round of the read model's mending comes next: a full one when a worker starts,
after a failed round and every `read_model_full_reconcile_seconds`; an incremental one
(the runs closed since) between them. And the incremental round's visibility query."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any, cast

import pytest

from signoff.service.waiting_reconcile import Reconciler, closed_query

HOUR = timedelta(hours=1)


def reconciler() -> Reconciler:
    return Reconciler(cast(Any, None), cast(Any, None), timedelta(minutes=1), HOUR)


def test_the_first_round_is_full_then_incremental_until_the_full_interval() -> None:
    mending = reconciler()
    start = datetime.now(UTC)
    assert mending.next_is_full(start)

    mending.last_full = mending.last_round = start
    assert not mending.next_is_full(start + timedelta(minutes=10))
    assert not mending.next_is_full(start + HOUR - timedelta(seconds=1))
    assert mending.next_is_full(start + HOUR)


async def test_a_failed_round_makes_the_next_one_full() -> None:
    class Unreachable:
        def list_workflows(self, **_: Any) -> Any:
            raise RuntimeError("connection refused")

    mending = Reconciler(cast(Any, Unreachable()), cast(Any, None), timedelta(minutes=1), HOUR)
    start = datetime.now(UTC)
    mending.last_full = mending.last_round = start
    assert not mending.next_is_full(start)

    with pytest.raises(RuntimeError, match="connection refused"):
        await mending.round()  # an incremental round, and it fails

    assert mending.next_is_full(datetime.now(UTC))


def test_the_closed_query_names_the_runs_closed_since_in_utc() -> None:
    paris = timezone(timedelta(hours=1))
    since = datetime(2026, 3, 4, 13, 5, 6, 7000, tzinfo=paris)
    assert closed_query(since) == (
        "WorkflowType = 'AgentRun' AND CloseTime >= '2026-03-04T12:05:06.007000Z'"
    )

"""What the history service raises when Temporal answers with an error: the faces catch
the service's exceptions, never Temporal's `RPCError`.

A refused visibility query is `QueryRejected`, a run that is not there `RunNotFound`,
and any other error (unavailable, permission denied...) `TemporalRefused`, each with the
server's message.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.service import RPCError, RPCStatusCode

from signoff.service.handles import Runs
from signoff.service.history_export import (
    QueryRejected,
    TemporalRefused,
    count_matching,
    export_matching,
    history_document,
)
from signoff.service.history_gates import open_run_gates
from signoff.service.run_reading import RunNotFound

DOWN = "the frontend is down"


class RefusingClient:
    """A Temporal client whose every call is answered with `error`."""

    def __init__(self, status: RPCStatusCode) -> None:
        self.error = RPCError(DOWN, status, b"")

    def get_workflow_handle(self, workflow_id: str, *, run_id: str | None = None) -> Any:
        return self

    async def fetch_history(self) -> Any:
        raise self.error

    async def count_workflows(self, query: str) -> Any:
        raise self.error

    def list_workflows(self, query: str) -> AsyncIterator[Any]:
        return self._listing()

    async def _listing(self) -> AsyncIterator[Any]:
        raise self.error
        yield  # an async generator that fails on its first item


def runs_answering(status: RPCStatusCode) -> Runs:
    return Runs(RefusingClient(status))  # type: ignore[arg-type]


async def test_a_history_temporal_will_not_give_is_temporal_refused() -> None:
    with pytest.raises(TemporalRefused, match=DOWN):
        await history_document(runs_answering(RPCStatusCode.UNAVAILABLE), "run-1")
    with pytest.raises(RunNotFound):
        await history_document(runs_answering(RPCStatusCode.NOT_FOUND), "run-1")


@pytest.mark.parametrize(
    ("status", "raised"),
    [
        (RPCStatusCode.INVALID_ARGUMENT, QueryRejected),
        (RPCStatusCode.UNAVAILABLE, TemporalRefused),
        (RPCStatusCode.PERMISSION_DENIED, TemporalRefused),
    ],
)
async def test_a_listing_is_refused_with_the_services_exception(
    status: RPCStatusCode, raised: type[Exception], tmp_path: Path
) -> None:
    runs = runs_answering(status)
    with pytest.raises(raised, match=DOWN):
        await count_matching(runs, "WorkflowType = 'AgentRun'")
    with pytest.raises(raised, match=DOWN):
        await export_matching(runs, "WorkflowType = 'AgentRun'", tmp_path, None, lambda path: None)
    with pytest.raises(raised, match=DOWN):
        await open_run_gates(runs)

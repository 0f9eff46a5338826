"""Which runs a reviewer may see: their tenant's, and no other's. The one tenant check of
the run page, the API's run reads, the live stream and every decision of the UI.

A run of another tenant is "not found", exactly as a run that does not exist, and it is
checked twice: on the visibility record before the run is queried at all (its state is
never read for someone else's tenant), and on the tenant the run itself reports.
"""

from __future__ import annotations

import re

from temporalio.service import RPCError

from signoff.service.pending import run_state, run_tenant
from signoff.service.run_control import Runs
from signoff.service.run_terms import RunNotFound
from workflows.contract_base import IDENTIFIER_PATTERN
from workflows.contracts import RunState


class RunUnanswered(Exception):
    """The run exists in the reviewer's tenant but nothing answered its query: no worker."""


async def run_for_tenant(runs: Runs, run_id: str, tenant_id: str) -> RunState:
    """The run's state, if it is a run of `tenant_id`. Raises RunNotFound (no such run,
    or another tenant's: the same answer) or RunUnanswered."""
    if not re.match(IDENTIFIER_PATTERN, run_id):
        raise RunNotFound(run_id)
    try:
        if await run_tenant(runs, run_id) != tenant_id:
            raise RunNotFound(run_id)
        state = await run_state(runs, run_id)
    except RPCError:
        raise RunUnanswered(run_id) from None
    if state is None:
        raise RunUnanswered(run_id)
    if state.tenant_id != tenant_id:
        raise RunNotFound(run_id)
    return state

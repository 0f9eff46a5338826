"""The worker's interceptor that puts every caller refusal of any activity on the audit.

Design note. An activity that acts for a run refuses a call from any workflow but that
run (`activities/caller.py`, `NotItsRun`), and the refusal used to reach only the
worker's log. A refusal must be provable later from the store alone, so this
interceptor, around every activity and local activity of the worker, writes one
`refused` row for each `NotItsRun` (activities/store/activity_refusals.py: who called,
which activity for which run, why), then lets the refusal go on as it was. One place,
so an activity added later is covered without a line of its own. The row goes to the
chain of the tenant the call names (its `tenant_id`, or the tenant of a run id made by
`run_id_for`); a call that names no tenant the store holds is logged only. A store that
cannot take the row does not hide the refusal: the error is logged and the refusal
raised as it was.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from sqlalchemy import Engine
from temporalio import activity
from temporalio.exceptions import ApplicationError
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from activities.caller import NOT_ITS_RUN, caller_run_id
from activities.store.activity_refusals import record_refusal

logger = logging.getLogger("signoff.worker")
RUN_PREFIX = "run-"


def named_tenant(argument: Any) -> str | None:
    """The tenant a call names: its `tenant_id`, or its run id's (`run-TENANT-REQUEST`,
    a tenant id holds no '-')."""
    tenant = getattr(argument, "tenant_id", None)
    if isinstance(tenant, str) and tenant:
        return tenant
    run_id = getattr(argument, "run_id", None)
    if isinstance(run_id, str) and run_id.startswith(RUN_PREFIX):
        tenant, dash, _ = run_id.removeprefix(RUN_PREFIX).partition("-")
        return tenant if dash and tenant else None
    return None


class RefusalAudit(Interceptor):
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _Refusals(next, self._engine)


class _Refusals(ActivityInboundInterceptor):
    def __init__(self, next: ActivityInboundInterceptor, engine: Engine) -> None:
        super().__init__(next)
        self._engine = engine

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        try:
            return await super().execute_activity(input)
        except ApplicationError as error:
            if error.type == NOT_ITS_RUN:
                await self._record(input, str(error))
            raise

    async def _record(self, input: ExecuteActivityInput, why: str) -> None:
        argument = input.args[0] if input.args else None
        tenant = named_tenant(argument)
        if tenant is None:
            logger.warning("refused %s: %s (no tenant named)", activity.info().activity_type, why)
            return
        run_id = getattr(argument, "run_id", "")
        ticket_id = getattr(argument, "ticket_id", None)
        try:
            await asyncio.to_thread(
                record_refusal,
                self._engine,
                tenant_id=tenant,
                run_id=run_id if isinstance(run_id, str) else "",
                ticket_id=ticket_id if isinstance(ticket_id, str) else "",
                activity=activity.info().activity_type,
                what=f"for run '{run_id}'",
                why=why,
                caller_run_id=caller_run_id(),
            )
        except Exception:
            logger.exception("a refusal of %s could not be audited", activity.info().activity_type)

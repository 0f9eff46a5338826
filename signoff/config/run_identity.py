"""Which run and tenant a workflow id names, for logs, spans and metrics.

A run's id is `run-TENANT-REQUEST` and a triage's `triage-TENANT-REQUEST`
(`workflows/contracts.py`, `run_id_for`); a tenant id holds no '-', so the tenant is
the second part. Read from the id rather than from the run's input: an activity's
input does not always carry the tenant, and every activity knows its workflow id.
"""

from __future__ import annotations

from typing import NamedTuple

RUN_ID_PREFIXES = ("run", "triage")


class RunIdentity(NamedTuple):
    run_id: str
    tenant: str | None


def run_identity(workflow_id: str) -> RunIdentity:
    prefix, _, rest = workflow_id.partition("-")
    tenant, separator, _ = rest.partition("-")
    if prefix in RUN_ID_PREFIXES and separator and tenant:
        return RunIdentity(workflow_id, tenant)
    return RunIdentity(workflow_id, None)

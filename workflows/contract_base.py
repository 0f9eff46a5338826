"""The base every contract model shares, kept apart so that contract modules can
import it without importing each other."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

# The task queue a worker polls and a run is started on, by default (SIGNOFF_TASK_QUEUE).
TASK_QUEUE = "signoff"

IDENTIFIER_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"
# A tenant id is an identifier without '-': run ids are `run-{tenant}-{request}`, and a
# '-' in the tenant would let two tenants name the same run (`demo` + `x-1` and
# `demo-x` + `1`). Everything after the first '-' past the prefix is the request id.
TENANT_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:]{0,127}$"


class Contract(BaseModel):
    """Strict by default: a field nobody declared is a bug, not data."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


Identifier = Annotated[str, Field(pattern=IDENTIFIER_PATTERN)]


def tenant_id_problem(tenant_id: str) -> str | None:
    """Why `tenant_id` is not a valid tenant id, in words a user can act on; or None."""
    if re.match(TENANT_ID_PATTERN, tenant_id):
        return None
    if "-" in tenant_id:
        return (
            f"Invalid tenant id '{tenant_id}': it may not contain '-' (run ids are "
            "run-TENANT-REQUEST, and a '-' would let two tenants name the same run). "
            "Use letters, digits, '.', '_' or ':'."
        )
    return (
        f"Invalid tenant id '{tenant_id}': use 1 to 128 letters, digits, '.', '_' or ':', "
        "starting with a letter or digit."
    )


def _check_tenant_id(tenant_id: str) -> str:
    problem = tenant_id_problem(tenant_id)
    if problem is not None:
        raise ValueError(problem)
    return tenant_id


TenantId = Annotated[str, AfterValidator(_check_tenant_id)]

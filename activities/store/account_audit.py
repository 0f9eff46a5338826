"""Account changes on the record: each one, and each refused attempt, is an audit row.

Design note. The rows go through the audit's one writer (`decisions.append_event`), in
the change's own transaction, so a change and its row commit together or not at all,
and they are chained with the tenant's decisions: `signoff audit verify` covers them.
The tenant is the changed account's (each tenant's audit shows who changed its
reviewers). `reviewer_id` is who acted: the administrator, the claimed name of a
refused attempt, or the first administrator of a bootstrap. `reason` says what, with
the target; `decided_at` when. Such a row belongs to no run: `run_id`, `ticket_id` and
`action_hash` are empty.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy.orm import Session

from activities.store.decisions import (
    ACCOUNT_CHANGE,
    ACCOUNT_REFUSED,
    NewEvent,
    append_event,
    event_key,
)
from activities.store.schema import DecisionRow


def append_account_event(
    session: Session,
    tenant_id: str,
    who: str | None,
    what: str,
    now: datetime,
    *,
    refused: bool = False,
) -> DecisionRow:
    kind = ACCOUNT_REFUSED if refused else ACCOUNT_CHANGE
    return append_admin_event(session, tenant_id, kind, who, what, now)


def append_admin_event(
    session: Session, tenant_id: str, kind: str, who: str | None, what: str, now: datetime
) -> DecisionRow:
    """An administrator's act (an account's change, a standing rule's), which belongs to
    no run, as the module note says."""
    return append_event(
        session,
        NewEvent(
            event_key=event_key(kind, uuid.uuid4().hex),  # every change is an event of its own
            tenant_id=tenant_id,
            kind=kind,
            run_id="",
            ticket_id="",
            action_hash="",
            decided_at=now,
            reviewer_id=who,
            reason=what,
        ),
    )

"""The runs signoff's service started: one row each, written by the starter, never changed.

Design note. Anyone who reaches the Temporal frontend can start a workflow of signoff's
type on its task queue, with a request of their own: signoff's workflow code then runs
it on signoff's workers. Most of what such a run can reach is guarded by a reviewer's
signed decision, which names the run. An effect no reviewer approves (a tool every
agent runs `auto`, such as the built-in profile's `send_reply`) has no proof to check,
and a standing rule's grant names no run, so both ask where the run came from: the
starter (service/run_requests.py) writes the run's id and the fingerprint of what it
asked for here, in the store, which a workflow cannot write; the effect reads the
run's own start from Temporal and acts only when the two agree
(activities/run_provenance.py, used by auto_effects.py and rule_callers.py). The
fingerprint covers what
decides what the run may do: its tenant, ticket, actor, model, profile, offered tools
and prompt catalog.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine, String
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from activities.store.database import use_session, write_transaction
from activities.store.schema import HASH_LENGTH, ID_LENGTH, KEY_LENGTH, Base, UtcDateTime
from workflows.approval_policy import canonical_hash
from workflows.contracts import RunRequest, run_id_for


class StartedRun(Base):
    __tablename__ = "started_runs"

    run_id: Mapped[str] = mapped_column(String(KEY_LENGTH), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    fingerprint: Mapped[str] = mapped_column(String(HASH_LENGTH))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


def run_fingerprint(request: RunRequest) -> str:
    """The SHA-256 of what decides what a run may do, as its request says it."""
    return canonical_hash(
        request.model_dump(
            mode="json",
            include={
                "tenant_id",
                "actor_id",
                "request_id",
                "ticket_id",
                "model",
                "profile",
                "tools",
                "prompt_digest",
            },
        )
    )


def record_started_run(engine: Engine, request: RunRequest, now: datetime | None = None) -> None:
    """Write the run `request` starts, unless the store holds it already (a retried
    request names the same run; a second request under the same id keeps the first's
    fingerprint, as Temporal keeps the first run)."""
    run_id = run_id_for(request.tenant_id, request.request_id)
    try:
        with write_transaction(engine) as session:
            if session.get(StartedRun, run_id) is None:
                session.add(
                    StartedRun(
                        run_id=run_id,
                        tenant_id=request.tenant_id,
                        fingerprint=run_fingerprint(request),
                        created_at=now or datetime.now(UTC),
                    )
                )
    except IntegrityError:
        pass  # another starter wrote the same run between our read and our insert


def started_run_fingerprint(engine: Engine, run_id: str) -> str | None:
    """The fingerprint the starter wrote for `run_id`; None for a run it never started."""
    with use_session(engine) as session:
        row = session.get(StartedRun, run_id)
        return None if row is None else row.fingerprint

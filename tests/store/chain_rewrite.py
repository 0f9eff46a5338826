"""The attack the chain alone cannot see: rewrite one row, then rehash every row after
it, as anyone with write access to the `decisions` table (and the chain's published
construction) can. On PostgreSQL the append-only trigger is disabled first, which only
the table's owner or a superuser can do: the test cluster's superuser here."""

from __future__ import annotations

from sqlalchemy import Engine, select, text

from activities.store.database import write_transaction
from activities.store.decision_chain import GENESIS, row_hash
from activities.store.schema import DecisionRow


def rewrite_and_rehash(engine: Engine, tenant_id: str, seq: int, reason: str) -> None:
    """Give the row at `seq` another reason and make the whole chain verify again."""
    with write_transaction(engine) as session:
        if engine.dialect.name == "postgresql":
            session.execute(text("ALTER TABLE decisions DISABLE TRIGGER decisions_append_only"))
        chain = session.scalars(
            select(DecisionRow).where(DecisionRow.tenant_id == tenant_id).order_by(DecisionRow.seq)
        ).all()
        prev = GENESIS
        for row in chain:
            if row.seq == seq:
                row.reason = reason
            row.prev_hash = prev
            row.row_hash = row_hash(prev, row)
            prev = row.row_hash
        session.flush()
        if engine.dialect.name == "postgresql":
            session.execute(text("ALTER TABLE decisions ENABLE TRIGGER decisions_append_only"))


def delete_from(engine: Engine, tenant_id: str, seq: int) -> None:
    """Remove the tenant's rows from `seq` on: the chain that is left is intact."""
    with write_transaction(engine) as session:
        if engine.dialect.name == "postgresql":
            session.execute(text("ALTER TABLE decisions DISABLE TRIGGER decisions_append_only"))
        session.execute(
            text("DELETE FROM decisions WHERE tenant_id = :tenant AND seq >= :seq"),
            {"tenant": tenant_id, "seq": seq},
        )
        if engine.dialect.name == "postgresql":
            session.execute(text("ALTER TABLE decisions ENABLE TRIGGER decisions_append_only"))


def edit_row(engine: Engine, tenant_id: str, seq: int, reason: str) -> None:
    """Change one row's reason and nothing else: its own hash no longer matches."""
    with write_transaction(engine) as session:
        if engine.dialect.name == "postgresql":
            session.execute(text("ALTER TABLE decisions DISABLE TRIGGER decisions_append_only"))
        session.execute(
            text("UPDATE decisions SET reason = :reason WHERE tenant_id = :tenant AND seq = :seq"),
            {"reason": reason, "tenant": tenant_id, "seq": seq},
        )
        if engine.dialect.name == "postgresql":
            session.execute(text("ALTER TABLE decisions ENABLE TRIGGER decisions_append_only"))


def set_proof(engine: Engine, tenant_id: str, seq: int, proof: str | None) -> None:
    """Replace one row's stored signed decision (outside the hash: the chain holds)."""
    with write_transaction(engine) as session:
        if engine.dialect.name == "postgresql":
            session.execute(text("ALTER TABLE decisions DISABLE TRIGGER decisions_append_only"))
        session.execute(
            text("UPDATE decisions SET proof = :proof WHERE tenant_id = :tenant AND seq = :seq"),
            {"proof": proof, "tenant": tenant_id, "seq": seq},
        )
        if engine.dialect.name == "postgresql":
            session.execute(text("ALTER TABLE decisions ENABLE TRIGGER decisions_append_only"))

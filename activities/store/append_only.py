"""PostgreSQL refuses to change or remove an audit row: a trigger, made with the table.

The application never updates or deletes a `decisions` row; this makes the database
say so too: UPDATE, DELETE and TRUNCATE on the table raise. The trigger belongs to the
table's owner, the role that migrates; the application's runtime role has only INSERT
and SELECT on the table and can neither change rows nor drop the trigger
(`runtime_grants.py`). The owner or a superuser still can; the hash chain
(`decision_chain.py`) and signed heads (`chain_heads.py`) show that a row was changed.
The trigger is installed by the table's `after_create` event, so it exists wherever
the table does.
(DDL text is %-formatted by SQLAlchemy: a literal % is written %%.)
SQLite has no roles to keep apart, so there the chain and the heads are the guard.
"""

from __future__ import annotations

from sqlalchemy import DDL, event

from activities.store.schema import DecisionRow

REFUSE_FUNCTION = DDL(  # type: ignore[no-untyped-call]
    """
CREATE OR REPLACE FUNCTION signoff_decisions_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the decisions table is append-only: %% refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql
"""
)
REFUSE_ROW_CHANGES = DDL(  # type: ignore[no-untyped-call]
    "CREATE TRIGGER decisions_append_only BEFORE UPDATE OR DELETE ON decisions "
    "FOR EACH ROW EXECUTE FUNCTION signoff_decisions_append_only()"
)
REFUSE_TRUNCATE = DDL(  # type: ignore[no-untyped-call]
    "CREATE TRIGGER decisions_no_truncate BEFORE TRUNCATE ON decisions "
    "FOR EACH STATEMENT EXECUTE FUNCTION signoff_decisions_append_only()"
)

for statement in (REFUSE_FUNCTION, REFUSE_ROW_CHANGES, REFUSE_TRUNCATE):
    event.listen(DecisionRow.__table__, "after_create", statement.execute_if(dialect="postgresql"))

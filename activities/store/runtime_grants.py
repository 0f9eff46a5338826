"""What the application's database role may do, granted by the owner role that migrates.

Design note. On PostgreSQL the store has two roles. The owner runs the migrations
(`signoff store migrate` with SIGNOFF_MIGRATION_DATABASE_URL) and so owns every table,
the audit's trigger with them. The runtime role (SIGNOFF_DATABASE_URL: the workers, the
UI, the CLI) gets exactly what the code does with each table, below, and nothing else:
no TRUNCATE, no TRIGGER, no REFERENCES, no DDL (it owns nothing, so it cannot ALTER
or DROP a table or its trigger). On `decisions`, the audit, only INSERT and SELECT:
whoever holds the application's credentials can add to the audit and read it, never
rewrite it, with or without the trigger. The ledger (`refunds`, `refund_settlements`)
is insert-only too. A row lock (`SELECT ... FOR UPDATE`, which the refund and the
audit's chain lock take on orders, tenants and reviewers) needs UPDATE on its table.

`grant_runtime_role` first revokes everything the role holds on each table, then
grants the list: run after every migration, it leaves the role with exactly this
list, whatever it had before. A table missing from the list gets nothing, so a new
table must be added here (tests/store/test_runtime_role.py holds the list to the
models). SQLite has no roles: nothing here applies to it.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

READ_APPEND = ("SELECT", "INSERT")
# Row locks need UPDATE (see the note); these rows are also edited in place.
READ_APPEND_EDIT = ("SELECT", "INSERT", "UPDATE")
READ_WRITE = ("SELECT", "INSERT", "UPDATE", "DELETE")
RUNTIME_PRIVILEGES: dict[str, tuple[str, ...]] = {
    "alembic_version": ("SELECT",),  # each start checks the schema's revision
    "decisions": READ_APPEND,  # the audit: appended, never changed
    "refunds": READ_APPEND,  # the ledger
    "refund_settlements": READ_APPEND,
    "tickets": READ_APPEND,
    # The built-in helpdesk's outbox; a reply's delivery to the tenant's helpdesk is
    # set on its row once.
    "customer_replies": READ_APPEND_EDIT,
    "intake_deliveries": READ_APPEND,  # helpdesk webhook deliveries, by source and event
    "connector_breakers": READ_WRITE,  # each write connector's breaker, reset by deleting
    "tenants": READ_APPEND_EDIT,  # the audit's chain lock (FOR NO KEY UPDATE)
    "orders": READ_APPEND_EDIT,  # a refund's lock on its order (FOR UPDATE)
    "reviewers": READ_APPEND_EDIT,  # passwords, roles, tokens, disabling
    "decision_nonces": READ_APPEND_EDIT,  # a nonce's effect, set once
    "tool_effects": READ_APPEND_EDIT,  # a tool call claimed, then finished with its output
    "pending_refunds": READ_WRITE,  # exposure holds, released
    "waiting_actions": READ_WRITE,  # the inbox's read model
    "ui_sessions": READ_WRITE,  # sessions, ended
    "api_tokens": READ_APPEND_EDIT,  # issued, then revoked in place; never deleted
    "passkeys": READ_APPEND_EDIT,  # registered, then each use's sign count; never deleted
    "payment_links": READ_APPEND_EDIT,  # an order linked to its payment, relinked
    "slack_links": READ_WRITE,  # a Slack user linked to a reviewer, unlinked by deleting
    "slack_requests": READ_WRITE,  # Slack signatures taken; pruned past the window
    "slack_link_codes": READ_APPEND_EDIT,  # issued, then used once
    "email_links": READ_APPEND_EDIT,  # issued, then used once; kept as the record
    "reviewer_languages": READ_WRITE,  # a reviewer's UI language, changed or cleared
    "standing_rules": READ_APPEND_EDIT,  # made, then its uses counted and revoked in place
    "standing_rule_uses": READ_APPEND,  # each effect a rule approved
    "prompt_catalogs": READ_APPEND,  # written once by a run's starter, never changed
    "started_runs": READ_APPEND,  # each run the service started, written once by its starter
    "insight_days": READ_APPEND_EDIT,  # the insight's days, added to as the audit grows
}


class RuntimeRoleIsOwner(ValueError):
    """The runtime role is the role that migrates: it would own the audit."""


def grant_runtime_role(connection: Connection, role: str) -> dict[str, tuple[str, ...]]:
    """Leave `role` with exactly RUNTIME_PRIVILEGES on the tables that exist, USAGE on the
    schema and on its sequences (an id's next value). Returns what was granted."""
    if role == connection.execute(text("SELECT current_user")).scalar_one():
        raise RuntimeRoleIsOwner(role)
    quote = connection.dialect.identifier_preparer.quote
    grantee = quote(role)
    schema = connection.execute(text("SELECT current_schema()")).scalar_one()
    tables = connection.execute(
        text("SELECT tablename FROM pg_tables WHERE schemaname = :schema"), {"schema": schema}
    ).scalars()
    granted: dict[str, tuple[str, ...]] = {}
    connection.execute(text(f"GRANT USAGE ON SCHEMA {quote(schema)} TO {grantee}"))
    for table in sorted(tables):
        name = f"{quote(schema)}.{quote(table)}"
        connection.execute(text(f"REVOKE ALL ON TABLE {name} FROM {grantee}"))
        privileges = RUNTIME_PRIVILEGES.get(table, ())
        if privileges:
            connection.execute(text(f"GRANT {', '.join(privileges)} ON TABLE {name} TO {grantee}"))
        granted[table] = privileges
    # USAGE is nextval (an INSERT's id); no UPDATE, so no setval.
    connection.execute(
        text(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {quote(schema)} FROM {grantee}")
    )
    connection.execute(text(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA {quote(schema)} TO {grantee}"))
    return granted

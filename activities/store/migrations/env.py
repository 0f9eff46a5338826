"""Alembic's environment: always on the connection the store's migrator hands over.

`schema_migrations.migrate` opens the transaction (and takes the lock) before it calls
Alembic, so the revisions run inside it: two processes starting at once migrate one
after the other, and a failed revision leaves the database as it was.
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()

"""Prompt catalogs (workflows/prompt_catalog.py): each written once, keyed by its hash.

Design note. A row is never changed or deleted: the runtime role may only insert and
read it (runtime_grants.py), and a catalog already there is left as it is, so that a
run that started on it reads, days later, the very text it started on. The row keeps
the canonical bytes themselves, not a re-serialization: reading it back hashes the
stored text again, and a row edited behind our back (or a digest nobody wrote) is
refused by name, never offered to a model. An auditor reads what a run's model was
offered from the store alone: `read_catalog(engine, digest)`, the digest taken from
the run's request.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine, String, Text, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from activities.store.database import use_session, write_transaction
from activities.store.errors import StoreError
from activities.store.schema import HASH_LENGTH, Base, UtcDateTime
from workflows.prompt_catalog import PromptCatalog, catalog_digest


class PromptCatalogRow(Base):
    __tablename__ = "prompt_catalogs"

    digest: Mapped[str] = mapped_column(String(HASH_LENGTH), primary_key=True)
    content: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class CatalogMissing(StoreError):
    def __init__(self, digest: str) -> None:
        self.digest = digest
        super().__init__(
            f"No prompt catalog {digest} in the store: the run names a catalog its starter "
            "never wrote here (another store?). Start the run again through the service."
        )


class CatalogTampered(StoreError):
    def __init__(self, digest: str, found: str) -> None:
        self.digest = digest
        super().__init__(
            f"The store's prompt catalog {digest} hashes to {found}: its row was changed "
            "after it was written. It is not offered to a model; restore it from a backup."
        )


def save_catalog(engine: Engine, catalog: PromptCatalog, now: datetime | None = None) -> str:
    """Write `catalog` unless the store holds it already; its digest. A row already there
    is never rewritten (a row that no longer matches its digest is refused when read)."""
    canonical = catalog.canonical()
    digest = catalog_digest(canonical)
    with use_session(engine) as session:
        if session.get(PromptCatalogRow, digest) is not None:
            return digest  # the usual case: every run of an agent shares its catalog
    try:
        with write_transaction(engine) as session:
            if session.get(PromptCatalogRow, digest) is None:
                session.add(
                    PromptCatalogRow(
                        digest=digest,
                        content=canonical.decode(),
                        created_at=now or datetime.now(UTC),
                    )
                )
    except IntegrityError:
        # Another starter wrote the same digest between our read and our insert (on
        # PostgreSQL): the same bytes, since the key is their hash.
        pass
    return digest


def read_catalog(engine: Engine, digest: str) -> PromptCatalog:
    """The catalog named `digest`, its stored text hashed again; CatalogMissing or
    CatalogTampered when it cannot be trusted."""
    with use_session(engine) as session:
        content = session.scalar(
            select(PromptCatalogRow.content).where(PromptCatalogRow.digest == digest)
        )
    if content is None:
        raise CatalogMissing(digest)
    found = catalog_digest(content.encode())
    if found != digest:
        raise CatalogTampered(digest, found)
    return PromptCatalog.model_validate_json(content)

"""The helpdesk files: the intake's signing secrets, and each tenant's reply connector.

Both are JSON files that only their owner may read (mode 0600), named by settings
(SIGNOFF_INTAKE_SECRETS on the server that takes webhooks, SIGNOFF_HELPDESK_CONNECTORS
on the workers), so that each process holds only the secrets it uses.

The intake file maps a tenant to its sources, each with one or more secrets: the first
is current, the others still accepted while a rotation is under way. A secret belongs
to one tenant: the tenant of a delivery is the one whose secret verified it, never a
field of the body, so the same secret under two tenants is refused at load.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from signoff.config.secret_files import (
    MIN_SECRET_BYTES,
    read_private_json,
    rotation_list,
    short_secret_bytes,
)
from signoff.helpdesks.registry import ConnectorSettings, known_kinds
from signoff.intake import known_sources
from workflows.contract_base import tenant_id_problem

# An intake source's name, as the registry knows it (signoff/intake): `generic`,
# `zendesk`, or an installed source's.
IntakeSource = str


class HelpdeskConfigError(ValueError):
    """A helpdesk file that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class IntakeSecret:
    tenant_id: str
    source: IntakeSource
    secret: str


@dataclass(frozen=True)
class IntakeSecrets:
    entries: tuple[IntakeSecret, ...] = ()

    def of_source(self, source: IntakeSource) -> list[IntakeSecret]:
        return [entry for entry in self.entries if entry.source == source]

    def values(self) -> list[str]:
        return [entry.secret for entry in self.entries]


# A tenant's reply connector: a kind of the registry (signoff/helpdesks), validated by
# that kind's own model.
HelpdeskConnector = ConnectorSettings


def load_intake_secrets(path: Path | None) -> IntakeSecrets:
    """The file's secrets; none when `path` is None (the intake then refuses every
    delivery as signed by no known secret)."""
    if path is None:
        return IntakeSecrets()
    document = read_private_json(path, "SIGNOFF_INTAKE_SECRETS", HelpdeskConfigError)
    if not isinstance(document, dict):
        raise HelpdeskConfigError(f"{path}: expected an object of tenants, e.g. {_EXAMPLE}.")
    entries: list[IntakeSecret] = []
    for tenant_id, sources in document.items():
        problem = tenant_id_problem(tenant_id) if isinstance(tenant_id, str) else "not text"
        if problem is not None:
            raise HelpdeskConfigError(f"{path}: tenant {tenant_id!r}: {problem}.")
        if not isinstance(sources, dict) or not sources:
            raise HelpdeskConfigError(
                f"{path}: tenant '{tenant_id}' needs an object of sources, e.g. {_EXAMPLE}."
            )
        for source, secrets in sources.items():
            entries += _source_secrets(path, tenant_id, source, secrets)
    seen: dict[str, str] = {}
    for entry in entries:
        other = seen.setdefault(entry.secret, entry.tenant_id)
        if other != entry.tenant_id:
            raise HelpdeskConfigError(
                f"{path}: tenants '{other}' and '{entry.tenant_id}' share a secret; a "
                "secret must name one tenant. Give each its own."
            )
    return IntakeSecrets(tuple(entries))


def load_helpdesk_connectors(path: Path | None) -> dict[str, HelpdeskConnector]:
    """Tenant -> its helpdesk connector, each validated by the model its `kind` declares
    in the registry; empty when `path` is None."""
    if path is None:
        return {}
    document = read_private_json(path, "SIGNOFF_HELPDESK_CONNECTORS", HelpdeskConfigError)
    if not isinstance(document, dict):
        raise HelpdeskConfigError(f"{path}: expected an object of tenants, each with its kind.")
    return {tenant: _connector(path, tenant, entry) for tenant, entry in document.items()}


def _connector(path: Path, tenant_id: str, entry: object) -> HelpdeskConnector:
    problem = tenant_id_problem(tenant_id)
    if problem is not None:
        raise HelpdeskConfigError(f"{path}: tenant {tenant_id!r}: {problem}.")
    name = entry.get("kind") if isinstance(entry, dict) else None
    kind = known_kinds().get(name) if isinstance(name, str) else None
    if kind is None:
        raise HelpdeskConfigError(
            f"{path}: {tenant_id}.kind: {name!r} is not a kind of helpdesk installed here; "
            f"use one of: {', '.join(known_kinds())}."
        )
    try:
        return kind.settings_model().model_validate(entry)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in (tenant_id, kind.name, *first["loc"]))
        raise HelpdeskConfigError(f"{path}: {where}: {first['msg']}.") from None


def connector_secrets(connectors: dict[str, HelpdeskConnector]) -> list[str]:
    """Every credential the connectors hold, to be blanked from log lines."""
    return [secret for connector in connectors.values() for secret in connector.secrets()]


_EXAMPLE = '{"acme": {"zendesk": ["SECRET"]}}'


def _source_secrets(
    path: Path, tenant_id: str, source: object, secrets: object
) -> list[IntakeSecret]:
    if not isinstance(source, str) or source not in known_sources():
        raise HelpdeskConfigError(
            f"{path}: tenant '{tenant_id}': unknown source {source!r}; use "
            f"{' or '.join(known_sources())}."
        )
    listed = rotation_list(secrets)
    if listed is None:
        raise HelpdeskConfigError(
            f"{path}: tenant '{tenant_id}', source '{source}': give a secret, or a list "
            "of them (the current one first)."
        )
    short = short_secret_bytes(listed)
    if short is not None:
        raise HelpdeskConfigError(
            f"{path}: tenant '{tenant_id}', source '{source}': a secret of {short} bytes; "
            f"it needs at least {MIN_SECRET_BYTES}."
        )
    return [IntakeSecret(tenant_id, source, secret) for secret in listed]
